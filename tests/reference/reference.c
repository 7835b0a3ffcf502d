// The reference operators, written from the per-layout formulas of docs/semantics.md.
#include "tests/reference/reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel.h"
#include "tests/reference/numerics.h"

typedef struct reference {
  const gg_problem* p;
  const uint8_t* a;
  const uint8_t* b;
  const float* sa;
  const float* sb;
  int64_t n, k, g, m, kb, nb;
  int blockwise;
  int wgmma;     // sm_90a: wgmma's limited-precision accumulation (docs/semantics.md)
  int promoted;  // sm_90a: each 128-wide K tile starts a fresh wgmma sum
  uint16_t* out;
  double* bound;
  double decode[256];  // the FP8 format's values: one load a byte, not a call
  // Packed layouts: group g owns [ends[g - 1], ends[g]) of the grouped axis (ends[-1] = 0),
  // rows of A (sizes, offsets) or columns (n_offsets).
  int64_t* ends;
} reference;

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int64_t meta_at(const gg_problem* p, int64_t g) {
  const void* meta = p->buffers[GG_OPERAND_META];
  return p->shapes[GG_OPERAND_META].dtype == GG_DTYPE_I64 ? ((const int64_t*)meta)[g]
                                                          : ((const int32_t*)meta)[g];
}

// Packed groups (sizes, offsets, n_offsets) follow one another along an axis of `total`
// elements: group g owns [the end of group g-1 (0 for g = 0), its own end). A count adds
// to the previous end, an inclusive prefix end replaces it, and the result is clamped to
// [previous end, total]: ranges never overlap, a decreasing offset gives an empty group,
// and (counts clamped to the axis first) hostile counts cannot overflow.
static int64_t next_group_end(const gg_problem* p, int64_t g, int counts, int64_t previous,
                              int64_t total) {
  int64_t value = meta_at(p, g);
  int64_t end = counts ? previous + clamp64(value, 0, total) : value;
  return clamp64(end, previous, total);
}

// 2D-2D groups each read their own K range [offsets[g-1], offsets[g]) (offsets[-1] = 0),
// clamped to [0, K]; a range that ends before it starts is empty.
static void k_range(const gg_problem* p, int64_t g, int64_t total, int64_t* begin,
                    int64_t* end) {
  *begin = clamp64(g > 0 ? meta_at(p, g - 1) : 0, 0, total);
  *end = clamp64(meta_at(p, g), *begin, total);
}

static double dot(const reference* r, const uint8_t* a_row, const uint8_t* b_row, int64_t k0,
                  int64_t k1, double* abs_sum) {
  double sum = 0.0, abs = 0.0;
  for (int64_t k = k0; k < k1; ++k) {
    double product = r->decode[a_row[k]] * r->decode[b_row[k]];
    sum += product;
    abs += fabs(product);
  }
  *abs_sum = abs;
  return sum;
}

// The accumulation error of the kernel's arithmetic over [k0, k1), before scaling
// (docs/semantics.md, "Accumulation"). FP32 (host, AMD): (terms + 4) 2^-24 sum|a b|.
// wgmma (sm_90a): each k32 step (32-aligned in K) adds 32 products to its accumulator D,
// every addend aligned to the largest of them and of D and cut to 13 fraction bits, so a
// step errs by at most 33 2^-12 max(|D|, max|a b|), |D| bounded by the absolute sum so far;
// promoted starts D at zero for each 128-wide K tile and adds the tiles in FP32.
static double accumulation_error(const reference* r, const uint8_t* a_row, const uint8_t* b_row,
                                 int64_t k0, int64_t k1, double abs_sum) {
  double fp32 = (double)(r->k + 4) * ldexp(1.0, -24) * abs_sum;
  if (!r->wgmma) return fp32;
  double error = 0.0, running = 0.0;
  for (int64_t step = k0 / 32 * 32; step < k1; step += 32) {
    if (r->promoted && step % 128 == 0) running = 0.0;
    double largest = 0.0, step_sum = 0.0;
    for (int64_t k = step > k0 ? step : k0; k < step + 32 && k < k1; ++k) {
      double product = fabs(r->decode[a_row[k]] * r->decode[b_row[k]]);
      if (product > largest) largest = product;
      step_sum += product;
    }
    error += 33.0 * ldexp(1.0, -12) * (running > largest ? running : largest);
    running += step_sum;
  }
  return error + fp32;
}

// One output element. Rowwise: the dot product over [k0, k1) times sa[xs] and sb[ws].
// Blockwise: per 128-wide K block kb meeting [k0, k1), the block's partial sum times
// sa[xs + kb xs_stride] and sb[ws + kb ws_stride].
static void element(const reference* r, const uint8_t* a_row, const uint8_t* b_row, int64_t k0,
                    int64_t k1, int64_t xs, int64_t xs_stride, int64_t ws, int64_t ws_stride,
                    int64_t out_index) {
  double value = 0.0, bound = 0.0, abs;
  if (!r->blockwise) {
    double scale = (double)r->sa[xs] * (double)r->sb[ws];
    value = dot(r, a_row, b_row, k0, k1, &abs) * scale;
    bound = accumulation_error(r, a_row, b_row, k0, k1, abs) * fabs(scale);
  } else {
    for (int64_t kb = k0 / 128; kb * 128 < k1; ++kb) {
      int64_t lo = kb * 128 > k0 ? kb * 128 : k0, hi = (kb + 1) * 128 < k1 ? (kb + 1) * 128 : k1;
      if (lo >= hi) continue;
      double scale = (double)r->sa[xs + kb * xs_stride] * (double)r->sb[ws + kb * ws_stride];
      value += dot(r, a_row, b_row, lo, hi, &abs) * scale;
      bound += accumulation_error(r, a_row, b_row, lo, hi, abs) * fabs(scale);
    }
  }
  r->out[out_index] = gg_bf16_from_double(value);
  if (r->bound) r->bound[out_index] = bound;
}

// Each layout's output, one row of A (and its group) at a time: rows are independent, so
// gg_reference_run hands them out over the machine's cores (each element is the same sum
// in the same order whichever thread computes it).

// The group owning index i of a packed axis: the first whose end lies past i.
static int64_t owner(const reference* r, int64_t i) {
  int64_t lo = 0, hi = r->g - 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (r->ends[mid] > i) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Stacked (sizes) and 2D-3D (offsets): group g owns rows [s, e) of A and of the output;
// row i of [0, the last group's end).
static void packed_m_row(void* user, size_t i) {
  const reference* r = user;
  int64_t row = (int64_t)i, g = owner(r, row), s = g > 0 ? r->ends[g - 1] : 0, e = r->ends[g];
  for (int64_t n = 0; n < r->n; ++n) {
    const uint8_t* b_row = r->b + (g * r->n + n) * r->k;
    if (r->blockwise)  // per-group block of x_scale: [K/128, M_g] at s K/128
      element(r, r->a + row * r->k, b_row, 0, r->k, s * r->kb + (row - s), e - s,
              g * r->kb * r->nb + n / 128, r->nb, row * r->n + n);
    else
      element(r, r->a + row * r->k, b_row, 0, r->k, row, 0, g * r->n + n, 0, row * r->n + n);
  }
}

// Dynamic (padded) and 3D-3D (batched): a slab of M rows per group, the first `valid`;
// row i is row i % M of slab i / M.
static void slab_row(const reference* r, size_t i, int padded) {
  int64_t g = (int64_t)i / r->m, row = (int64_t)i % r->m;
  int64_t valid = padded ? clamp64(meta_at(r->p, g), 0, r->m) : r->m;
  for (int64_t n = 0; n < r->n; ++n) {
    int64_t o = (g * r->m + row) * r->n + n;
    if (row >= valid) {
      if (r->p->zeroing) r->out[o] = 0;
      continue;
    }
    const uint8_t* a_row = r->a + (g * r->m + row) * r->k;
    const uint8_t* b_row = r->b + (g * r->n + n) * r->k;
    if (r->blockwise)
      element(r, a_row, b_row, 0, r->k, g * r->kb * r->m + row, r->m,
              g * r->kb * r->nb + n / 128, r->nb, o);
    else
      element(r, a_row, b_row, 0, r->k, g * r->m + row, 0, g * r->n + n, 0, o);
  }
}
static void padded_row(void* user, size_t i) { slab_row(user, i, 1); }
static void batched_row(void* user, size_t i) { slab_row(user, i, 0); }

// 3D-2D (n_offsets): group g owns output columns [s, e) and rows [s, e) of B; row i is
// row i % M of group i / M.
static void split_n_row(void* user, size_t i) {
  const reference* r = user;
  int64_t g = (int64_t)i / r->m, row = (int64_t)i % r->m;
  int64_t s = g > 0 ? r->ends[g - 1] : 0, e = r->ends[g];
  const uint8_t* a_row = r->a + (g * r->m + row) * r->k;
  for (int64_t c = s; c < e; ++c) {
    if (r->blockwise)
      element(r, a_row, r->b + c * r->k, 0, r->k, g * r->kb * r->m + row, r->m, c / 128, r->nb,
              row * r->n + c);
    else
      element(r, a_row, r->b + c * r->k, 0, r->k, g * r->m + row, 0, c, 0, row * r->n + c);
  }
}

// 2D-2D (k_offsets): group g sums over K range [s, e) into its own output slab; row i is
// row i % M of group i / M.
static void split_k_row(void* user, size_t i) {
  const reference* r = user;
  int64_t g = (int64_t)i / r->m, row = (int64_t)i % r->m, s, e;
  k_range(r->p, g, r->k, &s, &e);
  for (int64_t n = 0; n < r->n; ++n) {
    int64_t o = (g * r->m + row) * r->n + n;
    if (r->blockwise)
      element(r, r->a + row * r->k, r->b + n * r->k, s, e, row, r->m, n / 128, r->nb, o);
    else
      element(r, r->a + row * r->k, r->b + n * r->k, s, e, g * r->m + row, 0, g * r->n + n, 0,
              o);
  }
}

// The packed layouts' group ends along an axis of `total` (NULL when out of memory).
static int64_t* group_ends(const reference* r, int counts, int64_t total) {
  int64_t* ends = malloc((size_t)r->g * sizeof *ends);
  if (!ends) return NULL;
  for (int64_t g = 0, e = 0; g < r->g; ++g) ends[g] = e = next_group_end(r->p, g, counts, e, total);
  return ends;
}

// Preshuffled B back in row-major [rows, k] order, element by element from the spec's
// formula (ops.md section 7), independently of the runtime's gg_preshuffle_b_bytes.
static uint8_t* unshuffle_b(const uint8_t* shuffled, int64_t rows, int64_t k) {
  uint8_t* plain = malloc(rows * k > 0 ? (size_t)(rows * k) : 1);
  if (!plain) return NULL;
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t kk = 0; kk < k; ++kk) {
      int64_t n0 = n / 16, nl = n % 16, k0 = kk / 64, kl = (kk % 64) / 16, kp = kk % 16;
      plain[n * k + kk] = shuffled[(((n0 * (k / 64) + k0) * 4 + kl) * 16 + nl) * 16 + kp];
    }
  return plain;
}

void gg_reference_run(const gg_problem* p, uint16_t* out, double* bound) {
  uint8_t* plain_b = NULL;
  if (p->desc.b_layout == GG_B_PRESHUFFLED) {
    plain_b = unshuffle_b(p->buffers[GG_OPERAND_B],
                          gg_operand_shape_numel(&p->shapes[GG_OPERAND_B]) / p->desc.k, p->desc.k);
    if (!plain_b) return;  // out of memory: the output stays poisoned and the check fails
  }
  reference r = {p,
                 p->buffers[GG_OPERAND_A],
                 plain_b ? plain_b : p->buffers[GG_OPERAND_B],
                 p->buffers[GG_OPERAND_A_SCALE],
                 p->buffers[GG_OPERAND_B_SCALE],
                 p->desc.n,
                 p->desc.k,
                 p->desc.g,
                 p->m,
                 p->desc.k / 128,
                 p->desc.n / 128,
                 p->desc.scaling == GG_SCALING_BLOCKWISE,
                 p->desc.target == GG_TARGET_SM90A,
                 p->desc.accum == GG_ACCUM_PROMOTED || p->desc.scaling == GG_SCALING_BLOCKWISE,
                 out,
                 bound,
                 {0},
                 NULL};
  for (int byte = 0; byte < 256; ++byte) r.decode[byte] = gg_fp8_decode(p->desc.fp8, (uint8_t)byte);
  int64_t count = gg_operand_shape_numel(&p->shapes[GG_OPERAND_OUT]);
  if (bound) memset(bound, 0, (size_t)count * sizeof *bound);
  // Nothing to launch: the output is zero-filled (docs/semantics.md).
  if (r.m == 0 || r.n == 0 || r.k == 0 || r.g == 0) {
    memset(out, 0, (size_t)count * sizeof *out);
  } else {
    int packed_m = p->desc.layout == GG_LAYOUT_SIZES || p->desc.layout == GG_LAYOUT_OFFSETS;
    int64_t rows = r.g * r.m;
    void (*row)(void*, size_t) = NULL;
    switch (p->desc.layout) {
      case GG_LAYOUT_SIZES:
      case GG_LAYOUT_OFFSETS: row = packed_m_row; break;
      case GG_LAYOUT_PADDED: row = padded_row; break;
      case GG_LAYOUT_BATCHED: row = batched_row; break;
      case GG_LAYOUT_N_OFFSETS: row = split_n_row; break;
      case GG_LAYOUT_K_OFFSETS: row = split_k_row; break;
      default: break;
    }
    if (packed_m || p->desc.layout == GG_LAYOUT_N_OFFSETS) {
      r.ends = group_ends(&r, p->desc.layout == GG_LAYOUT_SIZES,
                          p->desc.layout == GG_LAYOUT_N_OFFSETS ? r.n : r.m);
      if (!r.ends) row = NULL;  // out of memory: the output stays poisoned, the check fails
      else if (packed_m) rows = r.ends[r.g - 1];
    }
    if (row) gg_parallel_for((size_t)rows, 0, row, &r);
    free(r.ends);
  }
  free(plain_b);
}

static double bf16_ulp(uint16_t bits) {
  float value = gg_bf16_to_float(bits);
  if (value == 0.0f || isinf(value) || isnan(value)) return ldexp(1.0, -133);
  int exponent;
  frexpf(value, &exponent);
  return ldexp(1.0, (exponent - 8) < -133 ? -133 : exponent - 8);
}

gg_compare_result gg_compare_outputs(const uint16_t* got, const uint16_t* want,
                                     const double* bound, int64_t count, int exact) {
  gg_compare_result res = {count, 0, 0, 0, 0.0, 0, -1};
  for (int64_t i = 0; i < count; ++i) {
    int bad = 0;
    if (want[i] == GG_POISON_BF16 || got[i] == GG_POISON_BF16) {
      if (got[i] != want[i]) {
        bad = 1;
        if (want[i] == GG_POISON_BF16) res.clobbered++;
        else res.unwritten++;
      }
    } else {
      int32_t ulp = gg_bf16_ulp_distance(got[i], want[i]);
      double g = gg_bf16_to_float(got[i]), w = gg_bf16_to_float(want[i]);
      double err = (isnan(g) || isnan(w)) ? (ulp ? INFINITY : 0.0) : fabs(g - w);
      if (ulp > res.max_ulp) res.max_ulp = ulp;
      if (err > res.max_abs_err) res.max_abs_err = err;
      if (exact) {
        bad = got[i] != want[i] && !(gg_bf16_is_nan(got[i]) && gg_bf16_is_nan(want[i]));
      } else {
        double tolerance = bf16_ulp(want[i]) + (bound ? bound[i] : 0.0);
        bad = ulp > 1 && !(err <= tolerance);
      }
      if (bad) res.mismatches++;
    }
    if (bad && res.first_bad < 0) res.first_bad = i;
  }
  return res;
}
