// The public API on the host: every entry point against the reference (exact data
// bit-identical, random data within tolerance), every contract violation returning its
// status with nothing written and nothing compiled, launches of a compiled kernel on the
// wrong tensors, and every artifact gg_emit produces.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "gg/gg.h"
#include "tests/support/api_case.h"
#include "tests/support/context.h"
#include "tests/support/desc.h"

namespace {

using gg_test::ApiCase;
using gg_test::Spec;
using gg_test::TakeMessage;

using gg_test::MemoryContext;

// n or k of GG_DYNAMIC: the sum of the extents (the split axis of 3D-2D and 2D-2D).
Spec Make(gg_layout layout, std::vector<int64_t> extents, int64_t n, int64_t k,
          gg_data_kind data, int64_t m = GG_DYNAMIC) {
  int64_t sum = 0;
  for (int64_t e : extents) sum += e;
  if (n == GG_DYNAMIC) n = sum;
  if (k == GG_DYNAMIC) k = sum;
  Spec s;
  s.layout = layout;
  s.extents = std::move(extents);
  s.n = n;
  s.k = k;
  s.m = m;
  s.data = data;
  s.seed = 11;
  return s;
}

// ---------------------------------------------------------------------------------------
// Every entry point against the reference.

struct EntryCase {
  const char* name;
  Spec spec;
};

class EntryPoints : public ::testing::TestWithParam<EntryCase> {};

TEST_P(EntryPoints, MatchReference) {
  gg_context* context = MemoryContext();
  for (gg_data_kind data : {GG_DATA_EXACT, GG_DATA_RANDOM}) {
    Spec spec = GetParam().spec;
    spec.data = data;
    ApiCase c(spec);
    ASSERT_TRUE(c.ok());
    gg_status status = c.Call(context);
    ASSERT_EQ(status, GG_OK) << gg_status_message(status) << "\n  " << spec.command();
    c.ExpectMatchesReference();
  }
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.compiles, 1u) << "exact and random data share one kernel";
  EXPECT_EQ(stats.memory_hits, 1u);
  gg_context_destroy(context);
}

Spec Blockwise(Spec s) {
  s.scaling = GG_SCALING_BLOCKWISE;
  return s;
}

Spec NoZeroing(Spec s) {
  s.zeroing = 0;
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Api, EntryPoints,
    ::testing::Values(
        EntryCase{"stacked", Make(GG_LAYOUT_SIZES, {100, 0, 37, 1}, 256, 512, GG_DATA_EXACT)},
        EntryCase{"dynamic_zeroing", Make(GG_LAYOUT_PADDED, {0, 64, 100}, 128, 256, GG_DATA_EXACT, 100)},
        EntryCase{"dynamic_no_zeroing",
                  NoZeroing(Make(GG_LAYOUT_PADDED, {7, 0, 100}, 128, 256, GG_DATA_EXACT, 100))},
        EntryCase{"mm_2d3d", Make(GG_LAYOUT_OFFSETS, {33, 0, 95}, 256, 384, GG_DATA_EXACT)},
        EntryCase{"mm_3d3d", Make(GG_LAYOUT_BATCHED, {100, 100}, 136, 256, GG_DATA_EXACT, 100)},
        EntryCase{"mm_3d2d", Make(GG_LAYOUT_N_OFFSETS, {264, 8, 0, 120}, GG_DYNAMIC, 256,
                                  GG_DATA_EXACT, 48)},
        EntryCase{"mm_2d2d", Make(GG_LAYOUT_K_OFFSETS, {16, 512, 0, 368}, 64, GG_DYNAMIC,
                                  GG_DATA_EXACT, 100)},
        EntryCase{"groupwise",
                  Blockwise(Make(GG_LAYOUT_SIZES, {128, 1, 200}, 256, 512, GG_DATA_EXACT))}),
    [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------
// Contract violations: each returns its status, writes nothing and compiles nothing.

struct Violation {
  const char* name;
  gg_layout layout;
  gg_status_code code;
  const char* message;  // a substring of the status message
  void (*mutate)(ApiCase& c, const DLTensor** meta, DLTensor** out, gg_context** context);
};

int64_t kBadShape[3];
int64_t kBadStrides[3];

const Violation kViolations[] = {
    {"null_context", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "context is NULL",
     [](ApiCase&, const DLTensor**, DLTensor**, gg_context** ctx) { *ctx = nullptr; }},
    {"null_xq", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "XQ is NULL",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.dl().pointers[GG_OPERAND_A] = nullptr;
     }},
    {"null_out", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "out is NULL",
     [](ApiCase&, const DLTensor**, DLTensor** out, gg_context**) { *out = nullptr; }},
    {"null_m_sizes", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "M_sizes is NULL",
     [](ApiCase&, const DLTensor** meta, DLTensor**, gg_context**) { *meta = nullptr; }},
    {"unsupported_device", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "device: WQ is on CUDA",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_B).device = {kDLCUDA, 0};
     }},
    {"mixed_devices", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "device: x_scale is on ROCM:0 but XQ is on CPU:0",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_A_SCALE).device = {kDLROCM, 0};
     }},
    {"xq_not_fp8", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "dtype: XQ must be float8_e4m3fn or float8_e4m3fnuz, not dtype(code=0 bits=8",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_A).dtype = {kDLInt, 8, 1};
     }},
    {"fp8_flavours_differ", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "dtype: WQ is float8_e4m3fnuz but XQ is float8_e4m3fn",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_B).dtype.code = GG_DL_FLOAT8_E4M3FNUZ;
     }},
    {"x_scale_bf16", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "dtype: x_scale must be float32, not bfloat16",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_A_SCALE).dtype = {kDLBfloat, 16, 1};
     }},
    {"m_sizes_int32", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "dtype: M_sizes must be int64, not int32",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_META).dtype = {kDLInt, 32, 1};
     }},
    {"offsets_int64", GG_LAYOUT_OFFSETS, GG_STATUS_INVALID_ARGUMENT,
     "dtype: offsets must be int32, not int64",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_META).dtype = {kDLInt, 64, 1};
     }},
    {"out_float32", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "dtype: out must be bfloat16, not float32",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_OUT).dtype = {kDLFloat, 32, 1};
     }},
    {"vector_lanes", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "lanes=2",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_B_SCALE).dtype.lanes = 2;
     }},
    {"m_sizes_rank", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "rank: M_sizes must be 1D, not 2D",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       DLTensor& t = c.tensor(GG_OPERAND_META);
       kBadShape[0] = 1;
       kBadShape[1] = t.shape[0];
       t.shape = kBadShape;
       t.ndim = 2;
     }},
    {"wq_k_mismatch", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "shape: WQ is [3, 256, 256], expected [3, 256, 512]",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       DLTensor& t = c.tensor(GG_OPERAND_B);
       kBadShape[0] = t.shape[0];
       kBadShape[1] = t.shape[1];
       kBadShape[2] = 256;
       t.shape = kBadShape;
     }},
    {"out_shape", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "shape: out is [137, 128], expected [137, 256]",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       DLTensor& t = c.tensor(GG_OPERAND_OUT);
       kBadShape[0] = t.shape[0];
       kBadShape[1] = 128;
       t.shape = kBadShape;
     }},
    {"x_scale_numel", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "shape: x_scale has 136 elements, expected 137",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       DLTensor& t = c.tensor(GG_OPERAND_A_SCALE);
       kBadShape[0] = t.shape[0] - 1;
       t.shape = kBadShape;
     }},
    {"m_sizes_length", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "shape: M_sizes is [4], expected [3]",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       DLTensor& t = c.tensor(GG_OPERAND_META);
       kBadShape[0] = 4;
       t.shape = kBadShape;
     }},
    {"out_not_contiguous", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "layout: out must be contiguous",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       DLTensor& t = c.tensor(GG_OPERAND_OUT);
       kBadStrides[0] = t.shape[1] + 8;  // padded rows
       kBadStrides[1] = 1;
       t.strides = kBadStrides;
     }},
    {"xq_transposed", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "layout: XQ must be contiguous",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       DLTensor& t = c.tensor(GG_OPERAND_A);
       kBadStrides[0] = 1;
       kBadStrides[1] = t.shape[0];
       t.strides = kBadStrides;
     }},
    {"out_misaligned", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT, "layout: out is misaligned",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_OUT).byte_offset = 1;
     }},
    {"batched_with_offsets", GG_LAYOUT_BATCHED, GG_STATUS_INVALID_ARGUMENT,
     "offsets must be absent for 3D-3D",
     [](ApiCase& c, const DLTensor** meta, DLTensor**, gg_context**) {
       *meta = &c.tensor(GG_OPERAND_A_SCALE);
     }},
    {"2d3d_without_offsets", GG_LAYOUT_OFFSETS, GG_STATUS_INVALID_ARGUMENT,
     "offsets is NULL; it is required when XQ or WQ is 2D",
     [](ApiCase&, const DLTensor** meta, DLTensor**, gg_context**) { *meta = nullptr; }},
    {"mm_rank_combination", GG_LAYOUT_OFFSETS, GG_STATUS_INVALID_ARGUMENT,
     "must be one of 2D-2D, 3D-3D, 2D-3D, 3D-2D",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       c.tensor(GG_OPERAND_A).ndim = 1;
     }},
    {"k_not_multiple_of_16", GG_LAYOUT_SIZES, GG_STATUS_INVALID_ARGUMENT,
     "K must be a multiple of 16",
     [](ApiCase& c, const DLTensor**, DLTensor**, gg_context**) {
       // A consistent set of shapes with K = 40 (the data pointers stay large enough).
       static int64_t a[2], b[3];
       DLTensor& A = c.tensor(GG_OPERAND_A);
       DLTensor& B = c.tensor(GG_OPERAND_B);
       a[0] = A.shape[0], a[1] = 40;
       b[0] = B.shape[0], b[1] = B.shape[1], b[2] = 40;
       A.shape = a;
       B.shape = b;
     }},
};

class Violations : public ::testing::TestWithParam<Violation> {};

TEST_P(Violations, StatusAndNothingWritten) {
  const Violation& v = GetParam();
  gg_context* owned = MemoryContext();
  Spec spec = Make(v.layout, v.layout == GG_LAYOUT_BATCHED ? std::vector<int64_t>{64, 64, 64}
                                                           : std::vector<int64_t>{100, 0, 37},
                   256, 512, GG_DATA_EXACT, v.layout == GG_LAYOUT_BATCHED ? 64 : GG_DYNAMIC);
  ApiCase c(spec);
  ASSERT_TRUE(c.ok());
  const DLTensor* meta = c.dl().pointers[GG_OPERAND_META];
  DLTensor* out = &c.tensor(GG_OPERAND_OUT);
  gg_context* context = owned;
  v.mutate(c, &meta, &out, &context);
  const DLTensor* const* t = c.dl().pointers;
  gg_status status =
      v.layout == GG_LAYOUT_SIZES
          ? gg_f8f8bf16_rowwise_grouped_stacked(context, t[0], t[1], t[2], t[3], meta, out)
          : gg_f8f8bf16_rowwise_grouped_mm(context, t[0], t[1], t[2], t[3], meta, out);
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(gg_status_code_of(status), v.code);
  std::string message = TakeMessage(status);
  EXPECT_NE(message.find(v.message), std::string::npos)
      << "got: " << message << "\nwant: " << v.message;
  EXPECT_TRUE(c.Untouched()) << "an output byte was written";
  gg_cache_stats stats;
  gg_context_cache_stats(owned, &stats);
  EXPECT_EQ(stats.compiles, 0u) << "nothing is compiled for a rejected call";
  gg_context_destroy(owned);
}

INSTANTIATE_TEST_SUITE_P(Api, Violations, ::testing::ValuesIn(kViolations),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Api, BlockwiseKMustBeWholeScaleBlocks) {
  gg_context* context = MemoryContext();
  Spec spec = Make(GG_LAYOUT_SIZES, {64, 64}, 256, 256, GG_DATA_EXACT);
  spec.scaling = GG_SCALING_BLOCKWISE;
  ApiCase c(spec);
  ASSERT_TRUE(c.ok());
  static int64_t a[2], b[3];
  DLTensor& A = c.tensor(GG_OPERAND_A);
  DLTensor& B = c.tensor(GG_OPERAND_B);
  a[0] = A.shape[0], a[1] = 240;
  b[0] = 2, b[1] = 256, b[2] = 240;
  A.shape = a;
  B.shape = b;
  gg_status status = c.Call(context);
  ASSERT_NE(status, GG_OK);
  std::string message = TakeMessage(status);
  EXPECT_NE(message.find("K to be a multiple of 128 (scale_block_k)"), std::string::npos)
      << message;
  EXPECT_TRUE(c.Untouched());
  gg_context_destroy(context);
}

TEST(Api, GpuTensorsWithoutGpuAreUnavailable) {
  if (access("/dev/kfd", F_OK) == 0) GTEST_SKIP() << "this machine has an AMD GPU driver";
  gg_context* context = MemoryContext();
  ApiCase c(Make(GG_LAYOUT_SIZES, {100, 0, 37}, 256, 512, GG_DATA_EXACT));
  ASSERT_TRUE(c.ok());
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) c.tensor(gg_operand(i)).device = {kDLROCM, 0};
  gg_status status = c.Call(context);
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
  EXPECT_NE(TakeMessage(status).find("no AMD GPU"), std::string::npos);
  EXPECT_TRUE(c.Untouched());
  gg_target target;
  status = gg_context_gpu_target(context, &target);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
  gg_status_free(status);
  gg_context_destroy(context);
}

// The layout the mm ops take, by the ranks of XQ and WQ: what bindings launching through
// gg_grouped_gemm ask (the Python binding does).
TEST(Api, MmLayoutFollowsTheRanks) {
  int64_t shape[3] = {2, 4, 8};
  DLTensor two = {}, three = {}, one = {}, offsets = {};
  two.ndim = 2, three.ndim = 3, one.ndim = 1, offsets.ndim = 1;
  two.shape = three.shape = one.shape = offsets.shape = shape;
  struct {
    const DLTensor *a, *b;
    gg_layout want;
  } cases[] = {{&two, &three, GG_LAYOUT_OFFSETS},
               {&three, &three, GG_LAYOUT_BATCHED},
               {&three, &two, GG_LAYOUT_N_OFFSETS},
               {&two, &two, GG_LAYOUT_K_OFFSETS}};
  for (const auto& c : cases) {
    gg_layout layout = GG_LAYOUT_COUNT;
    EXPECT_EQ(gg_mm_layout(c.a, c.b, &offsets, &layout), GG_OK);
    EXPECT_EQ(layout, c.want);
  }
  gg_layout layout = GG_LAYOUT_COUNT;
  EXPECT_EQ(gg_mm_layout(&three, &three, NULL, &layout), GG_OK);  // 3D-3D takes none
  EXPECT_EQ(layout, GG_LAYOUT_BATCHED);
  gg_status status = gg_mm_layout(&two, &three, NULL, &layout);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(TakeMessage(status), "offsets is NULL; it is required when XQ or WQ is 2D");
  status = gg_mm_layout(&one, &three, &offsets, &layout);
  EXPECT_EQ(TakeMessage(status),
            "rank: XQ is 1D and WQ 3D; the inputs must be one of 2D-2D, 3D-3D, 2D-3D, 3D-2D");
  status = gg_mm_layout(&two, &three, &offsets, NULL);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  gg_status_free(status);
}

// ---------------------------------------------------------------------------------------
// A compiled kernel launched on tensors of another problem.

TEST(Api, KernelLaunchChecksTensorsAgainstItsDescriptor) {
  gg_context* context = MemoryContext();
  ApiCase c(Make(GG_LAYOUT_SIZES, {100, 0, 37}, 256, 512, GG_DATA_EXACT));
  ASSERT_TRUE(c.ok());
  gg_op_desc desc = c.problem()->desc;
  gg_kernel* kernel;
  ASSERT_EQ(gg_kernel_get(context, &desc, &kernel), GG_OK);
  ASSERT_EQ(gg_kernel_launch(context, kernel, c.dl().pointers, 0), GG_OK);
  c.ExpectMatchesReference();

  gg_op_desc other = desc;
  other.n = 128;
  gg_kernel* narrow;
  ASSERT_EQ(gg_kernel_get(context, &other, &narrow), GG_OK);
  c.Poison();
  gg_status status = gg_kernel_launch(context, narrow, c.dl().pointers, 0);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("was compiled for N=128"), std::string::npos);
  EXPECT_TRUE(c.Untouched());

  other = desc;
  other.target = GG_TARGET_GFX950;  // compiles without a GPU; cannot run on CPU tensors
  gg_kernel* gpu;
  ASSERT_EQ(gg_kernel_get(context, &other, &gpu), GG_OK);
  const void* data;
  size_t size;
  gg_kernel_code_object(gpu, &data, &size);
  ASSERT_GT(size, 64u);
  EXPECT_EQ(memcmp(data, "\x7f" "ELF", 4), 0);
  status = gg_kernel_launch(context, gpu, c.dl().pointers, 0);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("compiled for gfx950; the tensors are for host"),
            std::string::npos);
  EXPECT_TRUE(c.Untouched());

  // An invalid descriptor is refused before compiling.
  other = desc;
  other.k = 40;
  status = gg_kernel_get(context, &other, &gpu);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("multiple of 16"), std::string::npos);
  gg_context_destroy(context);
}

// ---------------------------------------------------------------------------------------
// Artifacts.

gg_op_desc Desc(gg_target target) {
  return gg_test::ChipDesc(GG_LAYOUT_SIZES, target, 256, 512, 4);
}

std::string Emit(const gg_op_desc& d, gg_artifact artifact) {
  gg_bytes bytes;
  gg_status status = gg_emit(&d, artifact, &bytes);
  EXPECT_EQ(status, GG_OK) << gg_status_message(status);
  gg_status_free(status);
  std::string out(bytes.data ? bytes.data : "", bytes.size);
  gg_bytes_free(&bytes);
  return out;
}

TEST(Emit, HostArtifacts) {
  gg_op_desc d = Desc(GG_TARGET_HOST);
  EXPECT_NE(Emit(d, GG_ARTIFACT_MLIR_OP).find("gg.grouped_matmul"), std::string::npos);
  std::string tiles = Emit(d, GG_ARTIFACT_MLIR_TILES);
  EXPECT_EQ(tiles.find("gg.grouped_matmul"), std::string::npos);
  EXPECT_NE(tiles.find("gg.grid"), std::string::npos);
  EXPECT_NE(Emit(d, GG_ARTIFACT_MLIR_TARGET).find("vector."), std::string::npos);
  EXPECT_NE(Emit(d, GG_ARTIFACT_MLIR_LLVM).find("llvm.func"), std::string::npos);
  EXPECT_NE(Emit(d, GG_ARTIFACT_LLVM_IR).find("define void @_mlir_ciface_"), std::string::npos);
  std::string library = Emit(d, GG_ARTIFACT_HOST_LIBRARY);
  ASSERT_GT(library.size(), 64u);
  EXPECT_EQ(library.compare(0, 4, "\x7f" "ELF"), 0);
  EXPECT_EQ(uint8_t(library[16]), 3) << "a shared object (ET_DYN)";
  EXPECT_NE(library.find("_mlir_ciface_gg_sizes"), std::string::npos);
  // AMD-only artifacts are refused for the host.
  gg_bytes bytes;
  gg_status status = gg_emit(&d, GG_ARTIFACT_HSACO, &bytes);
  EXPECT_NE(status, GG_OK);
  gg_status_free(status);
}

TEST(Emit, AmdArtifacts) {
  for (gg_target target : {GG_TARGET_GFX942, GG_TARGET_GFX950}) {
    gg_op_desc d = Desc(target);
    EXPECT_NE(Emit(d, GG_ARTIFACT_MLIR_TARGET).find("gpu.func"), std::string::npos);
    EXPECT_NE(Emit(d, GG_ARTIFACT_MLIR_LLVM).find("rocdl."), std::string::npos);
    EXPECT_NE(Emit(d, GG_ARTIFACT_LLVM_IR).find("amdgpu_kernel"), std::string::npos);
    std::string isa = Emit(d, GG_ARTIFACT_ISA);
    EXPECT_NE(isa.find("v_mfma"), std::string::npos);
    EXPECT_NE(isa.find(gg_target_name(target)), std::string::npos);
    std::string hsaco = Emit(d, GG_ARTIFACT_HSACO);
    ASSERT_GT(hsaco.size(), 64u);
    EXPECT_EQ(uint8_t(hsaco[18]), 224) << "EM_AMDGPU";
    gg_bytes bytes;
    gg_status status = gg_emit(&d, GG_ARTIFACT_HOST_LIBRARY, &bytes);
    EXPECT_NE(status, GG_OK);
    gg_status_free(status);
  }
}

TEST(Emit, AfterAnyPass) {
  gg_op_desc d = Desc(GG_TARGET_GFX950);
  struct Cut {
    const char* pass;
    const char* present;
    const char* absent;
  } cuts[] = {
      {"gg-verify", "gg.grouped_matmul", "gg.grid"},
      {"gg-tile", "gg.resolve_group", "gg.grouped_matmul"},
      {"gg-resolve-groups", "gg.grid", "gg.resolve_group"},
      {"gg-to-amdgpu", "gpu.func", "gg.grid"},
      {"convert-gpu-to-rocdl", "rocdl.", "gpu.barrier"},
      {"gpu-module-to-binary", "gpu.binary", "gpu.func"},
  };
  for (const Cut& cut : cuts) {
    gg_bytes bytes;
    gg_status status = gg_emit_after_pass(&d, cut.pass, &bytes);
    ASSERT_EQ(status, GG_OK) << cut.pass << ": " << gg_status_message(status);
    std::string text(bytes.data, bytes.size);
    gg_bytes_free(&bytes);
    EXPECT_NE(text.find(cut.present), std::string::npos) << "after " << cut.pass;
    EXPECT_EQ(text.find(cut.absent), std::string::npos) << "after " << cut.pass;
  }
  gg_bytes bytes;
  gg_status status = gg_emit_after_pass(&d, "no-such-pass", &bytes);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("no pass or pipeline 'no-such-pass'"), std::string::npos);
}

}  // namespace
