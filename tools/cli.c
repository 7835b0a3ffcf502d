// The gg command line: flag parsing with range checks, and the run, compile and
// preshuffle commands (tools/cli.h).
#include "tools/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compiler/amdgpu.h"
#include "compiler/compile.h"
#include "compiler/files.h"
#include "gg/gg.h"
#include "gg/op.h"
#include "runtime/checked.h"
#include "tests/reference/problem.h"
#include "tests/support/check.h"

enum {
  EXIT_PASS = GG_EXIT_PASS,
  EXIT_FAIL = GG_EXIT_FAIL,
  EXIT_REJECTED = GG_EXIT_REJECTED,
  EXIT_UNAVAILABLE = GG_EXIT_UNAVAILABLE
};

typedef gg_cli cli;

static int reject(const char* format, const char* detail) {
  fprintf(stderr, "error: ");
  fprintf(stderr, format, detail);
  fprintf(stderr, "\n");
  return EXIT_REJECTED;
}

// A decimal integer in [lo, hi], the whole text: no sign where lo >= 0, no wrapping.
static int parse_number(const char* text, int64_t lo, int64_t hi, int64_t* value) {
  if (!text || !*text || (lo >= 0 && (*text == '-' || *text == '+'))) return 0;
  char* end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) return 0;
  *value = v;
  return 1;
}

// Prints "error: <flag> takes <what> from lo to hi, not '<text>'" and returns the exit code.
static int reject_number(const char* flag, const char* what, int64_t lo, int64_t hi,
                         const char* text) {
  fprintf(stderr, "error: %s takes %s from %lld to %lld, not '%s'\n", flag, what, (long long)lo,
          (long long)hi, text);
  return EXIT_REJECTED;
}

// A 64-bit seed: any decimal number from 0 to 2^64 - 1.
static int parse_seed(const char* text, uint64_t* value) {
  if (!text || *text < '0' || *text > '9') return 0;
  char* end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || *end) return 0;
  *value = v;
  return 1;
}

// --groups: comma-separated items, each an extent E or E*C (C groups of extent E).
// Returns 0, or the exit code after saying which item is wrong.
static int parse_groups(const char* text, cli* c) {
  free(c->groups);
  c->groups = NULL;
  c->group_count = 0;
  int64_t capacity = 0;
  for (const char* p = text; *p;) {
    size_t length = strcspn(p, ",");
    char item[64];
    if (length == 0 || length >= sizeof item) {
      fprintf(stderr, "error: --groups takes comma-separated extents E or E*C, not '%s'\n", text);
      return EXIT_REJECTED;
    }
    memcpy(item, p, length);
    item[length] = 0;
    char* star = strchr(item, '*');
    if (star) *star = 0;
    int64_t extent, count = 1;
    if (!parse_number(item, 0, INT64_MAX, &extent))
      return reject_number("--groups", "extents", 0, INT64_MAX, item);
    if (star && !parse_number(star + 1, 0, INT32_MAX, &count))
      return reject_number("--groups", "repeat counts (E*C)", 0, INT32_MAX, star + 1);
    if (c->group_count + count > INT32_MAX) {
      fprintf(stderr, "error: --groups lists more than %d groups (G must fit 32 bits)\n",
              INT32_MAX);
      return EXIT_REJECTED;
    }
    if (c->group_count + count > capacity) {
      int64_t grown = capacity ? capacity : 16;
      while (grown < c->group_count + count) grown *= 2;
      int64_t* groups = realloc(c->groups, (size_t)grown * sizeof *groups);
      if (!groups) {
        fprintf(stderr, "error: out of memory for %lld groups\n", (long long)grown);
        return EXIT_FAIL;
      }
      c->groups = groups;
      capacity = grown;
    }
    for (int64_t i = 0; i < count; ++i) c->groups[c->group_count++] = extent;
    p += length;
    if (*p == ',') {
      ++p;
      if (!*p) return reject("--groups ends with a comma: '%s'", text);
    }
  }
  return 0;
}

static int enum_value(const char* name, const char* const* names, int count) {
  for (int i = 0; i < count; ++i)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

void gg_cli_free(gg_cli* c) {
  free(c->groups);
  c->groups = NULL;
}

int gg_cli_parse(int argc, char** argv, cli* c) {
  static const char* const ops[] = {"stacked", "dynamic", "mm"};
  static const char* const ranks[] = {"2d3d", "3d3d", "3d2d", "2d2d"};
  static const char* const targets[] = {"host", "sim", "gfx942", "gfx950", "hsa"};
  memset(c, 0, sizeof *c);
  c->op = -1;
  c->ranks = GG_RANKS_2D3D;
  c->m = c->n = c->k = -1;
  c->target = "host";
  c->data = GG_DATA_RANDOM;
  c->seed = 1;
  c->zeroing = 1;
  c->emit = GG_STAGE_OP;
  c->chip = GG_TARGET_GFX950;
  for (int i = 2; i < argc; ++i) {
    const char* flag = argv[i];
    if (!strcmp(flag, "--no-zeroing")) {
      c->zeroing = 0;
      continue;
    }
    if (!strcmp(flag, "--alternate-constant")) {
      c->alternate_constant = 1;
      continue;
    }
    if (!strcmp(flag, "--api")) {
      c->api = 1;
      continue;
    }
    if (!strcmp(flag, "--stats")) {
      c->stats = 1;
      continue;
    }
    if (i + 1 >= argc) return reject("%s needs a value", flag);
    const char* v = argv[++i];
    int64_t number;
    int e;
    if (!strcmp(flag, "--op")) {
      if ((c->op = enum_value(v, ops, 3)) < 0) return reject("--op must be stacked, dynamic or mm, not '%s'", v);
    } else if (!strcmp(flag, "--ranks")) {
      if ((c->ranks = enum_value(v, ranks, 4)) < 0)
        return reject("--ranks must be 2d3d, 3d3d, 3d2d or 2d2d, not '%s'", v);
    } else if (!strcmp(flag, "--groups")) {
      if ((e = parse_groups(v, c)) != 0) return e;
      c->has_groups = 1;
    } else if (!strcmp(flag, "--M")) {
      // M is bounded by what the operands can hold (gg_operand_sizes_check says so).
      if (!parse_number(v, 0, INT64_MAX, &number)) return reject_number(flag, "a count", 0, INT64_MAX, v);
      c->m = number;
    } else if (!strcmp(flag, "--N") || !strcmp(flag, "--K")) {
      if (!parse_number(v, 0, INT32_MAX, &number)) return reject_number(flag, "a count", 0, INT32_MAX, v);
      *(flag[2] == 'N' ? &c->n : &c->k) = number;
    } else if (!strcmp(flag, "--scaling")) {
      if ((e = gg_scaling_from_name(v)) < 0) return reject("--scaling must be rowwise or blockwise, not '%s'", v);
      c->desc.scaling = (gg_scaling)e;
    } else if (!strcmp(flag, "--b")) {
      if ((e = gg_b_layout_from_name(v)) < 0) return reject("--b must be plain or preshuffled, not '%s'", v);
      c->desc.b_layout = (gg_b_layout)e;
    } else if (!strcmp(flag, "--target")) {
      if (enum_value(v, targets, 5) < 0)
        return reject("--target must be host, sim, gfx942, gfx950 or hsa, not '%s'", v);
      c->target = v;
    } else if (!strcmp(flag, "--fp8")) {
      if ((e = gg_fp8_from_name(v)) < 0) return reject("--fp8 must be e4m3fn or e4m3fnuz, not '%s'", v);
      c->desc.fp8 = (gg_fp8)e;
      c->fp8_given = 1;
    } else if (!strcmp(flag, "--data")) {
      if (!strcmp(v, "random")) c->data = GG_DATA_RANDOM;
      else if (!strcmp(v, "exact")) c->data = GG_DATA_EXACT;
      else return reject("--data must be random or exact, not '%s'", v);
    } else if (!strcmp(flag, "--seed")) {
      if (!parse_seed(v, &c->seed)) return reject("--seed takes a number from 0 to 2^64 - 1, not '%s'", v);
    } else if (!strcmp(flag, "--tile")) {
      // Three extents; which ones are candidates gg_op_desc_validate says.
      char parts[3][24];
      int64_t extent[3];
      size_t lengths[3];
      const char* p = v;
      for (int i = 0; i < 3; ++i) {
        lengths[i] = strcspn(p, "x");
        if (lengths[i] == 0 || lengths[i] >= sizeof parts[i] || (i < 2) != (p[lengths[i]] == 'x'))
          return reject("--tile takes MxNxK (e.g. 128x128x128), not '%s'", v);
        memcpy(parts[i], p, lengths[i]);
        parts[i][lengths[i]] = 0;
        if (!parse_number(parts[i], 0, INT32_MAX, &extent[i]))
          return reject_number("--tile", "extents", 0, INT32_MAX, parts[i]);
        p += lengths[i] + (i < 2);
      }
      c->desc.tile.m = (int32_t)extent[0];
      c->desc.tile.n = (int32_t)extent[1];
      c->desc.tile.k = (int32_t)extent[2];
    } else if (!strcmp(flag, "--wpe")) {
      if (!parse_number(v, 0, 8, &number)) return reject_number(flag, "a wave count", 0, 8, v);
      c->desc.tile.waves_per_eu = (int32_t)number;
    } else if (!strcmp(flag, "--loop")) {
      if ((e = gg_loop_form_from_name(v)) < 0) return reject("--loop must be rolled or unrolled, not '%s'", v);
      c->desc.tile.loop = (gg_loop_form)e;
    } else if (!strcmp(flag, "--chip")) {
      if (strcmp(v, "gfx942") != 0 && strcmp(v, "gfx950") != 0)
        return reject("--chip must be gfx942 or gfx950, not '%s'", v);
      c->chip = (gg_target)gg_target_from_name(v);
    } else if (!strcmp(flag, "--emit")) {
      if ((e = gg_stage_from_name(v)) < 0)
        return reject("--emit must be op, tiles, target, llvm-dialect, llvm, isa or hsaco, not '%s'", v);
      c->emit = (gg_stage)e;
      c->emit_given = 1;
    } else if (!strcmp(flag, "--after")) {
      c->after = v;
    } else if (!strcmp(flag, "-o")) {
      c->output = v;
    } else {
      return reject("unknown flag '%s'", flag);
    }
  }
  if (c->op < 0) return reject("%s", "--op is required (stacked, dynamic or mm)");
  if (!c->has_groups) return reject("%s", "--groups is required (one extent per group)");

  gg_op_desc* d = &c->desc;
  d->layout = gg_layout_of_op((gg_op_kind)c->op, (gg_ranks)c->ranks);
  d->g = c->group_count;
  // The split axis of 3D-2D and 2D-2D defaults to the sum of the group extents.
  int64_t sum = 0;
  for (int64_t g = 0; g < c->group_count; ++g)
    if (!gg_checked_add(sum, c->groups[g], &sum)) sum = INT64_MAX;
  int split_n = d->layout == GG_LAYOUT_N_OFFSETS, split_k = d->layout == GG_LAYOUT_K_OFFSETS;
  if ((split_n && c->n < 0) || (split_k && c->k < 0)) {
    if (sum > INT32_MAX) {
      fprintf(stderr, "error: the group extents sum to more than %d, the most %s can be\n",
              INT32_MAX, split_n ? "N" : "K");
      return EXIT_REJECTED;
    }
  }
  d->n = c->n >= 0 ? c->n : (split_n ? sum : -1);
  d->k = c->k >= 0 ? c->k : (split_k ? sum : -1);
  if (d->n < 0) return reject("%s", "--N is required");
  if (d->k < 0) return reject("%s", "--K is required");
  if (!strcmp(c->target, "gfx942")) d->target = GG_TARGET_GFX942;
  else if (!strcmp(c->target, "gfx950")) d->target = GG_TARGET_GFX950;
  else if (!strcmp(c->target, "sim")) d->target = c->chip;  // sim runs that chip's kernel
  else d->target = GG_TARGET_HOST;
  if (!c->fp8_given) d->fp8 = d->target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  // An AMD target's artifact is its code object.
  if (!c->emit_given && d->target != GG_TARGET_HOST) c->emit = GG_STAGE_BINARY;
  return 0;
}

// Requests gg refuses (the contract, or what it does not implement) exit 2.
static int status_exit(gg_status status) {
  gg_status_code c = gg_status_code_of(status);
  int code = c == GG_STATUS_INVALID_ARGUMENT || c == GG_STATUS_UNIMPLEMENTED ? EXIT_REJECTED
             : c == GG_STATUS_UNAVAILABLE                                    ? EXIT_UNAVAILABLE
                                                                             : EXIT_FAIL;
  fprintf(stderr, "error: %s\n", gg_status_message(status));
  gg_status_free(status);
  return code;
}

static int command_run(cli* c) {
  int sim = !strcmp(c->target, "sim");
  gg_check_backend backend = sim ? GG_CHECK_SIM : c->api ? GG_CHECK_API : GG_CHECK_HOST;
  if (strcmp(c->target, "host") != 0 && !sim) {
    // An AMD GPU through HSA: gfx942 or gfx950 must be the GPU present; hsa takes any.
    gg_target gpu;
    gg_status status = gg_check_gpu_target(&gpu);
    if (status) return status_exit(status);
    if (!strcmp(c->target, "hsa")) {
      c->desc.target = gpu;
      if (!c->fp8_given) c->desc.fp8 = gpu == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
    }
    backend = GG_CHECK_GPU;
  }
  gg_problem_spec spec = {c->desc, c->groups, c->m >= 0 ? c->m : GG_DYNAMIC, c->zeroing, c->data,
                          c->seed, c->alternate_constant};
  gg_check_result r;
  gg_status status = gg_check_run(&spec, backend, 1, &r);
  if (status) return status_exit(status);
  printf("kernel=%s m=%lld compile_ms=%.1f run_ms=%.2f", r.kernel_name, (long long)r.m,
         r.compile_ms, r.run_ms);
  if (sim) printf(" sim_mfmas=%lld", (long long)r.sim_mfmas);
  printf("\n");
  if (!r.passed && r.compare.first_bad >= 0 && r.output && r.expected)
    printf("first bad element %lld: got 0x%04x want 0x%04x (mismatches=%lld unwritten=%lld "
           "clobbered=%lld)\n",
           (long long)r.compare.first_bad, r.output[r.compare.first_bad],
           r.expected[r.compare.first_bad], (long long)r.compare.mismatches,
           (long long)r.compare.unwritten, (long long)r.compare.clobbered);
  printf("%s max_abs_err=%g max_ulp=%d elements=%lld checksum=%016" PRIx64 "\n",
         r.passed ? "PASS" : "FAIL", r.compare.max_abs_err, r.compare.max_ulp,
         (long long)r.compare.elements, r.checksum);
  int code = r.passed ? EXIT_PASS : EXIT_FAIL;
  gg_check_result_free(&r);
  return code;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

// key=value statistics of an AMD kernel, from its assembly.
static int print_stats(const cli* c, double compile_ms) {
  gg_text isa;
  gg_text_init(&isa);
  gg_status status = gg_compile_emit(&c->desc, GG_STAGE_ISA, &isa);
  gg_isa_stats stats;
  if (!status) status = gg_isa_stats_parse(isa.data, isa.length, &stats);
  gg_text_free(&isa);
  if (status) return status_exit(status);
  // B's path: preshuffled B goes global -> registers, plain B through LDS.
  printf("isa_lines=%d vgpr=%d agpr=%d sgpr=%d lds_bytes=%d scratch_bytes=%d waves_per_simd=%d "
         "mfma_in_loop=%d lds_writes=%d b_path=%s kernarg_bytes=%d compile_ms=%.1f\n",
         stats.isa_lines, stats.vgpr, stats.agpr, stats.sgpr, stats.lds_bytes,
         stats.scratch_bytes, stats.waves_per_simd, stats.mfma_in_loop, stats.lds_writes,
         c->desc.b_layout == GG_B_PRESHUFFLED ? "registers" : "lds", stats.kernarg_bytes,
         compile_ms);
  return EXIT_PASS;
}

static int command_compile(cli* c) {
  gg_status status = gg_op_desc_validate(&c->desc);
  if (status) return status_exit(status);
  if (c->stats && c->desc.target == GG_TARGET_HOST) {
    fprintf(stderr, "error: --stats describes AMD code objects (--target gfx942 or gfx950)\n");
    return EXIT_REJECTED;
  }
  if (c->after && (c->emit_given || c->stats)) {
    fprintf(stderr, "error: --after prints MLIR; it does not combine with --emit or --stats\n");
    return EXIT_REJECTED;
  }
  if (c->desc.target == GG_TARGET_HOST && (c->emit == GG_STAGE_ISA || c->emit == GG_STAGE_BINARY))
    return reject("--emit %s describes AMD code objects: add --target gfx942 or gfx950 (host "
                  "kernels are JIT-compiled; --emit llvm shows their code)",
                  gg_stage_name(c->emit));
  int binary = c->emit == GG_STAGE_BINARY && !c->after;
  if (binary && !c->output && isatty(fileno(stdout))) {
    fprintf(stderr, "error: not writing a code object to a terminal (use -o FILE)\n");
    return EXIT_REJECTED;
  }
  gg_text text;
  gg_text_init(&text);
  double start = now_ms();
  status = c->after ? gg_compile_emit_after_pass(&c->desc, c->after, &text)
                   : gg_compile_emit(&c->desc, c->emit, &text);
  double compile_ms = now_ms() - start;
  if (status) {
    gg_text_free(&text);
    return status_exit(status);
  }
  FILE* out = c->output ? fopen(c->output, binary ? "wb" : "w") : stdout;
  if (!out) {
    fprintf(stderr, "error: cannot write '%s'\n", c->output);
    gg_text_free(&text);
    return EXIT_FAIL;
  }
  fwrite(text.data ? text.data : "", 1, text.length, out);
  int failed = c->output ? fclose(out) != 0 : fflush(out) != 0;
  gg_text_free(&text);
  if (failed) {
    fprintf(stderr, "error: writing '%s' failed\n", c->output ? c->output : "stdout");
    return EXIT_FAIL;
  }
  return c->stats ? print_stats(c, compile_ms) : EXIT_PASS;
}

// gg preshuffle --N n --K k [--G g] [--fp8 e4m3fn|e4m3fnuz] [--inverse] IN OUT: raw FP8
// weights, [G, N, K] (or [N, K] without --G) row-major, through gg_preshuffle_b.
static int command_preshuffle(int argc, char** argv) {
  int64_t n = -1, k = -1, g = 0;
  int inverse = 0, fp8 = GG_FP8_E4M3FN;
  const char* paths[2] = {NULL, NULL};
  int path_count = 0;
  for (int i = 2; i < argc; ++i) {
    const char* flag = argv[i];
    if (!strcmp(flag, "--inverse")) {
      inverse = 1;
    } else if (!strcmp(flag, "--N") || !strcmp(flag, "--K") || !strcmp(flag, "--G") ||
               !strcmp(flag, "--fp8")) {
      if (i + 1 >= argc) return reject("%s needs a value", flag);
      const char* v = argv[++i];
      if (!strcmp(flag, "--fp8")) {
        if ((fp8 = gg_fp8_from_name(v)) < 0) return reject("--fp8 must be e4m3fn or e4m3fnuz, not '%s'", v);
        continue;
      }
      int64_t number;
      if (!parse_number(v, 0, INT64_MAX, &number)) return reject_number(flag, "a count", 0, INT64_MAX, v);
      *(flag[2] == 'N' ? &n : flag[2] == 'K' ? &k : &g) = number;
    } else if (flag[0] == '-' && flag[1]) {
      return reject("unknown flag '%s'", flag);
    } else if (path_count < 2) {
      paths[path_count++] = flag;
    } else {
      return reject("unexpected argument '%s'", flag);
    }
  }
  if (n < 0 || k < 0 || path_count != 2)
    return reject("%s", "usage: gg preshuffle --N n --K k [--G g] [--fp8 F] [--inverse] IN OUT");
  int64_t shape[3] = {g, n, k};
  int rank = g > 0 ? 3 : 2;
  int64_t* dims = g > 0 ? shape : shape + 1;
  int64_t total = gg_saturating_mul(gg_saturating_mul(g > 0 ? g : 1, n), k);
  if (total > GG_MAX_OPERAND_BYTES) {
    char text[96];
    gg_dims_format(dims, rank, text, sizeof text);
    fprintf(stderr, "error: weights %s would hold more than 2^47 bytes, more than a process can "
            "address\n", text);
    return EXIT_REJECTED;
  }
  size_t bytes = (size_t)total;
  gg_text in;
  gg_text_init(&in);
  gg_status status = gg_file_read(paths[0], &in);
  if (!status && in.length != bytes)
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s holds %zu bytes; [%s%lld, %lld] FP8 is %zu",
                            paths[0], in.length, g > 0 ? "G, " : "", (long long)n, (long long)k, bytes);
  uint8_t* out = status ? NULL : malloc(bytes ? bytes : 1);
  if (!status && !out) status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  if (!status) {
    DLDataType dtype = {fp8 == GG_FP8_E4M3FNUZ ? GG_DL_FLOAT8_E4M3FNUZ : GG_DL_FLOAT8_E4M3FN, 8, 1};
    DLTensor src = {in.data, {kDLCPU, 0}, rank, dtype, dims, NULL, 0};
    DLTensor dst = {out, {kDLCPU, 0}, rank, dtype, dims, NULL, 0};
    status = inverse ? gg_unshuffle_b(&src, &dst) : gg_preshuffle_b(&src, &dst);
  }
  if (!status) status = gg_file_write(paths[1], out, bytes);
  free(out);
  gg_text_free(&in);
  if (status) return status_exit(status);
  return EXIT_PASS;
}

static void usage(FILE* out) {
  fprintf(out,
          "usage: gg run --op stacked|dynamic|mm [--ranks 2d3d|3d3d|3d2d|2d2d] --groups E1,E2,...\n"
          "              [--M m] --N n --K k [--scaling rowwise|blockwise] [--b plain|preshuffled]\n"
          "              [--target host|sim|gfx942|gfx950|hsa] [--fp8 e4m3fn|e4m3fnuz]\n"
          "              [--data random|exact] [--seed S] [--tile MxNxK] [--wpe W]\n"
          "              [--loop rolled|unrolled] [--no-zeroing] [--alternate-constant]\n"
          "              [--chip gfx942|gfx950] [--api]\n"
          "       gg compile <the same descriptor flags> [--emit op|tiles|target|llvm-dialect|llvm|\n"
          "              isa|hsaco | --after PASS] [-o FILE] [--stats]\n"
          "       gg preshuffle --N n --K k [--G g] [--fp8 e4m3fn|e4m3fnuz] [--inverse] IN OUT\n");
}

int gg_cli_main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_REJECTED : EXIT_PASS;
  }
  if (!strcmp(argv[1], "preshuffle")) return command_preshuffle(argc, argv);
  int is_run = !strcmp(argv[1], "run"), is_compile = !strcmp(argv[1], "compile");
  if (!is_run && !is_compile) {
    fprintf(stderr, "error: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_REJECTED;
  }
  cli c;
  int code = gg_cli_parse(argc, argv, &c);
  if (!code) code = is_run ? command_run(&c) : command_compile(&c);
  gg_cli_free(&c);
  return code;
}
