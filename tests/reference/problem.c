// Problem construction: validation of the group extents and seeded input data.
#include "tests/reference/problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/checked.h"
#include "tests/reference/numerics.h"

uint64_t gg_rng_next(gg_rng* rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t gg_rng_range(gg_rng* rng, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo) + 1;
  return lo + (int64_t)(gg_rng_next(rng) % span);
}


void gg_poison_bf16(uint16_t* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = GG_POISON_BF16;
}

// A random finite FP8 code.
static uint8_t random_fp8(gg_rng* rng, gg_fp8 flavour) {
  for (;;) {
    uint8_t byte = (uint8_t)gg_rng_next(rng);
    if (!isnan(gg_fp8_decode(flavour, byte))) return byte;
  }
}

// The FP8 codes of exact data's values, encoded once per problem (encoding searches all
// 256 codes: per byte it made a large B take a minute to draw).
typedef struct exact_codes {
  uint8_t zero, one, minus_one, two, minus_two;
} exact_codes;

static exact_codes exact_codes_of(gg_fp8 flavour) {
  exact_codes c = {gg_fp8_encode(flavour, 0.0f), gg_fp8_encode(flavour, 1.0f),
                   gg_fp8_encode(flavour, -1.0f), gg_fp8_encode(flavour, 2.0f),
                   gg_fp8_encode(flavour, -2.0f)};
  return c;
}

// Exact data: mostly zeros and +-1, some +-2 when K is short enough that no partial sum
// can reach 2^12 (docs/semantics.md, "exact data").
static uint8_t exact_fp8(gg_rng* rng, const exact_codes* c, int64_t k) {
  uint64_t r = gg_rng_next(rng) % 16;
  if (k <= 1024) {
    if (r < 6) return c->one;
    if (r < 12) return c->minus_one;
    if (r == 12) return c->two;
    if (r == 13) return c->minus_two;
  } else {
    if (r < 2) return c->one;
    if (r < 4) return c->minus_one;
  }
  return c->zero;
}

static float random_scale(gg_rng* rng, gg_data_kind data) {
  if (data == GG_DATA_EXACT) return ldexpf(1.0f, (int)gg_rng_range(rng, -2, 2));
  double unit = (double)(gg_rng_next(rng) >> 11) / 9007199254740992.0;  // [0, 1)
  return (float)ldexp(1.0 + unit, (int)gg_rng_range(rng, -4, 1));
}

// The sum of the extents; false when it overflows.
static bool sum_of(const int64_t* values, int64_t count, int64_t* sum) {
  *sum = 0;
  for (int64_t i = 0; i < count; ++i)
    if (!gg_checked_add(*sum, values[i], sum)) return false;
  return true;
}

static int64_t max_of(const int64_t* values, int64_t count) {
  int64_t max = 0;
  for (int64_t i = 0; i < count; ++i) max = values[i] > max ? values[i] : max;
  return max;
}

// Layouts whose groups follow one another along an axis (prefix sums), not slab layouts.
static bool packed_groups(gg_layout layout) {
  return layout != GG_LAYOUT_PADDED && layout != GG_LAYOUT_BATCHED;
}

static gg_status check_extents(const gg_problem_spec* spec, int64_t m) {
  const gg_op_desc* d = &spec->desc;
  for (int64_t g = 0; g < d->g; ++g)
    if (spec->extents[g] < 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "group %lld has a negative extent %lld",
                            (long long)g, (long long)spec->extents[g]);
  if (m < 0) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "M must not be negative");
  // Packed groups: the prefix ends (the extents are non-negative, so the total is the
  // largest) must fit the metadata's type: int32 for the offsets layouts, int64 for sizes.
  int64_t total, limit = gg_operand_shape_of(d, GG_OPERAND_META, 0).dtype == GG_DTYPE_I32
                             ? INT32_MAX
                             : INT64_MAX;
  if (packed_groups(d->layout) && (!sum_of(spec->extents, d->g, &total) || total > limit))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "the group extents sum past %lld, which the %s layout's metadata "
                          "cannot hold",
                          (long long)limit, gg_layout_name(d->layout));
  if (d->layout == GG_LAYOUT_BATCHED)
    for (int64_t g = 0; g < d->g; ++g)
      if (spec->extents[g] != m)
        return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                              "3D-3D has no group sizes: every group extent must equal M=%lld",
                              (long long)m);
  return GG_OK;
}

// Fills the metadata operand from the extents (whose prefix sums check_extents proved to
// fit the metadata's type).
static void fill_meta(gg_problem* p, const int64_t* extents) {
  const gg_operand_shape* s = &p->shapes[GG_OPERAND_META];
  if (!s->present) return;
  int64_t running = 0;
  for (int64_t g = 0; g < p->desc.g; ++g) {
    if (packed_groups(p->desc.layout)) running += extents[g];
    int64_t value = (p->desc.layout == GG_LAYOUT_SIZES || p->desc.layout == GG_LAYOUT_PADDED)
                        ? extents[g]
                        : running;  // inclusive prefix sums
    if (s->dtype == GG_DTYPE_I64) ((int64_t*)p->buffers[GG_OPERAND_META])[g] = value;
    else ((int32_t*)p->buffers[GG_OPERAND_META])[g] = (int32_t)value;
  }
}

// Odd groups along a split axis get a positive constant (see alternate_constant).
static void fill_alternate_constant(gg_problem* p, const int64_t* extents) {
  const gg_op_desc* d = &p->desc;
  uint8_t one = gg_fp8_encode(d->fp8, p->data == GG_DATA_EXACT ? 1.0f : 0.75f);
  uint8_t* a = p->buffers[GG_OPERAND_A];
  uint8_t* b = p->buffers[GG_OPERAND_B];
  int64_t start = 0;
  for (int64_t g = 0; g < d->g; ++g) {
    int64_t end = start + extents[g];
    if (g % 2 == 1) {
      if (d->layout == GG_LAYOUT_K_OFFSETS) {
        for (int64_t k = start; k < end && k < d->k; ++k) {
          for (int64_t r = 0; r < p->m; ++r) a[r * d->k + k] = one;
          for (int64_t c = 0; c < d->n; ++c) b[c * d->k + k] = one;
        }
      } else if (d->layout == GG_LAYOUT_N_OFFSETS) {
        for (int64_t c = start; c < end && c < d->n; ++c) memset(b + c * d->k, one, (size_t)d->k);
      }
    }
    start = end;
  }
}

gg_status gg_problem_create(const gg_problem_spec* spec, gg_problem** out_problem) {
  *out_problem = NULL;
  GG_RETURN_IF_ERROR(gg_op_desc_validate(&spec->desc));
  gg_op_desc d = gg_op_desc_with_defaults(&spec->desc);
  if (d.g > 0 && !spec->extents)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "group extents are missing");

  int64_t m = spec->m;
  if (m == GG_DYNAMIC) {
    switch (d.layout) {
      case GG_LAYOUT_SIZES:
      case GG_LAYOUT_OFFSETS:
        if (!sum_of(spec->extents, d.g, &m)) m = INT64_MAX;  // check_extents says why
        break;
      case GG_LAYOUT_PADDED:
      case GG_LAYOUT_BATCHED: m = max_of(spec->extents, d.g); break;
      default: m = 128; break;
    }
  }
  GG_RETURN_IF_ERROR(check_extents(spec, m));
  GG_RETURN_IF_ERROR(gg_operand_sizes_check(&d, m));

  gg_problem* p = calloc(1, sizeof *p);
  if (!p) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  p->desc = d;
  p->m = m;
  p->zeroing = spec->zeroing;
  p->data = spec->data;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    p->shapes[i] = gg_operand_shape_of(&d, (gg_operand)i, m);
    if (!p->shapes[i].present) continue;
    p->bytes[i] = (size_t)gg_operand_shape_numel(&p->shapes[i]) * gg_dtype_size(p->shapes[i].dtype);
    p->buffers[i] = malloc(p->bytes[i] ? p->bytes[i] : 1);
    if (!p->buffers[i]) {
      // The message reads the problem, so it is made before the problem is freed.
      gg_status status =
          gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory for %s (%zu bytes)",
                         gg_operand_name((gg_operand)i), p->bytes[i]);
      gg_problem_destroy(p);
      return status;
    }
  }

  gg_rng rng = {spec->seed * 0x2545F4914F6CDD1Dull + 1};
  exact_codes codes = exact_codes_of(d.fp8);
  for (int i = GG_OPERAND_A; i <= GG_OPERAND_B; ++i) {
    uint8_t* bytes = p->buffers[i];
    for (size_t j = 0; j < p->bytes[i]; ++j)
      bytes[j] = spec->data == GG_DATA_EXACT ? exact_fp8(&rng, &codes, d.k) : random_fp8(&rng, d.fp8);
  }
  for (int i = GG_OPERAND_A_SCALE; i <= GG_OPERAND_B_SCALE; ++i) {
    float* scales = p->buffers[i];
    for (size_t j = 0; j < p->bytes[i] / sizeof(float); ++j)
      scales[j] = random_scale(&rng, spec->data);
  }
  fill_meta(p, spec->extents);
  if (spec->alternate_constant) fill_alternate_constant(p, spec->extents);
  *out_problem = p;
  return GG_OK;
}

void gg_problem_destroy(gg_problem* p) {
  if (!p) return;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) free(p->buffers[i]);
  free(p);
}
