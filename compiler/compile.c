// The compiler driver: pipelines per stage, emission, and host kernels on MLIR's JIT.
#include "compiler/compile.h"
#include "runtime/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context.h"
#include "ir/diagnostics.h"
#include "compiler/target.h"
#include "dialect/dialect.h"
#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Target/LLVMIR.h"
#include "passes/pass.h"
#include "runtime/host.h"

static const char* const stage_names[GG_STAGE_COUNT] = {"op",   "tiles", "target", "llvm-dialect",
                                                        "llvm", "isa",   "hsaco"};

const char* gg_stage_name(gg_stage stage) {
  return (unsigned)stage < GG_STAGE_COUNT ? stage_names[stage] : "?";
}

int gg_stage_from_name(const char* name) {
  for (int i = 0; i < GG_STAGE_COUNT; ++i)
    if (!strcmp(stage_names[i], name)) return i;
  // NVIDIA's names for the same stages.
  if (!strcmp(name, "ptx")) return GG_STAGE_ISA;
  if (!strcmp(name, "cubin")) return GG_STAGE_BINARY;
  return -1;
}

gg_status gg_pipeline_for(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size) {
  const gg_target_backend* backend = gg_target_backend_of(desc->target);
  if (!backend) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown target %d", (int)desc->target);
  if ((unsigned)stage >= GG_STAGE_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown stage %d", (int)stage);
  if (stage == GG_STAGE_OP) {
    snprintf(buffer, size, "%s", "");
    return GG_OK;
  }
  return backend->pipeline(desc, stage, buffer, size);
}


// Builds the module for desc and runs the pipeline up to stage, or only up to the pass
// stop_after when it is not NULL. On failure the status carries the diagnostics.
static gg_status build_and_lower(MlirContext ctx, const gg_op_desc* in, gg_stage stage,
                                 const char* stop_after, MlirModule* out_module, char* name,
                                 size_t name_size) {
  GG_RETURN_IF_ERROR(gg_op_desc_validate(in));
  gg_op_desc desc = gg_op_desc_with_defaults(in);
  gg_op_desc_kernel_name(&desc, name, name_size);
  char pipeline[4096];
  GG_RETURN_IF_ERROR(gg_pipeline_for(&desc, stage, pipeline, sizeof pipeline));
  MlirModule module = gg_build_module(ctx, &desc, name);
  gg_status status = GG_OK;
  if (pipeline[0] || stop_after)
    status = gg_pipeline_run_until(mlirModuleGetOperation(module), pipeline, stop_after);
  if (status) {
    mlirModuleDestroy(module);
    return gg_status_annotate(status, "compiling %s", name);
  }
  *out_module = module;
  return GG_OK;
}

gg_status gg_pipeline_run(MlirOperation module, const char* pipeline) {
  return gg_pipeline_run_until(module, pipeline, NULL);
}

gg_status gg_pipeline_run_until(MlirOperation module, const char* pipeline,
                                const char* stop_after) {
  MlirContext ctx = mlirOperationGetContext(module);
  gg_diagnostics diagnostics;
  gg_diagnostics_attach(&diagnostics, ctx, NULL);
  MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, gg_str("builtin.module"));
  gg_status status = gg_pipeline_add_until(mlirPassManagerGetAsOpPassManager(pm),
                                           "builtin.module", pipeline, stop_after);
  if (!status && mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, module)))
    status = gg_status_make(GG_STATUS_INTERNAL, "failed:\n%s", gg_text_str(&diagnostics.text));
  mlirPassManagerDestroy(pm);
  gg_diagnostics_detach(&diagnostics);
  return status;
}

gg_status gg_compile_module(const gg_op_desc* desc, gg_stage stage, MlirContext* out_ctx,
                            MlirModule* out_module) {
  if (stage > GG_STAGE_LLVM_DIALECT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "stage %s is not an MLIR module",
                          gg_stage_name(stage));
  MlirContext ctx = gg_mlir_context_create();
  if (mlirContextIsNull(ctx))
    return gg_status_make(GG_STATUS_INTERNAL, "the gg dialect failed to load");
  char name[256];
  gg_status status = build_and_lower(ctx, desc, stage, NULL, out_module, name, sizeof name);
  if (status) {
    mlirContextDestroy(ctx);
    return status;
  }
  *out_ctx = ctx;
  return GG_OK;
}

gg_status gg_compile_emit(const gg_op_desc* desc, gg_stage stage, gg_text* out) {
  MlirContext ctx = gg_mlir_context_create();
  if (mlirContextIsNull(ctx))
    return gg_status_make(GG_STATUS_INTERNAL, "the gg dialect failed to load");
  MlirModule module;
  char name[256];
  gg_status status = build_and_lower(ctx, desc, stage, NULL, &module, name, sizeof name);
  if (!status) {
    MlirOperation op = mlirModuleGetOperation(module);
    if (stage >= GG_STAGE_LLVM_IR) {
      status = gg_target_backend_of(desc->target)->emit(op, name, stage, out);
    } else {
      gg_text_operation(out, op);
      gg_text_printf(out, "\n");
    }
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(ctx);
  return status;
}

gg_status gg_compile_emit_after_pass(const gg_op_desc* desc, const char* pass, gg_text* out) {
  if (!pass || !*pass) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "no pass named");
  MlirContext ctx = gg_mlir_context_create();
  if (mlirContextIsNull(ctx))
    return gg_status_make(GG_STATUS_INTERNAL, "the gg dialect failed to load");
  MlirModule module;
  char name[256];
  // The whole pipeline the target has, cut after `pass`.
  const gg_target_backend* backend = gg_target_backend_of(desc->target);
  gg_stage last = backend ? backend->last_stage : GG_STAGE_LLVM_DIALECT;
  gg_status status = build_and_lower(ctx, desc, last, pass, &module, name, sizeof name);
  if (!status) {
    gg_text_operation(out, mlirModuleGetOperation(module));
    gg_text_printf(out, "\n");
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(ctx);
  return status;
}

// ---------------------------------------------------------------------------------------
// Host kernels.

struct gg_host_kernel {
  gg_op_desc desc;
  MlirContext ctx;
  MlirExecutionEngine engine;
  gg_host_entry entry;  // _mlir_ciface_<name>
  double compile_ms;
};

gg_status gg_host_kernel_create(const gg_op_desc* desc, gg_host_kernel** out) {
  *out = NULL;
  double start = gg_now_ms();
  gg_host_kernel* kernel = calloc(1, sizeof *kernel);
  if (!kernel) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  kernel->desc = gg_op_desc_with_defaults(desc);
  kernel->ctx = gg_mlir_context_create();
  if (mlirContextIsNull(kernel->ctx)) {
    free(kernel);
    return gg_status_make(GG_STATUS_INTERNAL, "the gg dialect failed to load");
  }
  MlirModule module;
  char name[256];
  gg_status status = build_and_lower(kernel->ctx, desc, GG_STAGE_LLVM_DIALECT, NULL, &module,
                                     name, sizeof name);
  if (status) {
    gg_host_kernel_destroy(kernel);
    return status;
  }
  kernel->engine = mlirExecutionEngineCreate(module, 2, 0, NULL, false, false);
  mlirModuleDestroy(module);
  if (mlirExecutionEngineIsNull(kernel->engine)) {
    gg_host_kernel_destroy(kernel);
    return gg_status_make(GG_STATUS_INTERNAL, "the JIT could not compile %s", name);
  }
  char symbol[300];
  snprintf(symbol, sizeof symbol, "_mlir_ciface_%s", name);
  void* entry = mlirExecutionEngineLookup(kernel->engine, gg_str(symbol));
  if (!entry) {
    gg_host_kernel_destroy(kernel);
    return gg_status_make(GG_STATUS_INTERNAL, "the JIT has no entry point %s", symbol);
  }
  kernel->entry = (gg_host_entry)(uintptr_t)entry;
  kernel->compile_ms = gg_now_ms() - start;
  *out = kernel;
  return GG_OK;
}

void gg_host_kernel_destroy(gg_host_kernel* kernel) {
  if (!kernel) return;
  if (!mlirExecutionEngineIsNull(kernel->engine)) mlirExecutionEngineDestroy(kernel->engine);
  if (!mlirContextIsNull(kernel->ctx)) mlirContextDestroy(kernel->ctx);
  free(kernel);
}

double gg_host_kernel_compile_ms(const gg_host_kernel* kernel) { return kernel->compile_ms; }

gg_status gg_host_kernel_run(gg_host_kernel* kernel, void* const buffers[GG_OPERAND_COUNT],
                             int64_t m, int zeroing) {
  return gg_host_invoke(kernel->entry, &kernel->desc, buffers, m, zeroing);
}
