// sm_90a: PTX through the NVPTX backend, cubins through ptxas.
#include "compiler/nvidia.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/gpu_module.h"
#include "compiler/tool.h"
#include "runtime/files.h"

#define TOOLKIT_PTXAS "/usr/local/cuda/bin/ptxas"

gg_status gg_ptxas_find(char* buffer, size_t size) {
  const char* env = getenv("GG_PTXAS");
  if (env && *env) {
    if (access(env, X_OK) != 0)
      return gg_status_make(GG_STATUS_UNAVAILABLE, "GG_PTXAS=%s is not an executable", env);
    snprintf(buffer, size, "%s", env);
    return GG_OK;
  }
  if (access(TOOLKIT_PTXAS, X_OK) == 0) {
    snprintf(buffer, size, "%s", TOOLKIT_PTXAS);
    return GG_OK;
  }
  const char* path = getenv("PATH");
  while (path && *path) {
    size_t n = strcspn(path, ":");
    char candidate[PATH_MAX];
    if (n && (size_t)snprintf(candidate, sizeof candidate, "%.*s/ptxas", (int)n, path) < sizeof candidate &&
        access(candidate, X_OK) == 0) {
      snprintf(buffer, size, "%s", candidate);
      return GG_OK;
    }
    path += n + (path[n] == ':');
  }
  return gg_status_make(GG_STATUS_UNAVAILABLE,
                        "no ptxas (looked at $GG_PTXAS, %s and $PATH): sm_90a kernels stay PTX",
                        TOOLKIT_PTXAS);
}

gg_status gg_ptxas_run(const char* ptx, size_t length, gg_text* out, gg_text* log) {
  char ptxas[PATH_MAX];
  GG_RETURN_IF_ERROR(gg_ptxas_find(ptxas, sizeof ptxas));
  char dir[PATH_MAX], in[PATH_MAX + 16], cubin[PATH_MAX + 16], err[PATH_MAX + 16];
  GG_RETURN_IF_ERROR(gg_tool_dir_make("gg-ptxas", dir, sizeof dir));
  snprintf(in, sizeof in, "%s/kernel.ptx", dir);
  snprintf(cubin, sizeof cubin, "%s/kernel.cubin", dir);
  snprintf(err, sizeof err, "%s/ptxas.log", dir);
  gg_status status = gg_file_write(in, ptx, length);
  if (!status) {
    char* argv[8];
    int argc = 0;
    argv[argc++] = ptxas;
    argv[argc++] = "-arch=sm_90a";
    argv[argc++] = "-O3";
    if (log) argv[argc++] = "-v";
    argv[argc++] = in;
    argv[argc++] = "-o";
    argv[argc++] = cubin;
    argv[argc] = NULL;
    int exit_code = 0;
    status = gg_tool_run(ptxas, argv, err, &exit_code);
    if (!status && exit_code != 0) {
      gg_text report;
      gg_text_init(&report);
      gg_file_read(err, &report);  // best effort: the message says what ptxas said
      status = gg_status_make(GG_STATUS_INTERNAL, "ptxas failed on the generated PTX: %.2000s",
                              report.data ? report.data : "(no output)");
      gg_text_free(&report);
    } else if (!status) {
      status = gg_file_read(cubin, out);
      if (!status && log) status = gg_file_read(err, log);
    }
  }
  const char* files[] = {in, cubin, err};
  gg_tool_dir_remove(dir, files, 3);
  return status;
}

// ---------------------------------------------------------------------------------------
// Statistics.

static int number_before(const char* text, const char* key) {
  const char* p = text ? strstr(text, key) : NULL;
  if (!p) return 0;
  while (p > text && p[-1] == ' ') --p;
  while (p > text && p[-1] >= '0' && p[-1] <= '9') --p;
  return atoi(p);
}

static int occurrences(const char* text, const char* key) {
  int count = 0;
  for (const char* p = text; p && (p = strstr(p, key)) != NULL; p += strlen(key)) ++count;
  return count;
}

gg_status gg_ptx_stats_parse(const char* ptx, size_t length, const char* log, gg_ptx_stats* stats) {
  memset(stats, 0, sizeof *stats);
  const char* used = log ? strstr(log, "Used ") : NULL;  // "Used 168 registers, ..."
  stats->registers = used ? atoi(used + 5) : 0;
  stats->spill_stores = number_before(log, " bytes spill stores");
  stats->spill_loads = number_before(log, " bytes spill loads");
  stats->stack_bytes = number_before(log, " bytes stack frame");
  stats->static_shared_bytes = number_before(log, " bytes smem");
  stats->wgmma_fixups = occurrences(log, "(C7517)") + occurrences(log, "(C7519)");
  stats->wgmma_serialized = occurrences(log, "(C7520)") > 0;
  if (log && !used) return gg_status_make(GG_STATUS_INTERNAL, "ptxas -v reported no register count");
  // Lines: instructions end with ';' and are not directives. Loops: a branch back to a
  // label above it; count the wgmma between them.
  const char* end = ptx + length;
  const char* labels[4096];
  const char* label_at[4096];
  int label_count = 0, wgmma_seen = 0;
  int wgmma_at_label[4096];
  for (const char* p = ptx; p < end;) {
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    const char* stop = nl ? nl : end;
    while (p < stop && (*p == ' ' || *p == '\t')) ++p;
    size_t n = (size_t)(stop - p);
    if (n && p[n - 1] == ':' && p[0] == '$' && label_count < 4096) {
      labels[label_count] = p;
      label_at[label_count] = stop - 1;
      wgmma_at_label[label_count++] = wgmma_seen;
    } else if (n && p[0] != '.' && p[0] != '/' && memchr(p, ';', n)) {
      stats->ptx_lines++;
      if (n > 14 && strstr(p, "wgmma.mma_async") && strstr(p, "wgmma.mma_async") < stop) wgmma_seen++;
      const char* bra = strstr(p, "bra");
      if (bra && bra < stop) {
        const char* target = memchr(bra, '$', (size_t)(stop - bra));
        if (target) {
          size_t tn = strcspn(target, ";");
          for (int l = 0; l < label_count; ++l)
            if ((size_t)(label_at[l] - labels[l]) == tn && !memcmp(labels[l], target, tn)) {
              int inside = wgmma_seen - wgmma_at_label[l];
              if (inside > stats->wgmma_in_loop) stats->wgmma_in_loop = inside;
            }
        }
      }
    }
    p = nl ? nl + 1 : end;
  }
  return GG_OK;
}

// ---------------------------------------------------------------------------------------
// The sm_90a row of the target table (compiler/target.c).

gg_status gg_nvidia_pipeline(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size) {
  (void)desc;
  switch (stage) {
    case GG_STAGE_TILES: snprintf(buffer, size, "gg-tile-level"); break;
    case GG_STAGE_TARGET: snprintf(buffer, size, "gg-tile-level,gg-to-nvvm"); break;
    case GG_STAGE_LLVM_DIALECT:
    case GG_STAGE_LLVM_IR: snprintf(buffer, size, "gg-to-nvvm-llvm"); break;
    case GG_STAGE_ISA:
    case GG_STAGE_BINARY: snprintf(buffer, size, "gg-to-nvvm-llvm,gg-nvvm-binary"); break;
    default: return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown stage %d", (int)stage);
  }
  return GG_OK;
}

gg_status gg_nvidia_emit(MlirOperation module, const char* name, gg_stage stage, gg_text* out) {
  (void)name;
  if (stage == GG_STAGE_LLVM_IR) return gg_gpu_module_llvm_ir(module, out);
  MlirStringRef ptx;
  GG_RETURN_IF_ERROR(gg_gpu_binary_bytes(module, &ptx));
  if (stage == GG_STAGE_ISA) {
    gg_text_append(out, ptx.data, ptx.length);
    return GG_OK;
  }
  return gg_ptxas_run(ptx.data, ptx.length, out, NULL);
}

gg_stage gg_nvidia_artifact_stage(const gg_op_desc* desc) {
  (void)desc;
  char ptxas[PATH_MAX];
  gg_status missing = gg_ptxas_find(ptxas, sizeof ptxas);
  gg_status_free(missing);
  return missing ? GG_STAGE_ISA : GG_STAGE_BINARY;  // PTX, which the driver compiles
}

gg_status gg_nvidia_stats(const gg_op_desc* desc, MlirOperation target_module, const char* ptx,
                          size_t ptx_length, gg_text* out) {
  (void)target_module;
  gg_text cubin, log;
  gg_text_init(&cubin);
  gg_text_init(&log);
  gg_status status = gg_ptxas_run(ptx, ptx_length, &cubin, &log);
  gg_ptx_stats stats;
  if (!status) status = gg_ptx_stats_parse(ptx, ptx_length, gg_text_str(&log), &stats);
  if (!status)
    gg_text_printf(out,
                   "ptx_lines=%d registers=%d spill_stores=%d spill_loads=%d stack_bytes=%d "
                   "static_smem_bytes=%d dynamic_smem_bytes=%lld stages=%d wgmma_in_loop=%d "
                   "wgmma_fixups=%d wgmma_serialized=%d cubin_bytes=%zu",
                   stats.ptx_lines, stats.registers, stats.spill_stores, stats.spill_loads,
                   stats.stack_bytes, stats.static_shared_bytes,
                   (long long)gg_sm90_dynamic_shared_bytes(desc), gg_sm90_stages(desc),
                   stats.wgmma_in_loop, stats.wgmma_fixups, stats.wgmma_serialized,
                   cubin.length);
  gg_text_free(&cubin);
  gg_text_free(&log);
  return status;
}
