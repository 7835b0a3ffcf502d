// gg passes: each pass is a C function over one op, described by a gg_pass_info that the
// registry lists once. MLIR 22 has no way to register an external pass globally, so the
// registry and the pipeline parser here stand in for mlir-opt's.
#ifndef GG_PASSES_PASS_H_
#define GG_PASSES_PASS_H_

#include <stdbool.h>
#include <stddef.h>

#include "gg/status.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_pass_info {
  const char* argument;  // pipeline name, e.g. "gg-tile"
  const char* summary;
  const char* anchor;    // the op the pass runs on, e.g. "func.func"
  size_t options_size;   // bytes of the pass's options struct (0: no options)
  // Fills options (zeroed first) from the text between braces, e.g. "mode=rolled".
  gg_status (*parse_options)(const char* text, void* options);
  // Runs on one anchor op; on failure it has emitted a located error.
  bool (*run)(MlirOperation op, const void* options);
} gg_pass_info;

// Creates an MLIR pass from a gg pass and its option text (NULL or "" for defaults).
gg_status gg_pass_create(const gg_pass_info* info, const char* option_text, MlirPass* pass);

// The registry: every gg pass, and the named pipelines.
const gg_pass_info* gg_pass_lookup(const char* argument);
size_t gg_pass_count(void);
const gg_pass_info* gg_pass_at(size_t index);

typedef struct gg_named_pipeline {
  const char* argument;
  const char* summary;
  gg_status (*expand)(const char* option_text, char* buffer, size_t size);
} gg_named_pipeline;

const gg_named_pipeline* gg_named_pipeline_lookup(const char* argument);
size_t gg_named_pipeline_count(void);
const gg_named_pipeline* gg_named_pipeline_at(size_t index);

// Adds a textual pipeline to pm, which runs on ops named `anchor`. The text mixes gg
// passes (with {options}), named pipelines, `op-name(...)` nesting and upstream passes,
// which are forwarded to MLIR's own parser. gg passes anchored on another op are nested
// under it. A `builtin.module(...)` wrapper is accepted.
gg_status gg_pipeline_add(MlirOpPassManager pm, const char* anchor, const char* text);

// As gg_pipeline_add, but only up to and including the first element named stop_after
// (a pass or a named pipeline, at any depth of nesting or expansion); fails if there is
// none. A NULL stop_after adds everything.
gg_status gg_pipeline_add_until(MlirOpPassManager pm, const char* anchor, const char* text,
                                const char* stop_after);

// Option helpers for parse_options: iterate "key=value,key2=value2".
typedef struct gg_option {
  char key[64];
  char value[1024];
} gg_option;
// Reads the next option from *cursor; returns false at the end, or sets *status when the
// text is malformed.
bool gg_option_next(const char** cursor, gg_option* option, gg_status* status);


// The passes.
extern const gg_pass_info gg_verify_pass;
extern const gg_pass_info gg_select_config_pass;
extern const gg_pass_info gg_tile_pass;
extern const gg_pass_info gg_resolve_groups_pass;
extern const gg_pass_info gg_k_loop_pass;
extern const gg_pass_info gg_mask_pass;
extern const gg_pass_info gg_to_host_pass;
extern const gg_pass_info gg_to_amdgpu_pass;
extern const gg_pass_info gg_to_nvvm_pass;
extern const gg_pass_info gg_nvvm_abi_pass;

#ifdef __cplusplus
}
#endif

#endif  // GG_PASSES_PASS_H_
