// The gg command line: flag parsing with range checks, and the run, compile and
// preshuffle commands (tools/cli.h).
#include "tools/cli.h"
#include "tools/tune.h"
#include "runtime/clock.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/amdgpu.h"
#include "compiler/compile.h"
#include "compiler/target.h"
#include "runtime/files.h"
#include "gg/gg.h"
#include "gg/op.h"
#include "runtime/checked.h"
#include "runtime/table.h"
#include "runtime/tune.h"
#include "tests/reference/problem.h"
#include "tests/support/check.h"
#include "tuning/shipped.h"

enum {
  EXIT_PASS = GG_EXIT_PASS,
  EXIT_FAIL = GG_EXIT_FAIL,
  EXIT_REJECTED = GG_EXIT_REJECTED,
  EXIT_UNAVAILABLE = GG_EXIT_UNAVAILABLE
};

typedef gg_cli cli;

#define reject gg_flags_reject
#define parse_number gg_flags_number
#define status_exit gg_status_exit

static int reject_number(const char* flag, const char* what, int64_t lo, int64_t hi,
                         const char* text) {
  fprintf(stderr, "error: %s takes %s from %lld to %lld, not '%s'\n", flag, what, (long long)lo,
          (long long)hi, text);
  return EXIT_REJECTED;
}

void gg_cli_free(gg_cli* c) { gg_flags_free(&c->f); }

int gg_cli_parse(int argc, char** argv, cli* c) {
  memset(c, 0, sizeof *c);
  gg_flags_init(&c->f);
  c->emit = GG_STAGE_OP;
  for (int i = 2; i < argc; ++i) {
    int taken = gg_flags_take(&c->f, argc, argv, &i);
    if (taken > 0) return taken;
    if (taken == 0) continue;
    const char* flag = argv[i];
    if (!strcmp(flag, "--stats")) {
      c->stats = 1;
      continue;
    }
    if (strcmp(flag, "--emit") != 0 && strcmp(flag, "--after") != 0 && strcmp(flag, "-o") != 0)
      return reject("unknown flag '%s'", flag);
    if (i + 1 >= argc) return reject("%s needs a value", flag);
    const char* v = argv[++i];
    if (!strcmp(flag, "--emit")) {
      int e = gg_stage_from_name(v);
      if (e < 0)
        return reject("--emit must be op, tiles, target, llvm-dialect, llvm, isa (ptx) or hsaco "
                      "(cubin), not '%s'", v);
      c->emit = (gg_stage)e;
      c->emit_given = 1;
    } else if (!strcmp(flag, "--after")) {
      c->after = v;
    } else {
      c->output = v;
    }
  }
  int code = gg_flags_finish(&c->f);
  if (code) return code;
  // An AMD target's artifact is its code object.
  if (!c->emit_given && gg_target_backend_of(c->f.desc.target)->machine_code)
    c->emit = GG_STAGE_BINARY;
  return 0;
}

static int command_run(cli* c) {
  int sim = !strcmp(c->f.target, "sim");
  gg_check_backend backend = sim ? GG_CHECK_SIM : c->f.api ? GG_CHECK_API : GG_CHECK_HOST;
  if (!strcmp(c->f.target, "sm_90a")) {
    backend = GG_CHECK_GPU;  // CUDA device 0, through the library (refused unless Hopper)
  } else if (strcmp(c->f.target, "host") != 0 && !sim) {
    // An AMD GPU through HSA: gfx942 or gfx950 must be the GPU present; hsa takes any.
    gg_target gpu;
    gg_status status = gg_check_gpu_target(&gpu);
    if (status) return status_exit(status);
    if (!strcmp(c->f.target, "hsa")) {
      c->f.desc.target = gpu;
      if (!c->f.fp8_given) c->f.desc.fp8 = gpu == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
    }
    backend = GG_CHECK_GPU;
  }
  gg_problem_spec spec = gg_flags_problem(&c->f);
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


// key=value statistics of a GPU kernel (the target table's), and the compile time.
static int print_stats(const cli* c, double compile_ms) {
  gg_text stats;
  gg_text_init(&stats);
  gg_status status = gg_compile_stats(&c->f.desc, &stats);
  if (status) {
    gg_text_free(&stats);
    return status_exit(status);
  }
  printf("%s compile_ms=%.1f\n", gg_text_str(&stats), compile_ms);
  gg_text_free(&stats);
  return EXIT_PASS;
}

static int command_compile(cli* c) {
  gg_status status = gg_op_desc_validate(&c->f.desc);
  if (status) return status_exit(status);
  int machine_code = gg_target_backend_of(c->f.desc.target)->machine_code;
  if (c->stats && !machine_code) {
    fprintf(stderr, "error: --stats describes GPU kernels (--target gfx942, gfx950 or sm_90a)\n");
    return EXIT_REJECTED;
  }
  if (c->after && (c->emit_given || c->stats)) {
    fprintf(stderr, "error: --after prints MLIR; it does not combine with --emit or --stats\n");
    return EXIT_REJECTED;
  }
  if (!machine_code && (c->emit == GG_STAGE_ISA || c->emit == GG_STAGE_BINARY))
    return reject("--emit %s describes GPU machine code: add --target gfx942, gfx950 or sm_90a "
                  "(host kernels are JIT-compiled; --emit llvm shows their code)",
                  gg_stage_name(c->emit));
  int binary = c->emit == GG_STAGE_BINARY && !c->after;
  if (binary && !c->output && isatty(fileno(stdout))) {
    fprintf(stderr, "error: not writing a code object to a terminal (use -o FILE)\n");
    return EXIT_REJECTED;
  }
  gg_text text;
  gg_text_init(&text);
  double start = gg_now_ms();
  status = c->after ? gg_compile_emit_after_pass(&c->f.desc, c->after, &text)
                   : gg_compile_emit(&c->f.desc, c->emit, &text);
  double compile_ms = gg_now_ms() - start;
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

// The kernels of a bundle, as the flags that describe them.
typedef struct bundle_list {
  gg_op_desc* descs;
  char** flags;
  size_t count, capacity;
  size_t given;  // descriptors given (each may add its large-M kernel)
  gg_tune_db tables;  // the tuning tables the entry points would use (tuned kernels bundled)
} bundle_list;

static int bundle_list_add(bundle_list* l, const gg_op_desc* desc, const char* flags) {
  if (l->count == l->capacity) {
    size_t capacity = l->capacity ? l->capacity * 2 : 16;
    gg_op_desc* descs = realloc(l->descs, capacity * sizeof *descs);
    if (descs) l->descs = descs;
    char** all = descs ? realloc(l->flags, capacity * sizeof *all) : NULL;
    if (!all) {
      fprintf(stderr, "error: out of memory\n");
      return EXIT_FAIL;
    }
    l->flags = all;
    l->capacity = capacity;
  }
  l->descs[l->count] = *desc;
  if (!(l->flags[l->count] = strdup(flags))) {
    fprintf(stderr, "error: out of memory\n");
    return EXIT_FAIL;
  }
  ++l->count;
  return 0;
}

// Whether the list holds a kernel of desc's descriptor already.
static int bundle_list_has(const bundle_list* l, const gg_op_desc* desc) {
  char want[512], have[512];
  gg_op_desc_format(desc, want, sizeof want);
  for (size_t i = 0; i < l->count; ++i) {
    gg_op_desc_format(&l->descs[i], have, sizeof have);
    if (!strcmp(want, have)) return 1;
  }
  return 0;
}

// Adds desc with `tile` in place of its own, its flags `flags` with --tile (and --split-k)
// spelling the tile out; nothing when the list holds it already.
static int bundle_list_add_tile(bundle_list* l, const gg_op_desc* desc, const char* flags,
                                gg_tile_config tile) {
  gg_op_desc variant = *desc;
  variant.tile = tile;
  if (bundle_list_has(l, &variant)) return 0;
  char line[4096], split[32] = "";
  if (tile.split_k > 1) snprintf(split, sizeof split, " --split-k %d", tile.split_k);
  int n = desc->tile.waves_per_eu
              ? snprintf(line, sizeof line, "%s --tile %dx%dx%d%s", flags, tile.m, tile.n, tile.k, split)
              : snprintf(line, sizeof line, "%s --tile %dx%dx%d --wpe %d%s", flags, tile.m, tile.n,
                         tile.k, tile.waves_per_eu, split);
  if (n < 0 || (size_t)n >= sizeof line) {
    fprintf(stderr, "error: a descriptor line is too long\n");
    return EXIT_REJECTED;
  }
  return bundle_list_add(l, &variant, line);
}

// With no --tile, a descriptor also bundles the other kernels the entry points may take
// for it, so a bundle serves every M: for gfx942 and gfx950 (and sm_90a in fast rowwise
// mode) the large-M tile (gg_tile_config_for), and for sm_90a the split-K kernels and tile
// widths of small M (gg_tile_config_for_launch: decode-sized M, from one row up).
static int bundle_list_add_with_variants(bundle_list* l, const gg_op_desc* desc, const char* flags) {
  int code = bundle_list_add(l, desc, flags);
  if (!code) ++l->given;
  if (code || desc->tile.m || desc->tile.n || desc->tile.k) return code;
  gg_tile_config tile = gg_tile_config_for(desc, GG_LARGE_M_ROWS), standard = gg_tile_config_default();
  if (tile.m != standard.m || tile.n != standard.n || tile.k != standard.k)
    code = bundle_list_add_tile(l, desc, flags, tile);
  // The tuned tiles of every table entry for this descriptor, at any rows and device.
  for (size_t i = 0; !code && i < l->tables.count; ++i) {
    const gg_tune_entry* e = &l->tables.entries[i];
    gg_tune_key key = gg_tune_key_of(desc, 0, e->key.device);
    key.m_bucket = e->key.m_bucket;
    gg_op_desc tuned = *desc;
    tuned.tile = e->best.tile;
    gg_status refused = gg_op_desc_validate(&tuned);
    if (!refused && gg_tune_key_equal(&key, &e->key) && e->best.accum == desc->accum)
      code = bundle_list_add_tile(l, desc, flags, e->best.tile);
    gg_status_free(refused);
  }
  if (code || desc->target != GG_TARGET_SM90A || desc->tile.split_k > 1) return code;
  // The rule's split falls as M grows, to 1 well before 132 tiles of 128 rows; its decode
  // widths stop at GG_SM90_DECODE_ROWS.
  for (int64_t m = 1; !code && m <= GG_SM90_PLANNED_SMS * 128; m = m < 64 ? m + 1 : m * 2) {
    gg_tile_config at = gg_tile_config_for_launch(desc, m);
    if (gg_tile_config_is_decode_choice(at, gg_tile_config_unsplit(desc, m)))
      code = bundle_list_add_tile(l, desc, flags, at);
  }
  return code;
}

// The tables a bundle serves: those shipped in tuning/ (every context loads them) and the
// one --table names.
static int bundle_tables_load(bundle_list* l, const char* table) {
  gg_status status = gg_shipped_tuning_db(&l->tables);
  if (!status && table) {
    gg_tune_db db;
    status = gg_status_annotate(gg_tune_table_read(table, &db), "--table");
    if (!status) {
      status = gg_tune_db_merge(&l->tables, &db);
      gg_tune_db_free(&db);
    }
  }
  return status ? status_exit(status) : 0;
}

static void bundle_list_free(bundle_list* l) {
  for (size_t i = 0; i < l->count; ++i) free(l->flags[i]);
  free(l->flags);
  free(l->descs);
  gg_tune_db_free(&l->tables);
}

// Adds every descriptor line of text (a list file) whose target must be `target`.
static int bundle_list_read(bundle_list* l, const char* name, const char* text, const char* target) {
  int line_number = 0;
  for (const char* p = text; *p;) {
    size_t length = strcspn(p, "\n");
    char* line = strndup(p, length);
    if (!line) {
      fprintf(stderr, "error: out of memory\n");
      return EXIT_FAIL;
    }
    p += length + (p[length] == '\n');
    char where[512];
    snprintf(where, sizeof where, "%s:%d", name, ++line_number);
    gg_flags f;
    int blank;
    int code = gg_flags_parse_line(line, where, target, &f, &blank);
    if (!code && !blank && strcmp(f.target, target) != 0) {
      fprintf(stderr, "error: %s: --target %s in a bundle for %s\n", where, f.target, target);
      code = EXIT_REJECTED;
    }
    // The line as written (without its comment) is what gg-launch --list runs.
    size_t end = strcspn(line, "#");
    while (end > 0 && isspace((unsigned char)line[end - 1])) --end;
    line[end] = 0;
    if (!code && !blank) code = bundle_list_add_with_variants(l, &f.desc, line);
    gg_flags_free(&f);
    free(line);
    if (code) return code;
  }
  return 0;
}

static int distinct_kernels(const bundle_list* l) {
  gg_table seen;
  gg_table_init(&seen);
  char (*keys)[1024] = calloc(l->count ? l->count : 1, sizeof *keys);
  int count = 0;
  for (size_t i = 0; keys && i < l->count; ++i) {
    gg_op_desc_format(&l->descs[i], keys[i], sizeof keys[i]);
    if (!gg_table_get(&seen, keys[i]) && gg_table_put(&seen, keys[i], keys[i]) == 0) ++count;
  }
  gg_table_free(&seen);
  free(keys);
  return count;
}

// gg bundle --target T -o FILE [--list FILE|-] [descriptor flags] [--threads T] [--table TABLE]
static int command_bundle(int argc, char** argv) {
  gg_flags f;
  gg_flags_init(&f);
  const char *output = NULL, *list = NULL, *table = NULL;
  int64_t threads = 0;
  int code = 0;
  gg_text words;  // the command line's descriptor flags, as the kernel's flags
  gg_text_init(&words);
  for (int i = 2; i < argc && !code; ++i) {
    int first = i;
    int taken = gg_flags_take(&f, argc, argv, &i);
    if (taken > 0) {
      code = taken;
    } else if (taken == 0) {
      if (strcmp(argv[first], "--target") != 0)
        for (int w = first; w <= i; ++w) gg_text_printf(&words, "%s%s", words.length ? " " : "", argv[w]);
    } else if (strcmp(argv[i], "-o") != 0 && strcmp(argv[i], "--list") != 0 &&
               strcmp(argv[i], "--threads") != 0 && strcmp(argv[i], "--table") != 0) {
      code = reject("unknown flag '%s'", argv[i]);
    } else if (i + 1 >= argc) {
      code = reject("%s needs a value", argv[i]);
    } else if (!strcmp(argv[i], "-o")) {
      output = argv[++i];
    } else if (!strcmp(argv[i], "--table")) {
      table = argv[++i];
    } else if (!strcmp(argv[i], "--list")) {
      list = argv[++i];
    } else if (!parse_number(argv[i + 1], 0, 1024, &threads)) {
      code = reject_number("--threads", "a thread count (0: one per core)", 0, 1024, argv[i + 1]);
    } else {
      ++i;
    }
  }
  const char* target = f.target;
  if (!code && !f.target_given) code = reject("%s", "--target is required (host, gfx942, gfx950 or sm_90a)");
  if (!code && strcmp(target, "host") && strcmp(target, "gfx942") && strcmp(target, "gfx950") &&
      strcmp(target, "sm_90a"))
    code = reject("a bundle's --target is host, gfx942, gfx950 or sm_90a, not '%s'", target);
  if (!code && !output) code = reject("%s", "-o FILE is required");
  if (!code && !list && f.op < 0)
    code = reject("%s", "nothing to bundle: give descriptor flags, or --list FILE (- for stdin)");
  bundle_list kernels = {0};
  if (!code) code = bundle_tables_load(&kernels, table);
  if (!code && f.op >= 0 && !(code = gg_flags_finish(&f))) {
    gg_text_printf(&words, " --target %s", target);
    code = words.failed ? EXIT_FAIL : bundle_list_add_with_variants(&kernels, &f.desc, words.data);
  }
  gg_text text;
  gg_text_init(&text);
  if (!code && list) {
    gg_status status = !strcmp(list, "-") ? gg_fd_read_text(0, "standard input", &text) : gg_file_read(list, &text);
    code = status ? status_exit(status)
                  : bundle_list_read(&kernels, !strcmp(list, "-") ? "stdin" : list,
                                     gg_text_str(&text), target);
    if (!code && kernels.count == 0) code = reject("the list %s holds no descriptor", list);
  }
  if (!code) {
    double start = gg_now_ms();
    gg_status status = gg_bundle_write(output, kernels.descs, (const char* const*)kernels.flags,
                                       kernels.count, (int)threads);
    if (status) {
      code = status_exit(status);
    } else {
      struct stat st;
      long long bytes = stat(output, &st) == 0 ? (long long)st.st_size : -1;
      int unique = distinct_kernels(&kernels);
      printf("bundle %s: %d kernel%s for %s from %zu descriptor%s, %lld bytes, in %.0f ms\n",
             output, unique, unique == 1 ? "" : "s", target, kernels.given,
             kernels.given == 1 ? "" : "s", bytes, gg_now_ms() - start);
    }
  }
  gg_text_free(&text);
  gg_text_free(&words);
  bundle_list_free(&kernels);
  gg_flags_free(&f);
  return code;
}

static void usage(FILE* out) {
  fprintf(out,
          "usage: gg run --op stacked|dynamic|mm [--ranks 2d3d|3d3d|3d2d|2d2d] --groups E1,E2,...\n"
          "              [--M m] --N n --K k [--scaling rowwise|blockwise] [--b plain|preshuffled]\n"
          "              [--target host|sim|gfx942|gfx950|hsa|sm_90a] [--fp8 e4m3fn|e4m3fnuz]\n"
          "              [--data random|exact] [--seed S] [--tile MxNxK] [--wpe W] [--split-k S]\n"
          "              [--loop rolled|unrolled] [--accum promoted|fast] [--no-zeroing]\n"
          "              [--alternate-constant]\n"
          "              [--chip gfx942|gfx950] [--api]\n"
          "       gg compile <the same descriptor flags> [--emit op|tiles|target|llvm-dialect|llvm|\n"
          "              isa|hsaco|ptx|cubin | --after PASS] [-o FILE] [--stats]\n"
          "       gg preshuffle --N n --K k [--G g] [--fp8 e4m3fn|e4m3fnuz] [--inverse] IN OUT\n"
          "       gg bundle --target host|gfx942|gfx950|sm_90a -o FILE [--list FILE|-] [--threads T]\n"
          "              [--table TABLE] [descriptor flags]\n"
          "       gg tune --target host -o TABLE [--list FILE|-] [descriptor flags]\n"
          "              [--threads T] [--repeat N] [--allow-fast] [--device NAME]\n"
          "       gg tune --target gfx942|gfx950 --model -o TABLE [--list FILE|-] [descriptor flags]\n"
          "              [--threads T]\n"
          "       gg tune --target T --candidates --list FILE|-\n");
}

int gg_cli_main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_REJECTED : EXIT_PASS;
  }
  if (!strcmp(argv[1], "preshuffle")) return command_preshuffle(argc, argv);
  if (!strcmp(argv[1], "bundle")) return command_bundle(argc, argv);
  if (!strcmp(argv[1], "tune")) return gg_tune_main(argc, argv);
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
