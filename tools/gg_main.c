// gg: the command-line compiler and checker (tools/cli.h says what it does).
#include "tools/cli.h"

int main(int argc, char** argv) { return gg_cli_main(argc, argv); }
