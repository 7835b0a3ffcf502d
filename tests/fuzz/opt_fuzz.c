// gg-opt's work on mutated .mlir: an input is MLIR text; its length picks the pipeline. The text is parsed with gg's dialect loaded and, when it parses and verifies,
// run through one of gg's passes or pipelines (up to the LLVM dialect; no code generation).
// Seeds: the lit cases' .mlir files (given on the command line) and the op, tile and
// target IR of a few descriptors. Oracles: the sanitizers; a pass may refuse its input
// with a diagnostic, never crash.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compile.h"
#include "ir/context.h"
#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "mlir-c/Pass.h"
#include "passes/pass.h"
#include "tests/fuzz/fuzz.h"

static const char* const pipelines[] = {
    "gg-verify",
    "gg-select-config",
    "gg-select-config,gg-tile",
    "gg-tile-level",
    "gg-resolve-groups",
    "gg-k-loop",
    "gg-k-loop{mode=unrolled}",
    "gg-mask",
    "gg-tile-level,gg-to-host",
    "gg-to-host",
    "gg-tile-level,gg-to-amdgpu{chip=gfx950}",
    "gg-to-amdgpu{chip=gfx942}",
    "gg-to-llvm",
    "gg-to-rocdl{chip=gfx950}",
};
enum { PIPELINES = sizeof pipelines / sizeof pipelines[0] };

static MlirContext ctx;
static gg_diagnostics diagnostics;

// The IR of a descriptor after a stage, as a seed.
static void add_stage_seed(const gg_op_desc* d, gg_stage stage) {
  gg_text text;
  gg_text_init(&text);
  gg_status status = gg_compile_emit(d, stage, &text);
  if (status) gg_fuzz_fail("seed: %s", gg_status_message(status));
  gg_fuzz_add_seed(text.data, text.length);
  gg_text_free(&text);
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  gg_fuzz_text_inputs();
  ctx = gg_mlir_context_create();
  if (mlirContextIsNull(ctx)) gg_fuzz_fail("the gg dialect does not load");
  FILE* null = fopen("/dev/null", "w");
  gg_diagnostics_attach(&diagnostics, ctx, null);
  static const gg_layout layouts[] = {GG_LAYOUT_SIZES, GG_LAYOUT_PADDED, GG_LAYOUT_N_OFFSETS,
                                      GG_LAYOUT_K_OFFSETS};
  for (int i = 0; i < 4; ++i) {
    gg_op_desc d = {0};
    d.layout = layouts[i];
    d.scaling = i == 1 ? GG_SCALING_BLOCKWISE : GG_SCALING_ROWWISE;
    d.n = 256;
    d.k = 512;
    d.g = 3;
    d.target = i == 2 ? GG_TARGET_GFX950 : GG_TARGET_HOST;
    add_stage_seed(&d, GG_STAGE_OP);
    add_stage_seed(&d, GG_STAGE_TILES);
  }
  static const char* const dictionary[] = {
      "\"gg.grouped_matmul\"", "\"gg.grid\"", "\"gg.group_ends\"", "\"gg.resolve_group\"",
      "\"gg.load_tile\"", "\"gg.mma_tile\"", "\"gg.epilogue\"", "layout = \"sizes\"",
      "layout = \"k_offsets\"", " : i64", " : index", "memref<?x", "xf8E4M3FN>", "xi64>",
      "vector<128x128xf32>", "-1", "0", "9223372036854775807", "2147483648", "tile_m = 0",
      "{gg.loop = \"unrolled\"}", "scf.for", "gpu.yield",
  };
  for (size_t i = 0; i < sizeof dictionary / sizeof dictionary[0]; ++i)
    gg_fuzz_add_token(dictionary[i]);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* pipeline = pipelines[size % PIPELINES];
  // Top-level ops without a module go into one, as gg-opt does.
  gg_text text;
  gg_text_init(&text);
  gg_text_append(&text, (const char*)data, size);
  if (!gg_mlir_text_is_module(gg_text_str(&text))) {
    gg_text_clear(&text);
    gg_text_printf(&text, "module {\n");
    gg_text_append(&text, (const char*)data, size);
    gg_text_printf(&text, "\n}\n");
  }
  MlirOperation module = mlirOperationCreateParse(ctx, gg_str(gg_text_str(&text)), gg_str("fuzz"));
  gg_text_free(&text);
  if (getenv("GG_FUZZ_VERBOSE"))
    fprintf(stderr, "%zu bytes: %s, %s\n", size, mlirOperationIsNull(module) ? "no parse" : "parsed",
            pipeline);
  if (mlirOperationIsNull(module)) return 0;
  if (!mlirOperationVerify(module) || !gg_op_is(module, "builtin.module")) {
    if (getenv("GG_FUZZ_VERBOSE")) fprintf(stderr, "  invalid\n");
    mlirOperationDestroy(module);
    return 0;
  }
  MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, gg_str("builtin.module"));
  gg_status status = gg_pipeline_add(mlirPassManagerGetAsOpPassManager(pm), "builtin.module",
                                     pipeline);
  if (status) gg_fuzz_fail("pipeline %s: %s", pipeline, gg_status_message(status));
  // Success or diagnostics: both fine.
  MlirLogicalResult result = mlirPassManagerRunOnOp(pm, module);
  if (getenv("GG_FUZZ_VERBOSE"))
    fprintf(stderr, "  %s\n", mlirLogicalResultIsSuccess(result) ? "ran" : "refused");
  mlirPassManagerDestroy(pm);
  mlirOperationDestroy(module);
  return 0;
}
