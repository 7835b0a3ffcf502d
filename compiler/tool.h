// Running an external tool (ptxas, llvm-mca) on files in a private temporary directory.
#ifndef GG_COMPILER_TOOL_H_
#define GG_COMPILER_TOOL_H_

#include <stddef.h>

#include "gg/status.h"
#include "runtime/text.h"

#ifdef __cplusplus
extern "C" {
#endif

// A directory of its own under $TMPDIR (else /tmp), named <prefix>-XXXXXX, for a tool's
// input and output files. gg_tool_dir_remove deletes the files named and the directory.
gg_status gg_tool_dir_make(const char* prefix, char* dir, size_t size);
void gg_tool_dir_remove(const char* dir, const char* const* files, int count);

// Runs exe with argv (argv[0] included, NULL-terminated), its standard output and error
// into the file `log`, and waits. *exit_code is its exit status (-1 when killed by a
// signal). UNAVAILABLE when it cannot be started.
gg_status gg_tool_run(const char* exe, char* const argv[], const char* log, int* exit_code);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_TOOL_H_
