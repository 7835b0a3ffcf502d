// bench/compile: compile time and code size of the AMD kernels against K, rolled and
// unrolled, with the time each stage of the pipeline takes.
//
//   bazel run -c opt //bench:compile -- [--runs N] [--ks 1024,2048,...] [--chips gfx942,gfx950]
//
// Each configuration is compiled `runs` times from scratch (context, module, every pass,
// LLVM codegen, the ld.lld link) and the median is reported. The stages, timed on the same
// runs: gg passes (descriptor to the gg-to-amdgpu kernel), upstream lowering (to ROCDL),
// LLVM codegen (ROCDL to assembly) and link (assembly to the linked code object: MC plus
// ld.lld, the binary's time minus the assembly's).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/amdgpu.h"
#include "runtime/clock.h"
#include "compiler/gpu_module.h"
#include "compiler/compile.h"
#include "gg/op.h"




typedef struct measurement {
  double total_ms, gg_ms, upstream_ms, codegen_ms, link_ms;
  gg_isa_stats stats;
} measurement;

static int fail(gg_status status, const char* what) {
  fprintf(stderr, "bench: %s: %s\n", what, gg_status_message(status));
  gg_status_free(status);
  return 1;
}

// One compile, staged. The assembly is produced from a clone of the ROCDL module so the
// code object's compile (the total) is the real one.
static int measure(const gg_op_desc* desc, const char* toolkit, measurement* m) {
  const char* chip = gg_target_name(desc->target);
  char pipeline[2048];
  double t0 = gg_now_ms();
  MlirContext ctx;
  MlirModule module;
  gg_status status = gg_compile_module(desc, GG_STAGE_TARGET, &ctx, &module);
  if (status) return fail(status, "gg passes");
  double t1 = gg_now_ms();
  snprintf(pipeline, sizeof pipeline, "gg-rocdl-lowering{chip=%s}", chip);
  status = gg_pipeline_run(mlirModuleGetOperation(module), pipeline);
  double t2 = gg_now_ms();
  MlirOperation isa_module = mlirOperationClone(mlirModuleGetOperation(module));
  double t3 = gg_now_ms();
  if (!status) {
    snprintf(pipeline, sizeof pipeline, "gg-amdgpu-binary{chip=%s format=isa toolkit=%s}", chip, toolkit);
    status = gg_pipeline_run(isa_module, pipeline);
  }
  double t4 = gg_now_ms();
  MlirStringRef isa = {NULL, 0};
  if (!status) status = gg_gpu_binary_bytes(isa_module, &isa);
  if (!status) status = gg_isa_stats_parse(isa.data, isa.length, &m->stats);
  double t5 = gg_now_ms();
  if (!status) {
    snprintf(pipeline, sizeof pipeline, "gg-amdgpu-binary{chip=%s format=bin toolkit=%s}", chip, toolkit);
    status = gg_pipeline_run(mlirModuleGetOperation(module), pipeline);
  }
  double t6 = gg_now_ms();
  mlirOperationDestroy(isa_module);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (status) return fail(status, "lowering");
  m->gg_ms = t1 - t0;
  m->upstream_ms = t2 - t1;
  m->codegen_ms = t4 - t3;
  m->link_ms = (t6 - t5) - (t4 - t3);
  if (m->link_ms < 0) m->link_ms = 0;
  m->total_ms = (t2 - t0) + (t6 - t5);
  return 0;
}

static int parse_list(const char* text, long long* out, int max) {
  int n = 0;
  for (const char* p = text; *p && n < max;) {
    char* end;
    out[n++] = strtoll(p, &end, 10);
    if (end == p) return -1;
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

int main(int argc, char** argv) {
  int runs = 3;
  long long ks[16] = {1024, 2048, 4096, 8192, 16384};
  int nk = 5;
  const char* chips[2] = {"gfx942", "gfx950"};
  int nchips = 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--ks") && i + 1 < argc) {
      nk = parse_list(argv[++i], ks, 16);
    } else if (!strcmp(argv[i], "--chips") && i + 1 < argc) {
      const char* c = argv[++i];
      nchips = 0;
      if (strstr(c, "gfx942")) chips[nchips++] = "gfx942";
      if (strstr(c, "gfx950")) chips[nchips++] = "gfx950";
    } else {
      fprintf(stderr, "usage: compile [--runs N] [--ks K1,K2,...] [--chips gfx942,gfx950]\n");
      return 2;
    }
  }
  if (runs < 1 || runs > 99 || nk <= 0 || nchips == 0) {
    fprintf(stderr, "bench: bad --runs, --ks or --chips\n");
    return 2;
  }
  char toolkit[1024];
  gg_status status = gg_amdgpu_toolkit(toolkit, sizeof toolkit);
  if (status) return fail(status, "toolkit");

  printf("stacked op, G=8, N=4096, default tile 128x128x128, waves_per_eu 2; median of %d runs\n",
         runs);
  printf("%-7s %6s %-9s %10s %9s %5s %13s | %8s %11s %10s %8s\n", "chip", "K", "form",
         "compile_ms", "isa_lines", "vgpr", "mfma_in_loop", "gg_ms", "upstream_ms", "codegen_ms",
         "link_ms");
  for (int c = 0; c < nchips; ++c) {
    gg_target target = (gg_target)gg_target_from_name(chips[c]);
    for (int ki = 0; ki < nk; ++ki) {
      double rolled_ms = 0;
      int rolled_lines = 0;
      for (int form = 0; form < 2; ++form) {
        gg_op_desc d = {0};
        d.layout = GG_LAYOUT_SIZES;
        d.fp8 = target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
        d.n = 4096;
        d.k = ks[ki];
        d.g = 8;
        d.target = target;
        d.tile = gg_tile_config_default();
        d.tile.loop = form ? GG_LOOP_UNROLLED : GG_LOOP_ROLLED;
        double total[99], gg[99], upstream[99], codegen[99], link[99];
        measurement m = {0};
        for (int r = 0; r < runs; ++r) {
          if (measure(&d, toolkit, &m)) return 1;
          total[r] = m.total_ms;
          gg[r] = m.gg_ms;
          upstream[r] = m.upstream_ms;
          codegen[r] = m.codegen_ms;
          link[r] = m.link_ms;
        }
        double t = gg_median(total, runs);
        printf("%-7s %6lld %-9s %10.1f %9d %5d %13d | %8.1f %11.1f %10.1f %8.1f\n", chips[c], ks[ki],
               form ? "unrolled" : "rolled", t, m.stats.isa_lines, m.stats.vgpr, m.stats.mfma_in_loop,
               gg_median(gg, runs), gg_median(upstream, runs), gg_median(codegen, runs), gg_median(link, runs));
        if (form == 0) {
          rolled_ms = t;
          rolled_lines = m.stats.isa_lines;
        } else {
          printf("%-7s %6lld %-9s %10.2f %9.2f   (rolled / unrolled)\n", chips[c], ks[ki], "ratio",
                 rolled_ms / t, (double)rolled_lines / m.stats.isa_lines);
        }
        fflush(stdout);
      }
    }
  }
  return 0;
}
