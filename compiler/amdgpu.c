// AMD code objects.
#include "compiler/amdgpu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/amd_estimate.h"
#include "compiler/amd_lds.h"
#include "compiler/amd_loop.h"
#include "compiler/compile.h"
#include "compiler/gpu_module.h"
#include "runtime/files.h"

#define SYSTEM_LLD "/usr/lib/llvm-22/bin/ld.lld"

// Writes a + b into out; false when it does not fit.
static int concat(char* out, size_t size, const char* a, const char* b) {
  int n = snprintf(out, size, "%s%s", a, b);
  return n >= 0 && (size_t)n < size;
}

static int is_toolkit(const char* dir) {
  char lld[PATH_MAX];
  return concat(lld, sizeof lld, dir, "/llvm/bin/ld.lld") && access(lld, X_OK) == 0;
}

static int try_dir(char* buffer, size_t size, const char* prefix, const char* suffix) {
  if (!prefix || !*prefix) return 0;
  char dir[PATH_MAX];
  if (!concat(dir, sizeof dir, prefix, suffix) || !is_toolkit(dir)) return 0;
  return concat(buffer, size, dir, "");
}

gg_status gg_amdgpu_toolkit(char* buffer, size_t size) {
  const char* env = getenv("GG_TOOLKIT");
  if (env && *env) {
    if (try_dir(buffer, size, env, "")) return GG_OK;
    return gg_status_make(GG_STATUS_UNAVAILABLE, "GG_TOOLKIT=%s has no llvm/bin/ld.lld", env);
  }
  static const char* const runfile = "/gg/compiler/amdgpu_toolkit";
  if (try_dir(buffer, size, getenv("RUNFILES_DIR"), runfile) ||
      try_dir(buffer, size, getenv("TEST_SRCDIR"), runfile))
    return GG_OK;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char runfiles[PATH_MAX];
    if (concat(runfiles, sizeof runfiles, exe, ".runfiles") && try_dir(buffer, size, runfiles, runfile))
      return GG_OK;
  }
  // Embedded in another program: make one (a symlink to Debian's lld-22).
  if (access(SYSTEM_LLD, X_OK) != 0)
    return gg_status_make(GG_STATUS_UNAVAILABLE,
                          "no linker for AMD code objects: %s is missing (install lld-22)",
                          SYSTEM_LLD);
  const char* tmp = getenv("TMPDIR");
  char dir[PATH_MAX], bin[PATH_MAX], lld[PATH_MAX], user[32];
  snprintf(user, sizeof user, "/gg-toolkit-%d", (int)getuid());
  if (!concat(dir, sizeof dir, tmp && *tmp ? tmp : "/tmp", user) ||
      !concat(bin, sizeof bin, dir, "/llvm/bin") || !concat(lld, sizeof lld, bin, "/ld.lld"))
    return gg_status_make(GG_STATUS_IO, "the temporary directory path is too long");
  if (!is_toolkit(dir)) {
    GG_RETURN_IF_ERROR(gg_status_annotate(gg_make_dirs(bin, 0755), "making the toolkit directory"));
    if (symlink(SYSTEM_LLD, lld) != 0 && errno != EEXIST)
      return gg_status_make(GG_STATUS_IO, "cannot make the toolkit directory %s: %s", dir,
                            strerror(errno));
  }
  if (!concat(buffer, size, dir, "")) return gg_status_make(GG_STATUS_IO, "toolkit path too long");
  return GG_OK;
}

// ---------------------------------------------------------------------------------------
// Assembly statistics.

static const char* skip_space(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p;
}

// The integer after `key` (e.g. ".vgpr_count:") in the assembly, or -1.
static int value_after(const char* isa, size_t length, const char* key) {
  const char* end = isa + length;
  size_t key_length = strlen(key);
  for (const char* p = isa; p + key_length < end; ++p) {
    if (memcmp(p, key, key_length) != 0) continue;
    const char* v = skip_space(p + key_length, end);
    if (v < end && (*v >= '0' && *v <= '9')) return atoi(v);
  }
  return -1;
}

gg_status gg_isa_stats_parse(const char* isa, size_t length, gg_isa_stats* stats) {
  memset(stats, 0, sizeof *stats);
  gg_isa_line* lines;
  size_t count;
  GG_RETURN_IF_ERROR(gg_isa_kernel_lines(isa, length, &lines, &count));
  for (size_t i = 0; i < count; ++i) {
    if (!gg_isa_line_is_instruction(lines[i])) continue;
    stats->isa_lines++;
    if (gg_isa_line_starts_with(lines[i], "ds_write") || gg_isa_line_starts_with(lines[i], "ds_store"))
      stats->lds_writes++;
  }
  free(lines);
  // The K loop's MFMAs (counted alike on every chip).
  gg_amd_loop loop;
  GG_RETURN_IF_ERROR(gg_amd_loop_analyze(isa, length, GG_TARGET_COUNT, 0, &loop));
  stats->mfma_in_loop = loop.mfma;
  stats->vgpr = value_after(isa, length, ".vgpr_count:");
  stats->agpr = value_after(isa, length, ".agpr_count:");
  stats->sgpr = value_after(isa, length, ".sgpr_count:");
  stats->lds_bytes = value_after(isa, length, ".group_segment_fixed_size:");
  stats->scratch_bytes = value_after(isa, length, ".private_segment_fixed_size:");
  stats->kernarg_bytes = value_after(isa, length, ".kernarg_segment_size:");
  if (stats->vgpr < 0 || stats->sgpr < 0 || stats->lds_bytes < 0)
    return gg_status_make(GG_STATUS_INTERNAL, "the assembly has no kernel metadata");
  // gfx90a and later: VGPRs and AGPRs share 512 registers per lane, allocated in granules
  // of 8. .vgpr_count already counts both (the AGPRs start at accum_offset, after the
  // VGPRs), so the AGPRs are not added again.
  int registers = (stats->vgpr + 7) / 8 * 8;
  stats->waves_per_simd = registers ? 512 / registers : 8;
  if (stats->waves_per_simd > 8) stats->waves_per_simd = 8;
  return GG_OK;
}

// ---------------------------------------------------------------------------------------
// The gfx942 and gfx950 rows of the target table (compiler/target.c).

gg_status gg_amdgpu_pipeline(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size) {
  const char* chip = gg_target_name(desc->target);
  switch (stage) {
    case GG_STAGE_TILES: snprintf(buffer, size, "gg-tile-level"); break;
    case GG_STAGE_TARGET: snprintf(buffer, size, "gg-tile-level,gg-to-amdgpu{chip=%s}", chip); break;
    case GG_STAGE_LLVM_DIALECT:
    case GG_STAGE_LLVM_IR: snprintf(buffer, size, "gg-to-rocdl{chip=%s}", chip); break;
    case GG_STAGE_ISA:
    case GG_STAGE_BINARY: {
      char toolkit[1024];
      GG_RETURN_IF_ERROR(gg_amdgpu_toolkit(toolkit, sizeof toolkit));
      snprintf(buffer, size, "gg-to-rocdl{chip=%s},gg-amdgpu-binary{chip=%s format=%s toolkit=%s}",
               chip, chip, stage == GG_STAGE_ISA ? "isa" : "bin", toolkit);
      break;
    }
    default: return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown stage %d", (int)stage);
  }
  return GG_OK;
}

gg_status gg_amdgpu_emit(MlirOperation module, const char* name, gg_stage stage, gg_text* out) {
  (void)name;
  if (stage == GG_STAGE_LLVM_IR) return gg_gpu_module_llvm_ir(module, out);
  MlirStringRef bytes;
  GG_RETURN_IF_ERROR(gg_gpu_binary_bytes(module, &bytes));
  gg_text_append(out, bytes.data, bytes.length);
  return GG_OK;
}

gg_stage gg_amdgpu_artifact_stage(const gg_op_desc* desc) {
  (void)desc;
  return GG_STAGE_BINARY;  // the code object
}

// The K loop model (docs/amd-model.md): per iteration, MFMA issue cycles against what
// llvm-mca and the LDS banks say the iteration takes, and the L2 bandwidth the resident
// workgroups ask for when their MFMAs run at full rate.
static void append_loop_model(const gg_op_desc* desc, const gg_isa_stats* stats,
                              const gg_amd_loop* loop, const gg_amd_lds* lds, gg_text* out) {
  gg_target chip = desc->target;
  if (!loop->found || !lds->found) {
    gg_text_printf(out, " loop=none");
    return;
  }
  // Tiles per iteration: a wave's MFMAs per tile are its 16x16 blocks times the K steps.
  gg_op_desc d = gg_op_desc_with_defaults(desc);
  int per_tile = (d.tile.m / 16) * (d.tile.n / 64) * (d.tile.k / (chip == GG_TARGET_GFX950 ? 128 : 32));
  gg_text_printf(out,
                 " loop_mfma=%d loop_tiles=%d loop_mfma_cycles=%d loop_lds_cycles=%d lds_conflict=%d "
                 "loop_vmem_cover=%d loop_waits=%d loop_copies=%d",
                 loop->mfma, per_tile > 0 ? loop->mfma / per_tile : 0, loop->mfma_cycles, lds->cycles,
                 lds->conflict, loop->vmem_cover, loop->waits, loop->copies);
  if (lds->unknown) gg_text_printf(out, " lds_unpriced=%d", lds->unknown);
  // Workgroups (one wave per SIMD each) resident on a CU: what registers and LDS allow.
  int resident = stats->waves_per_simd;
  if (stats->lds_bytes > 0 && gg_lds_capacity(chip) / stats->lds_bytes < resident)
    resident = (int)(gg_lds_capacity(chip) / stats->lds_bytes);
  double demand = loop->mfma_cycles > 0 ? resident * 256.0 * loop->vmem_tile_bytes / loop->mfma_cycles : 0;
  double l2_share = demand > gg_amd_l2_bytes_per_clock(chip) ? gg_amd_l2_bytes_per_clock(chip) / demand : 1.0;
  gg_text_printf(out, " resident_workgroups=%d l2_demand=%.1f", resident, demand);
  if (loop->cycles_mca < 0) {
    gg_text_printf(out, " loop_cycles_mca=n/a mfma_share=n/a share_bound=n/a");
    return;
  }
  double bound = loop->cycles_mca > lds->cycles ? loop->cycles_mca : lds->cycles;
  double share = bound > 0 ? loop->mfma_cycles / bound : 0.0;
  gg_text_printf(out, " loop_cycles_mca=%.0f mfma_share=%.2f share_bound=%.2f", loop->cycles_mca,
                 share, share < l2_share ? share : l2_share);
}

gg_status gg_amdgpu_stats(const gg_op_desc* desc, MlirOperation target_module, const char* isa,
                          size_t isa_length, gg_text* out) {
  gg_isa_stats stats;
  GG_RETURN_IF_ERROR(gg_isa_stats_parse(isa, isa_length, &stats));
  gg_amd_loop loop;
  gg_amd_lds lds;
  GG_RETURN_IF_ERROR(gg_amd_loop_analyze(isa, isa_length, desc->target, 1, &loop));
  GG_RETURN_IF_ERROR(gg_amd_lds_analyze(target_module, desc->target, &lds));
  // B's path: preshuffled B goes global -> registers, plain B through LDS.
  gg_text_printf(out,
                 "isa_lines=%d vgpr=%d agpr=%d sgpr=%d lds_bytes=%d scratch_bytes=%d "
                 "waves_per_simd=%d lds_writes=%d b_path=%s kernarg_bytes=%d",
                 stats.isa_lines, stats.vgpr, stats.agpr, stats.sgpr, stats.lds_bytes,
                 stats.scratch_bytes, stats.waves_per_simd, stats.lds_writes,
                 desc->b_layout == GG_B_PRESHUFFLED ? "registers" : "lds", stats.kernarg_bytes);
  append_loop_model(desc, &stats, &loop, &lds, out);
  return GG_OK;
}
