// Artifacts of a descriptor, compiled fresh.
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "compiler/compile.h"
#include "compiler/target.h"
#include "compiler/host_library.h"

// Hands the text's buffer over as bytes (NUL-terminated, even when empty).
static gg_status take(gg_text* text, gg_bytes* out) {
  if (text->failed || (!text->data && !(text->data = calloc(1, 1)))) {
    gg_text_free(text);
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  out->data = text->data;
  out->size = text->length;
  gg_text_init(text);
  return GG_OK;
}

gg_status gg_emit(const gg_op_desc* desc, gg_artifact artifact, gg_bytes* out) {
  if (!desc || !out) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_emit: NULL argument");
  out->data = NULL;
  out->size = 0;
  static const gg_stage stages[GG_ARTIFACT_COUNT] = {
      GG_STAGE_OP,       GG_STAGE_TILES, GG_STAGE_TARGET, GG_STAGE_LLVM_DIALECT,
      GG_STAGE_LLVM_IR,  GG_STAGE_ISA,   GG_STAGE_BINARY, GG_STAGE_COUNT};
  if ((unsigned)artifact >= GG_ARTIFACT_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown artifact %d", (int)artifact);
  gg_text text;
  gg_text_init(&text);
  gg_status status;
  const gg_target_backend* backend = gg_target_backend_of(desc->target);
  int machine_code_artifact = artifact == GG_ARTIFACT_ISA || artifact == GG_ARTIFACT_HSACO;
  if (machine_code_artifact && backend && !backend->machine_code)
    status = gg_status_make(GG_STATUS_UNIMPLEMENTED,
                            "the %s target has no %s artifact: its kernels are JIT-compiled "
                            "(emit LLVM IR for the code, or the host library)",
                            gg_target_name(desc->target), gg_stage_name(stages[artifact]));
  else if (artifact != GG_ARTIFACT_HOST_LIBRARY)
    status = gg_compile_emit(desc, stages[artifact], &text);
  else if (desc->target != GG_TARGET_HOST)
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "host libraries are for the host target, not %s",
                            gg_target_name(desc->target));
  else
    status = gg_compile_artifact(desc, &text);
  if (status) {
    gg_text_free(&text);
    return status;
  }
  return take(&text, out);
}

gg_status gg_emit_after_pass(const gg_op_desc* desc, const char* pass, gg_bytes* out) {
  if (!desc || !out)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_emit_after_pass: NULL argument");
  out->data = NULL;
  out->size = 0;
  gg_text text;
  gg_text_init(&text);
  gg_status status = gg_compile_emit_after_pass(desc, pass, &text);
  if (status) {
    gg_text_free(&text);
    return status;
  }
  return take(&text, out);
}
