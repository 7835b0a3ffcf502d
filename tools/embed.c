// Build tool: turns a text file into a C source defining `const char <symbol>[]`, so the
// IRDL dialect definition is compiled into the library (no file to find at run time).
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: embed <input> <symbol> <output.c>\n");
    return 2;
  }
  FILE* in = fopen(argv[1], "rb");
  if (!in) {
    perror(argv[1]);
    return 1;
  }
  FILE* out = fopen(argv[3], "wb");
  if (!out) {
    perror(argv[3]);
    fclose(in);
    return 1;
  }
  fprintf(out, "// Generated from %s by tools/embed.c. Do not edit.\n", argv[1]);
  fprintf(out, "const char %s[] = {", argv[2]);
  int c;
  unsigned long count = 0;
  while ((c = fgetc(in)) != EOF) fprintf(out, "%s%d,", (count++ % 24) ? "" : "\n  ", c);
  fprintf(out, "\n  0};\n");
  int failed = ferror(in) || fclose(out) != 0;
  fclose(in);
  return failed ? 1 : 0;
}
