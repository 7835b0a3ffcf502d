// The target table.
#include "compiler/target.h"

#include "compiler/amdgpu.h"
#include "compiler/host_library.h"
#include "compiler/nvidia.h"

static const gg_target_backend backends[GG_TARGET_COUNT] = {
    [GG_TARGET_HOST] = {GG_TARGET_HOST, gg_host_pipeline, GG_STAGE_LLVM_DIALECT, gg_host_emit,
                        "host-library", gg_host_artifact_stage, 0, NULL},
    [GG_TARGET_GFX942] = {GG_TARGET_GFX942, gg_amdgpu_pipeline, GG_STAGE_BINARY, gg_amdgpu_emit,
                          "hsaco", gg_amdgpu_artifact_stage, 1, gg_amdgpu_stats, 1},
    [GG_TARGET_GFX950] = {GG_TARGET_GFX950, gg_amdgpu_pipeline, GG_STAGE_BINARY, gg_amdgpu_emit,
                          "hsaco", gg_amdgpu_artifact_stage, 1, gg_amdgpu_stats, 1},
    [GG_TARGET_SM90A] = {GG_TARGET_SM90A, gg_nvidia_pipeline, GG_STAGE_BINARY, gg_nvidia_emit,
                         "cuda-module", gg_nvidia_artifact_stage, 1, gg_nvidia_stats},
};

const gg_target_backend* gg_target_backend_of(gg_target target) {
  if ((unsigned)target >= GG_TARGET_COUNT || !backends[target].pipeline) return NULL;
  return &backends[target];
}

gg_status gg_compile_artifact(const gg_op_desc* desc, gg_text* out) {
  GG_RETURN_IF_ERROR(gg_op_desc_validate(desc));
  gg_stage stage = gg_target_backend_of(desc->target)->artifact_stage(desc);
  GG_RETURN_IF_ERROR(gg_compile_emit(desc, stage, out));
  if (stage == GG_STAGE_ISA) gg_text_append(out, "", 1);  // read as a C string
  return GG_OK;
}

gg_status gg_compile_stats(const gg_op_desc* desc, gg_text* out) {
  GG_RETURN_IF_ERROR(gg_op_desc_validate(desc));
  const gg_target_backend* backend = gg_target_backend_of(desc->target);
  if (!backend->stats)
    return gg_status_make(GG_STATUS_UNIMPLEMENTED, "the %s target has no machine code statistics",
                          gg_target_name(desc->target));
  MlirContext ctx = {NULL};
  MlirModule module = {NULL};
  if (backend->stats_read_target_ir)
    GG_RETURN_IF_ERROR(gg_compile_module(desc, GG_STAGE_TARGET, &ctx, &module));
  gg_text isa;
  gg_text_init(&isa);
  gg_status status = gg_compile_emit(desc, GG_STAGE_ISA, &isa);
  if (!status)
    status = backend->stats(desc,
                            mlirModuleIsNull(module) ? (MlirOperation){NULL}
                                                     : mlirModuleGetOperation(module),
                            isa.data ? isa.data : "", isa.length, out);
  gg_text_free(&isa);
  if (!mlirModuleIsNull(module)) mlirModuleDestroy(module);
  if (!mlirContextIsNull(ctx)) mlirContextDestroy(ctx);
  return status;
}
