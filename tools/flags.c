// The descriptor flags of the gg tools (tools/flags.h).
#include "tools/flags.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/checked.h"

enum {
  EXIT_PASS = GG_EXIT_PASS,
  EXIT_FAIL = GG_EXIT_FAIL,
  EXIT_REJECTED = GG_EXIT_REJECTED,
  EXIT_UNAVAILABLE = GG_EXIT_UNAVAILABLE
};

#define reject gg_flags_reject
#define parse_number gg_flags_number

int reject(const char* format, const char* detail) {
  fprintf(stderr, "error: ");
  fprintf(stderr, format, detail);
  fprintf(stderr, "\n");
  return EXIT_REJECTED;
}

int parse_number(const char* text, int64_t lo, int64_t hi, int64_t* value) {
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
static int parse_groups(const char* text, gg_flags* c) {
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

void gg_flags_init(gg_flags* c) {
  memset(c, 0, sizeof *c);
  c->op = -1;
  c->ranks = GG_RANKS_2D3D;
  c->m = c->n = c->k = -1;
  c->target = "host";
  c->data = GG_DATA_RANDOM;
  c->seed = 1;
  c->zeroing = 1;
  c->chip = GG_TARGET_GFX950;
}

void gg_flags_free(gg_flags* c) {
  free(c->groups);
  c->groups = NULL;
  c->group_count = 0;
}

static int is_value_flag(const char* flag) {
  static const char* const flags[] = {"--op",  "--ranks", "--groups", "--M",    "--N",
                                      "--K",   "--scaling", "--b",    "--target", "--fp8",
                                      "--data", "--seed", "--tile",   "--wpe",  "--loop",
                                      "--accum", "--chip", "--split-k"};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; ++i)
    if (!strcmp(flag, flags[i])) return 1;
  return 0;
}

int gg_flags_take(gg_flags* c, int argc, char** argv, int* i) {
  static const char* const ops[] = {"stacked", "dynamic", "mm"};
  static const char* const ranks[] = {"2d3d", "3d3d", "3d2d", "2d2d"};
  static const char* const targets[] = {"host", "sim", "gfx942", "gfx950", "hsa", "sm_90a"};
  const char* flag = argv[*i];
  if (!strcmp(flag, "--no-zeroing")) {
    c->zeroing = 0;
    return 0;
  }
  if (!strcmp(flag, "--alternate-constant")) {
    c->alternate_constant = 1;
    return 0;
  }
  if (!strcmp(flag, "--api")) {
    c->api = 1;
    return 0;
  }
  if (!is_value_flag(flag)) return -1;
  if (*i + 1 >= argc) return reject("%s needs a value", flag);
  const char* v = argv[++*i];
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
    int t = enum_value(v, targets, 6);
    if (t < 0) return reject("--target must be host, sim, gfx942, gfx950, hsa or sm_90a, not '%s'", v);
    c->target = targets[t];  // a static name: a list line's words do not outlive it
    c->target_given = 1;
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
    for (int part = 0; part < 3; ++part) {
      lengths[part] = strcspn(p, "x");
      if (lengths[part] == 0 || lengths[part] >= sizeof parts[part] || (part < 2) != (p[lengths[part]] == 'x'))
        return reject("--tile takes MxNxK (e.g. 128x128x128), not '%s'", v);
      memcpy(parts[part], p, lengths[part]);
      parts[part][lengths[part]] = 0;
      if (!parse_number(parts[part], 0, INT32_MAX, &extent[part]))
        return reject_number("--tile", "extents", 0, INT32_MAX, parts[part]);
      p += lengths[part] + (part < 2);
    }
    c->desc.tile.m = (int32_t)extent[0];
    c->desc.tile.n = (int32_t)extent[1];
    c->desc.tile.k = (int32_t)extent[2];
  } else if (!strcmp(flag, "--wpe")) {
    if (!parse_number(v, 0, 8, &number)) return reject_number(flag, "a wave count", 0, 8, v);
    c->desc.tile.waves_per_eu = (int32_t)number;
  } else if (!strcmp(flag, "--split-k")) {
    // Which counts a kernel takes (sm_90a, static K, shares a ring long) the descriptor says.
    if (!parse_number(v, 1, GG_SM90_MAX_SPLIT_K, &number))
      return reject_number(flag, "a CTA count", 1, GG_SM90_MAX_SPLIT_K, v);
    c->desc.tile.split_k = (int32_t)number;
  } else if (!strcmp(flag, "--loop")) {
    if ((e = gg_loop_form_from_name(v)) < 0) return reject("--loop must be rolled or unrolled, not '%s'", v);
    c->desc.tile.loop = (gg_loop_form)e;
  } else if (!strcmp(flag, "--accum")) {
    if ((e = gg_accum_from_name(v)) < 0) return reject("--accum must be promoted or fast, not '%s'", v);
    c->desc.accum = (gg_accum)e;
  } else if (!strcmp(flag, "--chip")) {
    if (strcmp(v, "gfx942") != 0 && strcmp(v, "gfx950") != 0)
      return reject("--chip must be gfx942 or gfx950, not '%s'", v);
    c->chip = (gg_target)gg_target_from_name(v);
  }
  return 0;
}

int gg_flags_finish(gg_flags* c) {
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
  else if (!strcmp(c->target, "sm_90a")) d->target = GG_TARGET_SM90A;
  else if (!strcmp(c->target, "sim")) d->target = c->chip;  // sim runs that chip's kernel
  else d->target = GG_TARGET_HOST;
  if (!c->fp8_given) d->fp8 = d->target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  return 0;
}

// Words of a line, split at blanks, up to a '#'.
#define MAX_LINE_WORDS 64

int gg_flags_parse_line(const char* line, const char* where, const char* target, gg_flags* f,
                        int* blank) {
  gg_flags_init(f);
  f->target = target;
  *blank = 0;
  char copy[4096];
  size_t length = strcspn(line, "#");
  if (length >= sizeof copy) {
    fprintf(stderr, "error: %s: the line is longer than %zu characters\n", where, sizeof copy - 1);
    return EXIT_REJECTED;
  }
  memcpy(copy, line, length);
  copy[length] = 0;
  char* words[MAX_LINE_WORDS + 1];
  int count = 1;  // words[0] stands for the program, as in argv
  words[0] = "gg";
  for (char* p = copy; *p;) {
    while (*p && isspace((unsigned char)*p)) *p++ = 0;
    if (!*p) break;
    if (count > MAX_LINE_WORDS) {
      fprintf(stderr, "error: %s: more than %d words\n", where, MAX_LINE_WORDS);
      return EXIT_REJECTED;
    }
    words[count++] = p;
    while (*p && !isspace((unsigned char)*p)) ++p;
  }
  if (count == 1) {
    *blank = 1;
    return 0;
  }
  for (int i = 1; i < count; ++i) {
    int taken = gg_flags_take(f, count, words, &i);
    if (taken < 0) {
      fprintf(stderr, "error: %s: unknown flag '%s'\n", where, words[i]);
      return EXIT_REJECTED;
    }
    if (taken > 0) {
      fprintf(stderr, "  (in %s)\n", where);
      return taken;
    }
  }
  int code = gg_flags_finish(f);
  if (code) fprintf(stderr, "  (in %s)\n", where);
  return code;
}

gg_problem_spec gg_flags_problem(const gg_flags* c) {
  gg_problem_spec spec = {c->desc, c->groups, c->m >= 0 ? c->m : GG_DYNAMIC, c->zeroing, c->data,
                          c->seed, c->alternate_constant};
  return spec;
}

// Requests gg refuses (the contract, or what it does not implement) exit 2.
int gg_status_exit(gg_status status) {
  gg_status_code c = gg_status_code_of(status);
  int code = c == GG_STATUS_INVALID_ARGUMENT || c == GG_STATUS_UNIMPLEMENTED ? EXIT_REJECTED
             : c == GG_STATUS_UNAVAILABLE                                    ? EXIT_UNAVAILABLE
                                                                             : EXIT_FAIL;
  fprintf(stderr, "error: %s\n", gg_status_message(status));
  gg_status_free(status);
  return code;
}

