// AMD code objects.
#include "compiler/amdgpu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

typedef struct line {
  const char* text;
  size_t length;
} line;

static int line_starts_with(line l, const char* prefix) {
  size_t n = strlen(prefix);
  return l.length >= n && memcmp(l.text, prefix, n) == 0;
}

static int line_contains(line l, const char* needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= l.length; ++i)
    if (memcmp(l.text + i, needle, n) == 0) return 1;
  return 0;
}

gg_status gg_isa_stats_parse(const char* isa, size_t length, gg_isa_stats* stats) {
  memset(stats, 0, sizeof *stats);
  // Split into trimmed lines; keep those of the kernel's text (before .amdhsa_kernel).
  size_t capacity = 1024, count = 0;
  line* lines = malloc(capacity * sizeof *lines);
  if (!lines) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  const char* end = isa + length;
  for (const char* p = isa; p < end;) {
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    const char* stop = nl ? nl : end;
    const char* s = skip_space(p, stop);
    line l = {s, (size_t)(stop - s)};
    if (line_starts_with(l, ".amdhsa_kernel")) break;
    if (count == capacity) {
      line* grown = realloc(lines, 2 * capacity * sizeof *lines);
      if (!grown) {
        free(lines);
        return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
      }
      lines = grown;
      capacity *= 2;
    }
    lines[count++] = l;
    p = nl ? nl + 1 : end;
  }
  // Instructions: lines that are not empty, comments, directives or labels.
  for (size_t i = 0; i < count; ++i) {
    line l = lines[i];
    if (!l.length || l.text[0] == ';' || l.text[0] == '.' || l.text[l.length - 1] == ':') continue;
    stats->isa_lines++;
    if (line_starts_with(l, "ds_write") || line_starts_with(l, "ds_store")) stats->lds_writes++;
  }
  // Loops: a branch back to a label above it. Count the MFMAs between them.
  for (size_t i = 0; i < count; ++i) {
    line l = lines[i];
    if (!line_starts_with(l, "s_cbranch") && !line_starts_with(l, "s_branch")) continue;
    const char* target = memchr(l.text, '.', l.length);
    if (!target) continue;
    size_t target_length = (size_t)(l.text + l.length - target);
    for (size_t j = 0; j < i; ++j) {
      line label = lines[j];
      if (label.length == target_length + 1 && memcmp(label.text, target, target_length) == 0 &&
          label.text[target_length] == ':') {
        int mfmas = 0;
        for (size_t k = j; k < i; ++k) mfmas += line_contains(lines[k], "v_mfma");
        if (mfmas > stats->mfma_in_loop) stats->mfma_in_loop = mfmas;
      }
    }
  }
  free(lines);
  stats->vgpr = value_after(isa, length, ".vgpr_count:");
  stats->agpr = value_after(isa, length, ".agpr_count:");
  stats->sgpr = value_after(isa, length, ".sgpr_count:");
  stats->lds_bytes = value_after(isa, length, ".group_segment_fixed_size:");
  stats->scratch_bytes = value_after(isa, length, ".private_segment_fixed_size:");
  stats->kernarg_bytes = value_after(isa, length, ".kernarg_segment_size:");
  if (stats->vgpr < 0 || stats->sgpr < 0 || stats->lds_bytes < 0)
    return gg_status_make(GG_STATUS_INTERNAL, "the assembly has no kernel metadata");
  // gfx90a and later: VGPRs and AGPRs share 512 registers per lane, allocated in
  // granules of 8.
  int registers = stats->vgpr + (stats->agpr > 0 ? stats->agpr : 0);
  registers = (registers + 7) / 8 * 8;
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

gg_status gg_amdgpu_stats(const gg_op_desc* desc, const char* isa, size_t isa_length,
                          gg_text* out) {
  gg_isa_stats stats;
  GG_RETURN_IF_ERROR(gg_isa_stats_parse(isa, isa_length, &stats));
  // B's path: preshuffled B goes global -> registers, plain B through LDS.
  gg_text_printf(out,
                 "isa_lines=%d vgpr=%d agpr=%d sgpr=%d lds_bytes=%d scratch_bytes=%d "
                 "waves_per_simd=%d mfma_in_loop=%d lds_writes=%d b_path=%s kernarg_bytes=%d",
                 stats.isa_lines, stats.vgpr, stats.agpr, stats.sgpr, stats.lds_bytes,
                 stats.scratch_bytes, stats.waves_per_simd, stats.mfma_in_loop, stats.lds_writes,
                 desc->b_layout == GG_B_PRESHUFFLED ? "registers" : "lds", stats.kernarg_bytes);
  return GG_OK;
}
