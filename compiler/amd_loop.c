// The static model of the K loop, from the assembly (see amd_loop.h).
#include "compiler/amd_loop.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/tool.h"
#include "runtime/files.h"

static const char* skip_space(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p;
}

gg_status gg_isa_kernel_lines(const char* isa, size_t length, gg_isa_line** out, size_t* out_count) {
  size_t capacity = 1024, count = 0;
  gg_isa_line* lines = malloc(capacity * sizeof *lines);
  if (!lines) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  const char* end = isa + length;
  for (const char* p = isa; p < end;) {
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    const char* stop = nl ? nl : end;
    const char* s = skip_space(p, stop);
    gg_isa_line l = {s, (size_t)(stop - s)};
    if (gg_isa_line_starts_with(l, ".amdhsa_kernel")) break;
    if (count == capacity) {
      gg_isa_line* grown = realloc(lines, 2 * capacity * sizeof *lines);
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
  *out = lines;
  *out_count = count;
  return GG_OK;
}

int gg_isa_line_starts_with(gg_isa_line l, const char* prefix) {
  size_t n = strlen(prefix);
  return l.length >= n && memcmp(l.text, prefix, n) == 0;
}

int gg_isa_line_is_instruction(gg_isa_line l) {
  return l.length && l.text[0] != ';' && l.text[0] != '.' && l.text[l.length - 1] != ':';
}

// Published MFMA issue rates (cycles per instruction, one wave): gfx942 (CDNA3 ISA guide)
// 16x16x32 FP8 4 passes, 32x32x16 FP8 8 passes; gfx950 (CDNA4) 16x16x128 and 32x32x64
// f8f6f4 with FP8 operands 8 and 16 passes. A pass is 4 cycles.
int gg_amd_mfma_cycles(gg_target chip, const char* mnemonic, size_t length) {
  static const struct {
    gg_target chip;
    const char* prefix;
    int cycles;
  } rates[] = {
      {GG_TARGET_GFX942, "v_mfma_f32_16x16x32_fp8", 16},
      {GG_TARGET_GFX942, "v_mfma_f32_16x16x32_bf8", 16},
      {GG_TARGET_GFX942, "v_mfma_f32_32x32x16_fp8", 32},
      {GG_TARGET_GFX942, "v_mfma_f32_32x32x16_bf8", 32},
      {GG_TARGET_GFX950, "v_mfma_f32_16x16x128_f8f6f4", 32},
      {GG_TARGET_GFX950, "v_mfma_scale_f32_16x16x128_f8f6f4", 32},
      {GG_TARGET_GFX950, "v_mfma_f32_32x32x64_f8f6f4", 64},
      {GG_TARGET_GFX950, "v_mfma_scale_f32_32x32x64_f8f6f4", 64},
      {GG_TARGET_GFX950, "v_mfma_f32_16x16x32_fp8", 16},
  };
  if (length < 6 || memcmp(mnemonic, "v_mfma", 6) != 0) return 0;
  for (size_t i = 0; i < sizeof rates / sizeof rates[0]; ++i) {
    size_t n = strlen(rates[i].prefix);
    if (rates[i].chip == chip && length >= n && !memcmp(mnemonic, rates[i].prefix, n))
      return rates[i].cycles;
  }
  return 16;  // an MFMA gg does not emit: the shortest FP8 rate
}

static size_t mnemonic_length(gg_isa_line l) {
  size_t n = 0;
  while (n < l.length && l.text[n] != ' ' && l.text[n] != '\t') ++n;
  return n;
}

static int is_global_memory(gg_isa_line l) {
  return gg_isa_line_starts_with(l, "buffer_") || gg_isa_line_starts_with(l, "global_") ||
         gg_isa_line_starts_with(l, "flat_") || gg_isa_line_starts_with(l, "scratch_");
}

// Bytes per lane of a global load (its mnemonic's width suffix).
static int load_bytes(gg_isa_line l) {
  static const struct {
    const char* suffix;
    int bytes;
  } widths[] = {{"dwordx4", 16}, {"dwordx3", 12}, {"dwordx2", 8}, {"dword", 4},
                {"b128", 16},    {"b96", 12},     {"b64", 8},     {"b32", 4},
                {"short", 2},    {"u16", 2},      {"byte", 1},    {"u8", 1}};
  size_t n = mnemonic_length(l);
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; ++i) {
    size_t w = strlen(widths[i].suffix);
    for (size_t at = 0; at + w <= n; ++at)
      if (!memcmp(l.text + at, widths[i].suffix, w)) return widths[i].bytes;
  }
  return 4;
}

static int is_global_load(gg_isa_line l) {
  size_t n = mnemonic_length(l);
  for (size_t i = 0; i + 5 <= n; ++i)
    if (!memcmp(l.text + i, "_load", 5)) return is_global_memory(l);
  return 0;
}

// The vmcnt an s_waitcnt waits down to, or -1 when it does not wait for memory loads.
static int waitcnt_vmcnt(gg_isa_line l) {
  if (!gg_isa_line_starts_with(l, "s_waitcnt")) return -1;
  for (size_t i = 0; i + 6 <= l.length; ++i)
    if (!memcmp(l.text + i, "vmcnt(", 6)) return atoi(l.text + i + 6);
  return -1;
}

// A move of register data: v_mov_* or v_accvgpr_* whose source is a VGPR or an AGPR.
static int is_register_copy(gg_isa_line l) {
  if (!gg_isa_line_starts_with(l, "v_mov_b") && !gg_isa_line_starts_with(l, "v_accvgpr_"))
    return 0;
  const char* comma = memchr(l.text, ',', l.length);
  if (!comma) return 0;
  const char* end = l.text + l.length;
  const char* src = skip_space(comma + 1, end);
  return src < end && (*src == 'v' || *src == 'a');
}

static int is_branch(gg_isa_line l) {
  return gg_isa_line_starts_with(l, "s_cbranch") || gg_isa_line_starts_with(l, "s_branch");
}

// The loop with the most MFMAs: a branch back to a label above it. [*first, *last) are
// its body's lines (after the label, up to the branch).
static int find_k_loop(const gg_isa_line* lines, size_t count, gg_target chip, size_t* first,
                       size_t* last) {
  int best = 0;
  for (size_t i = 0; i < count; ++i) {
    gg_isa_line l = lines[i];
    if (!is_branch(l)) continue;
    const char* target = memchr(l.text, '.', l.length);
    if (!target) continue;
    size_t target_length = (size_t)(l.text + l.length - target);
    for (size_t j = 0; j < i; ++j) {
      gg_isa_line label = lines[j];
      if (label.length != target_length + 1 || memcmp(label.text, target, target_length) != 0 ||
          label.text[target_length] != ':')
        continue;
      int mfmas = 0;
      for (size_t k = j; k < i; ++k)
        mfmas += gg_amd_mfma_cycles(chip, lines[k].text, mnemonic_length(lines[k])) > 0;
      if (mfmas > best) {
        best = mfmas;
        *first = j + 1;
        *last = i;
      }
    }
  }
  return best;
}

// Global loads of one iteration issued, then waited for, over two iterations: each load of
// the first gets the MFMA cycles issued between it and the wait that needs it.
static void vmem_cover(const gg_isa_line* body, size_t n, gg_target chip, gg_amd_loop* out) {
  typedef struct pending {
    int measured;  // a load of the first iteration
    long cycles;   // MFMA cycles issued before it
  } pending;
  size_t capacity = 2 * n + 1, head = 0, tail = 0;
  pending* queue = malloc(capacity * sizeof *queue);
  out->vmem_cover = -1;
  if (!queue) return;
  long cycles = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < n; ++i) {
      gg_isa_line l = body[i];
      cycles += gg_amd_mfma_cycles(chip, l.text, mnemonic_length(l));
      if (is_global_memory(l)) {
        queue[tail].measured = pass == 0 && is_global_load(l);
        queue[tail++].cycles = cycles;
        continue;
      }
      int vmcnt = waitcnt_vmcnt(l);
      while (vmcnt >= 0 && tail - head > (size_t)vmcnt) {
        pending p = queue[head++];
        long cover = cycles - p.cycles;
        if (p.measured && (out->vmem_cover < 0 || cover < out->vmem_cover)) out->vmem_cover = (int)cover;
      }
    }
  for (; head < tail; ++head)  // never waited for within two iterations
    if (queue[head].measured) {
      long cover = cycles - queue[head].cycles;
      if (out->vmem_cover < 0 || cover < out->vmem_cover) out->vmem_cover = (int)cover;
    }
  free(queue);
}

static int find_mca(char* buffer, size_t size) {
  const char* env = getenv("GG_LLVM_MCA");
  const char* candidates[] = {env, "/usr/lib/llvm-22/bin/llvm-mca", "/usr/bin/llvm-mca-22"};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; ++i)
    if (candidates[i] && *candidates[i] && access(candidates[i], X_OK) == 0) {
      snprintf(buffer, size, "%s", candidates[i]);
      return 1;
    }
  return 0;
}

// llvm-mca over the loop body, straight-line (branches and labels dropped). LLVM 22 prices
// every FP8 MFMA at 4 passes; an MFMA whose published rate is longer is given shadow MFMAs
// that hold the matrix core for the rest: the real one again on its own destination (A
// and B as the real one's, C = its destination), so D's readers see it complete when the
// real one would. A wave issues other instructions while its MFMA runs, so each shadow
// goes after the (up to) 3 instructions that fill the issue slots of the 4 passes before
// it, not straight after the MFMA, where in-order issue would stall them behind it: an
// 8-pass MFMA then leaves 6 slots to other instructions (the shadow takes the 7th). A
// shadow goes in front of an instruction that may stall the wave (a wait, a barrier, a
// nop: the matrix core runs on while the wave waits) or that writes the registers it
// reads (its A and B, which the real MFMA has already read). llvm-mca counts issue cycles
// of a wave64 instruction (4 clocks); the result is in clocks.
#define MCA_ITERATIONS 100
#define MCA_SLOTS_PER_PASS_GROUP 3

// A register operand: bank 'v', 'a' or 's' and its range, from text like v[4:7] or a12.
typedef struct reg_range {
  char bank;
  int lo, hi;
} reg_range;

static int parse_range(const char* p, const char* end, reg_range* r) {
  p = skip_space(p, end);
  if (p >= end || (*p != 'v' && *p != 'a' && *p != 's')) return 0;
  r->bank = *p++;
  if (p < end && *p == '[') {
    r->lo = atoi(p + 1);
    const char* colon = memchr(p, ':', (size_t)(end - p));
    r->hi = colon ? atoi(colon + 1) : r->lo;
    return 1;
  }
  if (p >= end || *p < '0' || *p > '9') return 0;
  r->lo = r->hi = atoi(p);
  return 1;
}

// The operand after `commas` commas (0: the first).
static int operand_range(gg_isa_line l, int commas, reg_range* r) {
  const char* end = l.text + l.length;
  const char* p = l.text + mnemonic_length(l);
  for (int i = 0; i < commas; ++i) {
    p = memchr(p, ',', (size_t)(end - p));
    if (!p) return 0;
    ++p;
  }
  return parse_range(p, end, r);
}

static int overlaps(reg_range a, reg_range b) {
  return a.bank == b.bank && a.lo <= b.hi && b.lo <= a.hi;
}

// Whether instruction `l` writes a register in `r`: its first operand, for the vector ALU,
// LDS reads and global loads (stores and scalar instructions write no vector register).
static int writes_range(gg_isa_line l, reg_range r) {
  int writes = gg_isa_line_starts_with(l, "v_") || gg_isa_line_starts_with(l, "ds_read") ||
               gg_isa_line_starts_with(l, "ds_load") ||
               (is_global_memory(l) && is_global_load(l));
  reg_range d;
  return writes && operand_range(l, 0, &d) && overlaps(d, r);
}

// The shadow of an MFMA line (see above): D = op(A, B, D).
static void append_shadow(gg_text* text, gg_isa_line l) {
  const char* c1 = memchr(l.text, ',', l.length);
  const char* c3 = NULL;
  if (c1) {
    const char* c2 = memchr(c1 + 1, ',', (size_t)(l.text + l.length - c1 - 1));
    if (c2) c3 = memchr(c2 + 1, ',', (size_t)(l.text + l.length - c2 - 1));
  }
  if (!c3) return;
  int n = (int)mnemonic_length(l);
  const char* d = skip_space(l.text + n, c1);
  gg_text_printf(text, "%.*s %.*s%.*s, %.*s\n", n, l.text, (int)(c1 - d), d, (int)(c3 - c1), c1,
                 (int)(c1 - d), d);
}

static int may_stall(gg_isa_line l) {
  return gg_isa_line_starts_with(l, "s_waitcnt") || gg_isa_line_starts_with(l, "s_barrier") ||
         gg_isa_line_starts_with(l, "s_nop") || gg_isa_line_starts_with(l, "s_sleep");
}

// Whether the shadows of `mfma` must go in front of `l`.
static int blocks_shadow(gg_isa_line mfma, gg_isa_line l) {
  reg_range a, b;
  if (may_stall(l)) return 1;
  return operand_range(mfma, 1, &a) && operand_range(mfma, 2, &b) &&
         (writes_range(l, a) || writes_range(l, b));
}

static void run_mca(const gg_isa_line* body, size_t n, gg_target chip, gg_amd_loop* out) {
  out->cycles_mca = -1;
  char mca[PATH_MAX];
  if (!find_mca(mca, sizeof mca)) {
    snprintf(out->mca_note, sizeof out->mca_note, "no llvm-mca (install llvm-22 or set GG_LLVM_MCA)");
    return;
  }
  gg_text text;
  gg_text_init(&text);
  gg_isa_line pending = {NULL, 0};  // the MFMA whose shadows are still due
  int shadows = 0, fillers = 0;
  for (size_t i = 0; i < n; ++i) {
    gg_isa_line l = body[i];
    if (!gg_isa_line_is_instruction(l) || is_branch(l)) continue;
    int cycles = gg_amd_mfma_cycles(chip, l.text, mnemonic_length(l));
    if (shadows > 0 && (cycles > 0 || blocks_shadow(pending, l)))  // the shadows go first
      for (; shadows > 0; --shadows) append_shadow(&text, pending);
    gg_text_printf(&text, "%.*s\n", (int)l.length, l.text);
    if (cycles > 0) {
      pending = l;
      shadows = cycles / 16 - 1;  // LLVM's 4 passes = 16 clocks
      fillers = 0;
    } else if (shadows > 0 && ++fillers == MCA_SLOTS_PER_PASS_GROUP) {
      append_shadow(&text, pending);
      --shadows;
      fillers = 0;
    }
  }
  for (; shadows > 0; --shadows) append_shadow(&text, pending);
  char dir[PATH_MAX], in[PATH_MAX + 16], log[PATH_MAX + 16];
  gg_status status = gg_tool_dir_make("gg-mca", dir, sizeof dir);
  if (status) {
    snprintf(out->mca_note, sizeof out->mca_note, "%s", gg_status_message(status));
    gg_status_free(status);
    gg_text_free(&text);
    return;
  }
  snprintf(in, sizeof in, "%s/loop.s", dir);
  snprintf(log, sizeof log, "%s/mca.log", dir);
  status = gg_file_write(in, text.data ? text.data : "", text.length);
  gg_text_free(&text);
  char cpu[32], iterations[32];
  snprintf(cpu, sizeof cpu, "-mcpu=%s", gg_target_name(chip));
  snprintf(iterations, sizeof iterations, "-iterations=%d", MCA_ITERATIONS);
  char* argv[] = {mca, "-mtriple=amdgcn-amd-amdhsa", cpu, iterations, in, NULL};
  int exit_code = 0;
  if (!status) status = gg_tool_run(mca, argv, log, &exit_code);
  gg_text report;
  gg_text_init(&report);
  if (!status) status = gg_file_read(log, &report);
  if (status) {
    snprintf(out->mca_note, sizeof out->mca_note, "%s", gg_status_message(status));
    gg_status_free(status);
  } else {
    gg_text_append(&report, "", 1);
    const char* total = strstr(report.data, "Total Cycles:");
    if (exit_code != 0 || !total)
      snprintf(out->mca_note, sizeof out->mca_note, "llvm-mca failed: %.100s", report.data);
    else
      out->cycles_mca = 4.0 * atof(total + strlen("Total Cycles:")) / MCA_ITERATIONS;
  }
  gg_text_free(&report);
  const char* files[] = {in, log};
  gg_tool_dir_remove(dir, files, 2);
}

gg_status gg_amd_loop_analyze(const char* isa, size_t length, gg_target chip, int mca,
                              gg_amd_loop* out) {
  memset(out, 0, sizeof *out);
  out->vmem_cover = -1;
  out->cycles_mca = -1;
  gg_isa_line* lines;
  size_t count, first = 0, last = 0;
  GG_RETURN_IF_ERROR(gg_isa_kernel_lines(isa, length, &lines, &count));
  out->found = find_k_loop(lines, count, chip, &first, &last) > 0;
  if (out->found) {
    for (size_t i = first; i < last; ++i) {
      gg_isa_line l = lines[i];
      if (!gg_isa_line_is_instruction(l)) continue;
      int cycles = gg_amd_mfma_cycles(chip, l.text, mnemonic_length(l));
      out->mfma += cycles > 0;
      out->mfma_cycles += cycles;
      out->waits += gg_isa_line_starts_with(l, "s_waitcnt");
      out->copies += is_register_copy(l);
      if (is_global_load(l)) {
        out->vmem_loads++;
        out->vmem_bytes += load_bytes(l);
        if (load_bytes(l) == 16) out->vmem_tile_bytes += 16;
      }
    }
    vmem_cover(lines + first, last - first, chip, out);
    if (mca) run_mca(lines + first, last - first, chip, out);
  }
  free(lines);
  return GG_OK;
}
