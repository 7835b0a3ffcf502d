// AMD kernels on operands past 4 GiB, in sim. The operands are mapped without reserving
// memory (MAP_NORESERVE): pages nobody touches cost nothing, so a 4.4 GiB A holds data only
// where the groups under test live. Each kernel runs its real addressing (64-bit bases
// per tile, 32-bit offsets within one tile's span); the expected output of a group comes
// from the C reference run on that group alone, over the same bytes.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "sim/sim.h"
#include "tests/reference/numerics.h"
#include "tests/reference/problem.h"
#include "tests/reference/reference.h"
#include "tests/support/desc.h"

namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

// Zero-filled memory that takes no room until written.
class Sparse {
 public:
  explicit Sparse(int64_t bytes) : bytes_(size_t(bytes ? bytes : 1)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
  }
  ~Sparse() {
    if (data_) munmap(data_, bytes_);
  }
  Sparse(const Sparse&) = delete;
  Sparse& operator=(const Sparse&) = delete;
  uint8_t* data() const { return data_; }

 private:
  size_t bytes_;
  uint8_t* data_;
};

// A launch over sparse operands: the full shapes of desc with grouped extent m.
struct Launch {
  gg_op_desc desc;
  int64_t m;
  std::vector<std::unique_ptr<Sparse>> memory;
  void* buffers[GG_OPERAND_COUNT] = {};
  gg_operand_shape shapes[GG_OPERAND_COUNT];

  Launch(const gg_op_desc& d, int64_t grouped) : desc(gg_op_desc_with_defaults(&d)), m(grouped) {
    for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
      shapes[i] = gg_operand_shape_of(&desc, gg_operand(i), m);
      if (!shapes[i].present) continue;
      int64_t bytes = gg_operand_shape_numel(&shapes[i]) * int64_t(gg_dtype_size(shapes[i].dtype));
      memory.emplace_back(new Sparse(bytes));
      buffers[i] = memory.back()->data();
    }
  }
  uint8_t* at(gg_operand operand, int64_t element) const {
    return static_cast<uint8_t*>(buffers[operand]) +
           element * int64_t(gg_dtype_size(shapes[operand].dtype));
  }
};

// Exact data (FP8 in {0, +-1}, power-of-two scales) written into [element, element + count).
void FillFp8(const Launch& l, gg_operand operand, int64_t element, int64_t count, gg_rng* rng) {
  uint8_t* p = l.at(operand, element);
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r = gg_rng_next(rng) % 4;
    p[i] = gg_fp8_encode(l.desc.fp8, r == 0 ? 1.0f : r == 1 ? -1.0f : 0.0f);
  }
}

void FillScales(const Launch& l, gg_operand operand, int64_t element, int64_t count, gg_rng* rng) {
  float* p = reinterpret_cast<float*>(l.at(operand, element));
  for (int64_t i = 0; i < count; ++i) p[i] = float(1 << gg_rng_range(rng, 0, 2)) / 2.0f;
}

// The reference's output of a one-group problem of desc's layout whose operands start at the
// given elements of the launch's (rows of A and of the output `m_sub` long; B's rows `n_sub`).
std::vector<uint16_t> Expected(const Launch& l, gg_op_desc sub, int64_t m_sub,
                               const int64_t start[GG_OPERAND_COUNT], void* meta) {
  sub.g = 1;
  gg_problem p = {};
  p.desc = gg_op_desc_with_defaults(&sub);
  p.m = m_sub;
  p.zeroing = 0;
  p.data = GG_DATA_EXACT;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    p.shapes[i] = gg_operand_shape_of(&p.desc, gg_operand(i), m_sub);
    if (!p.shapes[i].present) continue;
    p.bytes[i] = size_t(gg_operand_shape_numel(&p.shapes[i])) * gg_dtype_size(p.shapes[i].dtype);
    p.buffers[i] = i == GG_OPERAND_META ? meta : l.at(gg_operand(i), start[i]);
  }
  int64_t count = gg_operand_shape_numel(&p.shapes[GG_OPERAND_OUT]);
  std::vector<uint16_t> out(static_cast<size_t>(count));
  p.buffers[GG_OPERAND_OUT] = out.data();
  gg_poison_bf16(out.data(), count);
  gg_reference_run(&p, out.data(), nullptr);
  return out;
}

// Compiles desc for its chip and runs it in sim over [lo, hi) of its grid (all of it when
// lo is null).
void Simulate(const Launch& l, const int64_t* lo, const int64_t* hi) {
  MlirContext ctx;
  MlirModule module;
  gg_status status = gg_compile_module(&l.desc, GG_STAGE_TARGET, &ctx, &module);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  gg_sim_stats stats;
  status = lo ? gg_sim_run_window(mlirModuleGetOperation(module), &l.desc, l.buffers, l.m, 0, lo,
                                  hi, &stats)
              : gg_sim_run(mlirModuleGetOperation(module), &l.desc, l.buffers, l.m, 0, &stats);
  EXPECT_EQ(status, GG_OK) << gg_status_message(status);
  gg_status_free(status);
  EXPECT_GT(stats.mfmas, 0);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
}

class LargeOperands : public ::testing::TestWithParam<gg_target> {
 protected:
  gg_op_desc Desc(gg_layout layout, int64_t n, int64_t k, int64_t g) {
    return gg_test::ChipDesc(layout, GetParam(), n, k, g);
  }
};

// dynamic (padded): 2100 slabs of A and B, 2 MiB each; the last group's lie past 4 GiB
// (and group 0's at the start). Every other group is empty: its slabs stay untouched zero
// pages, its output slab keeps its poison. The whole grid runs.
TEST_P(LargeOperands, SlabsPast4GiB) {
  const int64_t groups = 2100, m = 128, n = 128, k = 16384;
  Launch l(Desc(GG_LAYOUT_PADDED, n, k, groups), m);
  ASSERT_NE(l.buffers[GG_OPERAND_A], nullptr);
  ASSERT_GT(groups * m * k, 4 * kGiB);
  gg_rng rng = {7};
  int64_t* valid = static_cast<int64_t*>(l.buffers[GG_OPERAND_META]);
  const int64_t active[2] = {0, groups - 1}, rows[2] = {31, 100}, idle[2] = {1, groups - 2};
  FillScales(l, GG_OPERAND_A_SCALE, 0, groups * m, &rng);
  FillScales(l, GG_OPERAND_B_SCALE, 0, groups * n, &rng);
  for (int i = 0; i < 2; ++i) {
    int64_t g = active[i];
    valid[g] = rows[i];
    FillFp8(l, GG_OPERAND_A, g * m * k, m * k, &rng);
    FillFp8(l, GG_OPERAND_B, g * n * k, n * k, &rng);
  }
  for (int64_t g : {active[0], active[1], idle[0], idle[1]})
    gg_poison_bf16(reinterpret_cast<uint16_t*>(l.at(GG_OPERAND_OUT, g * m * n)), m * n);
  Simulate(l, nullptr, nullptr);
  for (int i = 0; i < 2; ++i) {
    int64_t g = active[i];
    int64_t start[GG_OPERAND_COUNT] = {g * m * k, g * n * k, g * m, g * n, 0, g * m * n};
    std::vector<uint16_t> want = Expected(l, l.desc, m, start, &valid[g]);
    const uint16_t* got = reinterpret_cast<const uint16_t*>(l.at(GG_OPERAND_OUT, g * m * n));
    for (int64_t e = 0; e < m * n; ++e)
      ASSERT_EQ(got[e], want[size_t(e)]) << "group " << g << " element " << e << " (A at byte "
                                         << g * m * k << ")";
  }
  for (int64_t g : idle) {
    const uint16_t* got = reinterpret_cast<const uint16_t*>(l.at(GG_OPERAND_OUT, g * m * n));
    for (int64_t e = 0; e < m * n; ++e) ASSERT_EQ(got[e], GG_POISON_BF16) << "group " << g;
  }
}

// dynamic with N = 2^23: each group's output slab is 1 GiB, so group 4's starts at 4 GiB.
// Its last two column tiles run (the grid holds 2^17 workgroups per group).
TEST_P(LargeOperands, OutputPast4GiB) {
  const int64_t groups = 5, m = 64, n = int64_t{1} << 23, k = 16, g = 4;
  gg_op_desc d = Desc(GG_LAYOUT_PADDED, n, k, groups);
  d.tile = {64, 128, 128, 0, GG_LOOP_ROLLED, 0};
  Launch l(d, m);
  ASSERT_NE(l.buffers[GG_OPERAND_OUT], nullptr);
  ASSERT_GE(g * m * n * 2, 4 * kGiB);
  gg_rng rng = {11};
  int64_t* valid = static_cast<int64_t*>(l.buffers[GG_OPERAND_META]);
  valid[g] = m;
  const int64_t cols = 256, col0 = n - cols;
  FillScales(l, GG_OPERAND_A_SCALE, 0, groups * m, &rng);
  FillScales(l, GG_OPERAND_B_SCALE, g * n + col0, cols, &rng);
  FillFp8(l, GG_OPERAND_A, g * m * k, m * k, &rng);
  FillFp8(l, GG_OPERAND_B, (g * n + col0) * k, cols * k, &rng);
  uint16_t* out = reinterpret_cast<uint16_t*>(l.at(GG_OPERAND_OUT, 0));
  for (int64_t r = 0; r < m; ++r) gg_poison_bf16(out + (g * m + r) * n + col0 - 8, cols + 8);
  const int64_t lo[3] = {col0 / 128, 0, g}, hi[3] = {n / 128, 1, g + 1};
  Simulate(l, lo, hi);
  // The reference on group 4's last 256 columns: a [64, 256] problem.
  gg_op_desc sub = l.desc;
  sub.n = cols;
  int64_t start[GG_OPERAND_COUNT] = {g * m * k, (g * n + col0) * k, g * m, g * n + col0, 0, 0};
  std::vector<uint16_t> want = Expected(l, sub, m, start, &valid[g]);
  for (int64_t r = 0; r < m; ++r) {
    const uint16_t* row = out + (g * m + r) * n;
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_EQ(row[col0 + c], want[size_t(r * cols + c)])
          << "row " << r << " column " << col0 + c << " (byte " << ((g * m + r) * n + col0 + c) * 2
          << ")";
    for (int64_t c = col0 - 8; c < col0; ++c)
      ASSERT_EQ(row[c], GG_POISON_BF16) << "row " << r << " column " << c << " was written";
  }
}

// stacked (packed rows): group 0 holds the first 262272 rows of 16 KiB, so group 1's rows
// begin past 4 GiB; its tiles (found by the binary search) run.
TEST_P(LargeOperands, PackedRowsPast4GiB) {
  const int64_t n = 128, k = 16384, first = 262272, second = 100, m = first + second;
  Launch l(Desc(GG_LAYOUT_SIZES, n, k, 2), m);
  ASSERT_NE(l.buffers[GG_OPERAND_A], nullptr);
  ASSERT_GT(first * k, 4 * kGiB);
  gg_rng rng = {13};
  int64_t* counts = static_cast<int64_t*>(l.buffers[GG_OPERAND_META]);
  counts[0] = first;
  counts[1] = second;
  FillScales(l, GG_OPERAND_A_SCALE, first, second, &rng);
  FillScales(l, GG_OPERAND_B_SCALE, n, n, &rng);
  FillFp8(l, GG_OPERAND_A, first * k, second * k, &rng);
  FillFp8(l, GG_OPERAND_B, n * k, n * k, &rng);
  uint16_t* out = reinterpret_cast<uint16_t*>(l.at(GG_OPERAND_OUT, 0));
  gg_poison_bf16(out + (first - 1) * n, (second + 1) * n);
  // Group 1's slots start at first / 128 + 1 (each group's first slot is its start / tile_m
  // plus its index).
  const int64_t slot = first / 128 + 1;
  const int64_t lo[3] = {0, slot, 0}, hi[3] = {1, slot + 1, 1};
  Simulate(l, lo, hi);
  int64_t start[GG_OPERAND_COUNT] = {first * k, n * k, first, n, 0, first * n};
  int64_t count = second;
  std::vector<uint16_t> want = Expected(l, l.desc, second, start, &count);
  for (int64_t e = 0; e < second * n; ++e)
    ASSERT_EQ(out[first * n + e], want[size_t(e)]) << "element " << e;
  for (int64_t e = 0; e < n; ++e)
    ASSERT_EQ(out[(first - 1) * n + e], GG_POISON_BF16) << "group 0's last row was written";
}

INSTANTIATE_TEST_SUITE_P(Chips, LargeOperands, ::testing::Values(GG_TARGET_GFX942, GG_TARGET_GFX950),
                         [](const auto& info) { return std::string(gg_target_name(info.param)); });

}  // namespace
