// The gg command line as a library: tools/gg_main.c calls it, and the command-line fuzzer
// (tests/fuzz) drives it in process.
//
//   gg run     --op stacked|dynamic|mm [--ranks 2d3d|3d3d|3d2d|2d2d] --groups E1,E2,...
//              [--M m] [--N n] [--K k] [--scaling rowwise|blockwise] [--b plain|preshuffled]
//              [--target host|sim|gfx942|gfx950|hsa] [--fp8 e4m3fn|e4m3fnuz]
//              [--data random|exact] [--seed S] [--tile MxNxK] [--wpe W]
//              [--loop rolled|unrolled] [--no-zeroing] [--alternate-constant]
//              [--chip gfx942|gfx950]   (what --target sim emulates; gfx950 by default)
//              [--api]  (host: through the public API, a cached shared object, not the JIT)
//   gg compile (the same descriptor flags) [--emit op|tiles|target|llvm-dialect|llvm|isa|hsaco
//              | --after PASS] [-o FILE] [--stats]
//   gg preshuffle --N n --K k [--G g] [--fp8 e4m3fn|e4m3fnuz] [--inverse] IN OUT
//              (raw FP8 weights in the MFMA B-preshuffle order, or back with --inverse)
//   gg bundle  --target host|gfx942|gfx950 -o FILE [--list FILE|-] [descriptor flags]
//              [--threads T]
//              (many kernels compiled ahead of time into one file, for libgg_runtime and
//              gg-launch; the list has one descriptor per line in gg run's flags, '#'
//              comments; compiles run in parallel, one thread per core by default)
//
// --groups lists one extent per group; an item E*C stands for C groups of extent E
// ("256,0*9999" is 10000 groups). --target gfx942|gfx950|hsa runs on an AMD GPU through
// HSA (hsa: whichever is present).
//
// For gfx942 and gfx950 `gg compile` writes the HSA code object unless --emit says
// otherwise; --stats adds one line of key=value figures read from the kernel's assembly.
//
// `gg run` draws inputs, poisons the output, runs the kernel, compares it with the C
// reference and prints as its last line
//   PASS max_abs_err=<e> max_ulp=<u> elements=<n> checksum=<16 hex digits>
// (exit 0) or FAIL ... (exit 1). Input the contract rejects exits 2 with
// "error: <the rule>" (every number is range-checked: nothing wraps); a target that is
// not available here exits 3.
#ifndef GG_TOOLS_CLI_H_
#define GG_TOOLS_CLI_H_

#include <stdint.h>

#include "compiler/compile.h"
#include "gg/op.h"
#include "tools/flags.h"

#ifdef __cplusplus
extern "C" {
#endif

// The flags of run and compile.
typedef struct gg_cli {
  gg_flags f;  // the descriptor flags (tools/flags.h)
  gg_stage emit;
  int emit_given;
  int stats;
  const char* output;
  const char* after;  // gg compile: print the module after this pass
} gg_cli;

// Parses the flags after argv[1] (the command) into c. Returns 0, or the exit code after
// printing "error: ..." to stderr. On return c owns memory: gg_cli_free releases it.
int gg_cli_parse(int argc, char** argv, gg_cli* c);
void gg_cli_free(gg_cli* c);

// The whole command line (argv[0] is the program): the exit code.
int gg_cli_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif

#endif  // GG_TOOLS_CLI_H_
