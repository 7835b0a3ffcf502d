// runtime/hsa.c and the API's GPU path driven end to end against a CPU stand-in for the
// HSA runtime (tests/fake_hsa): agents, pools, the queue, code object loading, the packet
// and kernel arguments the packet processor receives, output zero-filling, and queue
// errors becoming statuses. The stand-in runs no kernel, so what is checked is everything
// gg hands to HSA, byte for byte.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "gg/gg.h"
#include "runtime/code_object.h"
#include "runtime/dispatch.h"
#include "runtime/hsa.h"
#include "tests/support/le.h"
#include "tests/support/desc.h"

namespace {

using gg_test::Le;

struct Fake {
  void (*configure)(const char*, uint32_t, uint32_t, uint32_t, int);
  int (*dispatches)();
  int (*bad_headers)();
  int (*initialised)();
  int (*live_allocations)();
  void* (*queue)();  // the stand-in's one hsa_queue_t
  int (*pending_handlers)();
  const uint8_t* (*packet)(int back);  // back 0: the last packet, 1: the one before
  const uint8_t* (*kernarg)(int back);
  const uint8_t* last_packet() { return packet(0); }
  const uint8_t* last_kernarg() { return kernarg(0); }
};

Fake fake;

std::string FakePath() {
  const char* root = std::getenv("TEST_SRCDIR");
  return std::string(root ? root : ".") + "/gg/tests/fake_hsa/libfake_hsa.so";
}

// Points gg at the stand-in before anything loads HSA, and binds the test hooks.
class FakeHsaEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string path = FakePath();
    setenv("GG_HSA_LIBRARY", path.c_str(), 1);
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    fake.configure = reinterpret_cast<decltype(fake.configure)>(dlsym(library, "test_configure"));
    fake.dispatches = reinterpret_cast<decltype(fake.dispatches)>(dlsym(library, "test_dispatches"));
    fake.bad_headers = reinterpret_cast<decltype(fake.bad_headers)>(dlsym(library, "test_bad_headers"));
    fake.initialised = reinterpret_cast<decltype(fake.initialised)>(dlsym(library, "test_initialised"));
    fake.live_allocations =
        reinterpret_cast<decltype(fake.live_allocations)>(dlsym(library, "test_live_allocations"));
    fake.packet = reinterpret_cast<decltype(fake.packet)>(dlsym(library, "test_packet"));
    fake.queue = reinterpret_cast<decltype(fake.queue)>(dlsym(library, "test_queue"));
    fake.pending_handlers =
        reinterpret_cast<decltype(fake.pending_handlers)>(dlsym(library, "test_pending_handlers"));
    fake.kernarg = reinterpret_cast<decltype(fake.kernarg)>(dlsym(library, "test_kernarg"));
    ASSERT_TRUE(fake.configure && fake.dispatches && fake.bad_headers && fake.initialised &&
                fake.live_allocations && fake.packet && fake.kernarg && fake.queue &&
                fake.pending_handlers);
  }
};

const ::testing::Environment* const environment =
    ::testing::AddGlobalTestEnvironment(new FakeHsaEnvironment);

std::string Message(gg_status status) {
  std::string text = gg_status_message(status);
  gg_status_free(status);
  return text;
}

gg_op_desc Desc(gg_layout layout, gg_target target) {
  return gg_test::ChipDesc(layout, target, 256, 512, 3);
}

struct CodeObject {
  std::vector<uint8_t> bytes;
  gg_code_object_info info;
};

CodeObject Compile(const gg_op_desc& d) {
  CodeObject out;
  gg_text text;
  gg_text_init(&text);
  gg_status status = gg_compile_emit(&d, GG_STAGE_BINARY, &text);
  EXPECT_EQ(status, GG_OK) << gg_status_message(status);
  out.bytes.assign(text.data, text.data + text.length);
  gg_text_free(&text);
  EXPECT_EQ(gg_code_object_read(out.bytes.data(), out.bytes.size(), &out.info), GG_OK);
  return out;
}

// Configures the stand-in as a GPU of `chip` whose loader reports the code object's sizes.
void Configure(const char* chip, const CodeObject& code, int fail = 0) {
  fake.configure(chip, code.info.kernel.kernarg_size, code.info.kernel.group_segment_size,
                 code.info.kernel.private_segment_size, fail);
}

struct Buffers {
  gg_hsa_device* device;
  void* pointers[GG_OPERAND_COUNT] = {};
  size_t sizes[GG_OPERAND_COUNT] = {};
  Buffers(gg_hsa_device* d, const gg_op_desc& desc, int64_t m) : device(d) {
    for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
      gg_operand_shape shape = gg_operand_shape_of(&desc, gg_operand(i), m);
      if (!shape.present) continue;
      sizes[i] = size_t(gg_operand_shape_numel(&shape)) * gg_dtype_size(shape.dtype) + 16;
      EXPECT_EQ(gg_hsa_alloc_shared(device, sizes[i], &pointers[i]), GG_OK);
      memset(pointers[i], 0xA5, sizes[i]);
    }
  }
  ~Buffers() {
    for (void* p : pointers) gg_hsa_free(device, p);
  }
};

TEST(FakeHsa, DeviceOpensAndCloses) {
  CodeObject code = Compile(Desc(GG_LAYOUT_SIZES, GG_TARGET_GFX950));
  Configure("gfx950", code);
  gg_hsa_device* device = nullptr;
  ASSERT_EQ(gg_hsa_device_open(0, &device), GG_OK);
  EXPECT_STREQ(gg_hsa_device_chip(device), "gfx950");
  EXPECT_EQ(gg_hsa_device_target(device), GG_TARGET_GFX950);
  EXPECT_EQ(fake.initialised(), 1);
  gg_hsa_device_close(device);
  EXPECT_EQ(fake.initialised(), 0) << "every hsa_init is matched by hsa_shut_down";
  EXPECT_EQ(fake.live_allocations(), 0);

  gg_hsa_device* second = nullptr;
  gg_status status = gg_hsa_device_open(1, &second);  // the stand-in has one GPU
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
  EXPECT_NE(Message(status).find("1 GPU agent"), std::string::npos);
  EXPECT_EQ(fake.initialised(), 0);
}

TEST(FakeHsa, LaunchPublishesPacketAndKernargs) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES, GG_TARGET_GFX950);
  CodeObject code = Compile(d);
  Configure("gfx950", code);
  gg_hsa_device* device;
  ASSERT_EQ(gg_hsa_device_open(0, &device), GG_OK);
  int baseline = fake.live_allocations();
  gg_hsa_kernel* kernel;
  ASSERT_EQ(gg_hsa_kernel_load(device, code.bytes.data(), code.bytes.size(), &kernel), GG_OK);
  {
    const int64_t m = 137;
    Buffers buffers(device, d, m);
    int before = fake.dispatches();
    gg_status status = gg_hsa_kernel_run(kernel, &d, buffers.pointers, m, 0);
    ASSERT_EQ(status, GG_OK) << gg_status_message(status);
    // Packed groups: the group ends kernel, then the kernel, each with the barrier bit.
    EXPECT_EQ(fake.dispatches(), before + 2);
    EXPECT_EQ(fake.bad_headers(), 0) << "header must be KERNEL_DISPATCH|barrier|system fences";

    const uint8_t* e = fake.packet(1);
    EXPECT_EQ(Le(e + 0, 2), 0x1502u);
    EXPECT_EQ(Le(e + 12, 4), 256u) << "one workgroup";
    EXPECT_EQ(Le(e + 16, 4), 1u);
    EXPECT_EQ(Le(e + 20, 4), 1u);
    EXPECT_EQ(Le(e + 32, 8), 0xC0DE0001u) << "the _group_ends kernel object";
    EXPECT_EQ(Le(e + 56, 8), 0u) << "only the last packet signals completion";

    const uint8_t* p = fake.last_packet();
    EXPECT_EQ(Le(p + 0, 2), 0x1502u);
    EXPECT_EQ(Le(p + 2, 2), 3u);
    EXPECT_EQ(Le(p + 4, 2), 256u);
    EXPECT_EQ(Le(p + 6, 2), 1u);
    EXPECT_EQ(Le(p + 8, 2), 1u);
    // Default tile 128x128: N 256 -> 2 column blocks of 256 threads; M tiles bounded by
    // 137 / 128 + G = 4 (surplus tiles retire on the device).
    EXPECT_EQ(Le(p + 12, 4), 2u * 256u);
    EXPECT_EQ(Le(p + 16, 4), 4u);
    EXPECT_EQ(Le(p + 20, 4), 1u);
    EXPECT_EQ(Le(p + 24, 4), code.info.kernel.private_segment_size);
    EXPECT_EQ(Le(p + 28, 4), code.info.kernel.group_segment_size);
    EXPECT_EQ(Le(p + 32, 8), 0xC0DE0000u);  // the stand-in's kernel object
    EXPECT_NE(Le(p + 40, 8), 0u);
    EXPECT_NE(Le(p + 56, 8), 0u) << "a completion signal";

    // The kernel arguments HSA received are the images gg_kernarg_build makes (whose bytes
    // runtime_test checks by hand), zero-padded, with the real buffer addresses and one
    // workspace both kernels share.
    uint64_t workspace = Le(fake.last_kernarg() + 320, 8);
    EXPECT_NE(workspace, 0u);
    EXPECT_EQ(Le(fake.kernarg(1) + 320, 8), workspace);
    const int64_t grid[3] = {2, 4, 1}, one[3] = {1, 1, 1};
    std::vector<uint8_t> want(code.info.kernel.kernarg_size);
    ASSERT_EQ(gg_kernarg_build(&code.info.kernel, &d, buffers.pointers, m,
                               reinterpret_cast<void*>(uintptr_t(workspace)), grid, want.data(),
                               want.size()),
              GG_OK);
    EXPECT_EQ(memcmp(fake.last_kernarg(), want.data(), want.size()), 0);
    ASSERT_EQ(gg_kernarg_build(&code.info.group_ends, &d, buffers.pointers, m,
                               reinterpret_cast<void*>(uintptr_t(workspace)), one, want.data(),
                               want.size()),
              GG_OK);
    EXPECT_EQ(memcmp(fake.kernarg(1), want.data(), want.size()), 0);
    EXPECT_EQ(Le(fake.last_kernarg() + 0, 8), uint64_t(uintptr_t(buffers.pointers[0])));
    EXPECT_EQ(Le(fake.last_kernarg() + 264, 8), uint64_t(uintptr_t(buffers.pointers[5])));
  }
  EXPECT_EQ(fake.live_allocations(), baseline)
      << "the kernarg blocks and the workspace are freed after the launch";
  gg_hsa_kernel_destroy(kernel);
  gg_hsa_device_close(device);
}

TEST(FakeHsa, CodeObjectForAnotherChipIsRefused) {
  CodeObject gfx942 = Compile(Desc(GG_LAYOUT_SIZES, GG_TARGET_GFX942));
  Configure("gfx950", gfx942);
  gg_hsa_device* device;
  ASSERT_EQ(gg_hsa_device_open(0, &device), GG_OK);
  gg_hsa_kernel* kernel = nullptr;
  gg_status status = gg_hsa_kernel_load(device, gfx942.bytes.data(), gfx942.bytes.size(), &kernel);
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_NE(Message(status).find("for gfx942; the device is gfx950"), std::string::npos);
  // A damaged one never reaches HSA either.
  std::vector<uint8_t> truncated(gfx942.bytes.begin(), gfx942.bytes.begin() + 1000);
  status = gg_hsa_kernel_load(device, truncated.data(), truncated.size(), &kernel);
  EXPECT_NE(status, GG_OK);
  gg_status_free(status);
  gg_hsa_device_close(device);
}

TEST(FakeHsa, ZeroFillCoversUnalignedOutputs) {
  // dynamic (padded) with zeroing: the output is zero-filled before the kernel runs.
  gg_op_desc d = Desc(GG_LAYOUT_PADDED, GG_TARGET_GFX950);
  CodeObject code = Compile(d);
  Configure("gfx950", code);
  gg_hsa_device* device;
  ASSERT_EQ(gg_hsa_device_open(0, &device), GG_OK);
  gg_hsa_kernel* kernel;
  ASSERT_EQ(gg_hsa_kernel_load(device, code.bytes.data(), code.bytes.size(), &kernel), GG_OK);
  const int64_t m = 5;
  Buffers buffers(device, d, m);
  // The output starts 2 bytes into its block: neither end is 4-byte aligned.
  uint8_t* block = static_cast<uint8_t*>(buffers.pointers[GG_OPERAND_OUT]);
  void* pointers[GG_OPERAND_COUNT];
  memcpy(pointers, buffers.pointers, sizeof pointers);
  pointers[GG_OPERAND_OUT] = block + 2;
  const size_t out_bytes = size_t(3 * 5 * 256) * 2;
  int before = fake.dispatches();
  ASSERT_EQ(gg_hsa_kernel_run(kernel, &d, pointers, m, 1), GG_OK);
  EXPECT_EQ(fake.dispatches(), before + 1);
  EXPECT_EQ(block[0], 0xA5);
  EXPECT_EQ(block[1], 0xA5);
  for (size_t i = 0; i < out_bytes; ++i) ASSERT_EQ(block[2 + i], 0) << "byte " << i;
  EXPECT_EQ(block[2 + out_bytes], 0xA5) << "written past the output";

  // A zero extent: zero-filled, nothing dispatched.
  gg_op_desc empty = d;
  empty.k = 0;
  memset(block, 0xA5, buffers.sizes[GG_OPERAND_OUT]);
  before = fake.dispatches();
  ASSERT_EQ(gg_hsa_kernel_run(kernel, &empty, pointers, m, 0), GG_OK);
  EXPECT_EQ(fake.dispatches(), before);
  for (size_t i = 0; i < out_bytes; ++i) ASSERT_EQ(block[2 + i], 0) << "byte " << i;
  gg_hsa_kernel_destroy(kernel);
  gg_hsa_device_close(device);
}

TEST(FakeHsa, QueueErrorBecomesStatus) {
  gg_op_desc d = Desc(GG_LAYOUT_BATCHED, GG_TARGET_GFX950);
  CodeObject code = Compile(d);
  Configure("gfx950", code, /*fail=*/1);
  gg_hsa_device* device;
  ASSERT_EQ(gg_hsa_device_open(0, &device), GG_OK);
  gg_hsa_kernel* kernel;
  ASSERT_EQ(gg_hsa_kernel_load(device, code.bytes.data(), code.bytes.size(), &kernel), GG_OK);
  {
    Buffers buffers(device, d, 64);
    gg_status status = gg_hsa_kernel_run(kernel, &d, buffers.pointers, 64, 0);
    ASSERT_NE(status, GG_OK);
    EXPECT_NE(Message(status).find("fake HSA: the kernel raised an exception"), std::string::npos);
    // The queue is dead: later launches fail at once and dispatch nothing.
    int before = fake.dispatches();
    status = gg_hsa_kernel_run(kernel, &d, buffers.pointers, 64, 0);
    ASSERT_NE(status, GG_OK);
    EXPECT_NE(Message(status).find("queue failed"), std::string::npos);
    EXPECT_EQ(fake.dispatches(), before);
  }
  gg_hsa_kernel_destroy(kernel);
  gg_hsa_device_close(device);
  Configure("gfx950", code, 0);
}

// The public API on kDLROCM tensors: checks, the GPU kernel compiled and loaded through the
// cache, and the launch.
TEST(FakeHsa, PublicApiLaunchesOnTheGpu) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES, GG_TARGET_GFX950);
  CodeObject code = Compile(d);
  Configure("gfx950", code);
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context;
  ASSERT_EQ(gg_context_create(&options, &context), GG_OK);
  gg_target target;
  ASSERT_EQ(gg_context_gpu_target(context, &target), GG_OK);
  EXPECT_EQ(target, GG_TARGET_GFX950);

  const int64_t total_m = 137, n = 256, k = 512, g = 3;
  int64_t a_shape[2] = {total_m, k}, b_shape[3] = {g, n, k}, as_shape[1] = {total_m},
          bs_shape[2] = {g, n}, meta_shape[1] = {g}, out_shape[2] = {total_m, n};
  void *a, *b, *as, *bs, *meta, *out;
  ASSERT_EQ(gg_context_gpu_alloc(context, total_m * k, &a), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, g * n * k, &b), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, total_m * 4, &as), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, g * n * 4, &bs), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, g * 8, &meta), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, total_m * n * 2, &out), GG_OK);
  memset(out, 0x5A, total_m * n * 2);
  DLDevice gpu = {kDLROCM, 0};
  DLTensor A = {a, gpu, 2, {GG_DL_FLOAT8_E4M3FN, 8, 1}, a_shape, nullptr, 0};
  DLTensor B = {b, gpu, 3, {GG_DL_FLOAT8_E4M3FN, 8, 1}, b_shape, nullptr, 0};
  DLTensor AS = {as, gpu, 1, {kDLFloat, 32, 1}, as_shape, nullptr, 0};
  DLTensor BS = {bs, gpu, 2, {kDLFloat, 32, 1}, bs_shape, nullptr, 0};
  DLTensor META = {meta, gpu, 1, {kDLInt, 64, 1}, meta_shape, nullptr, 0};
  DLTensor OUT = {out, gpu, 2, {kDLBfloat, 16, 1}, out_shape, nullptr, 0};

  int before = fake.dispatches();
  gg_status status = gg_f8f8bf16_rowwise_grouped_stacked(context, &A, &B, &AS, &BS, &META, &OUT);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  EXPECT_EQ(fake.dispatches(), before + 2);  // the group ends, then the GEMM
  EXPECT_EQ(Le(fake.last_kernarg() + 0, 8), uint64_t(uintptr_t(a)));
  EXPECT_EQ(Le(fake.last_kernarg() + 224, 8), uint64_t(uintptr_t(meta)));
  EXPECT_EQ(Le(fake.last_kernarg() + 264, 8), uint64_t(uintptr_t(out)));
  EXPECT_EQ(Le(fake.last_kernarg() + 288, 8), uint64_t(total_m));

  // gfx950 takes e4m3fn: e4m3fnuz operands are refused before anything is launched.
  DLTensor A_fnuz = A, B_fnuz = B;
  A_fnuz.dtype.code = B_fnuz.dtype.code = GG_DL_FLOAT8_E4M3FNUZ;
  before = fake.dispatches();
  status = gg_f8f8bf16_rowwise_grouped_stacked(context, &A_fnuz, &B_fnuz, &AS, &BS, &META, &OUT);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(Message(status).find("gfx950 takes float8_e4m3fn"), std::string::npos);
  // A tensor on another GPU.
  DLTensor OUT1 = OUT;
  OUT1.device.device_id = 1;
  status = gg_f8f8bf16_rowwise_grouped_stacked(context, &A, &B, &AS, &BS, &META, &OUT1);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(Message(status).find("ROCM:1"), std::string::npos);
  EXPECT_EQ(fake.dispatches(), before);
  for (int64_t i = 0; i < total_m * n * 2; ++i)
    ASSERT_EQ(static_cast<uint8_t*>(out)[i], 0x5A) << "the stand-in writes nothing, nor may gg";

  for (void* p : {a, b, as, bs, meta, out}) gg_context_gpu_free(context, p);
  gg_context_destroy(context);
}

// Calls the stacked rowwise entry point on GPU tensors of total_m rows in g groups (the
// stand-in runs nothing; the packet is what counts) and returns its status.
gg_status LaunchStacked(gg_context* context, int64_t total_m, int64_t n, int64_t k, int64_t g) {
  int64_t a_shape[2] = {total_m, k}, b_shape[3] = {g, n, k}, as_shape[1] = {total_m},
          bs_shape[2] = {g, n}, meta_shape[1] = {g}, out_shape[2] = {total_m, n};
  int64_t bytes[6] = {total_m * k, g * n * k, total_m * 4, g * n * 4, g * 8, total_m * n * 2};
  void* p[6] = {};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(gg_context_gpu_alloc(context, bytes[i], &p[i]), GG_OK);
  DLDevice gpu = {kDLROCM, 0};
  DLTensor A = {p[0], gpu, 2, {GG_DL_FLOAT8_E4M3FN, 8, 1}, a_shape, nullptr, 0};
  DLTensor B = {p[1], gpu, 3, {GG_DL_FLOAT8_E4M3FN, 8, 1}, b_shape, nullptr, 0};
  DLTensor AS = {p[2], gpu, 1, {kDLFloat, 32, 1}, as_shape, nullptr, 0};
  DLTensor BS = {p[3], gpu, 2, {kDLFloat, 32, 1}, bs_shape, nullptr, 0};
  DLTensor META = {p[4], gpu, 1, {kDLInt, 64, 1}, meta_shape, nullptr, 0};
  DLTensor OUT = {p[5], gpu, 2, {kDLBfloat, 16, 1}, out_shape, nullptr, 0};
  gg_status status = gg_f8f8bf16_rowwise_grouped_stacked(context, &A, &B, &AS, &BS, &META, &OUT);
  for (void* q : p) gg_context_gpu_free(context, q);
  return status;
}

// With no tile named, the entry points take the model's tile at large M
// (gg_tile_config_for): on gfx950 rowwise, 128x256x128 from 256 rows per group on.
TEST(FakeHsa, LargeMTakesTheModelsTile) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES, GG_TARGET_GFX950);
  gg_tile_config large = gg_tile_config_for(&d, GG_LARGE_M_ROWS);
  EXPECT_EQ(large.m, 128);
  EXPECT_EQ(large.n, 256);
  EXPECT_EQ(large.waves_per_eu, 1);
  d.tile = large;
  Configure("gfx950", Compile(d));
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context;
  ASSERT_EQ(gg_context_create(&options, &context), GG_OK);
  // 3 groups of 300 rows: N 256 is one column block; M tiles bounded by 900 / 128 + G = 10.
  gg_status status = LaunchStacked(context, 900, 256, 512, 3);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  EXPECT_EQ(Le(fake.last_packet() + 12, 4), 256u);
  EXPECT_EQ(Le(fake.last_packet() + 16, 4), 10u);
  // 3 groups of 80 rows: the default 128x128: 2 column blocks, 240 / 128 + 3 = 4 M tiles.
  status = LaunchStacked(context, 240, 256, 512, 3);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  EXPECT_EQ(Le(fake.last_packet() + 12, 4), 2u * 256u);
  EXPECT_EQ(Le(fake.last_packet() + 16, 4), 4u);
  gg_context_destroy(context);
}

TEST(TileForShape, FollowsTheModelOnAmdAtLargeM) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_GFX942, 4096, 7168, 8);
  gg_tile_config t = gg_tile_config_for(&d, 2048);
  EXPECT_EQ(t.m, 256);  // gfx942 rowwise: 256x128
  EXPECT_EQ(t.n, 128);
  d.scaling = GG_SCALING_BLOCKWISE;
  t = gg_tile_config_for(&d, 2048);
  EXPECT_EQ(t.m, 128);  // blockwise: 128x256
  EXPECT_EQ(t.n, 256);
  t = gg_tile_config_for(&d, GG_LARGE_M_ROWS - 1);
  EXPECT_EQ(t.m, 128);  // small M: the default
  EXPECT_EQ(t.n, 128);
  EXPECT_EQ(t.waves_per_eu, 2);
  // Preshuffled B takes the same tiles (its 256-wide tiles model as well as plain B's),
  // but only tile_n that divide N.
  d.b_layout = GG_B_PRESHUFFLED;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).n, 256) << "preshuffled blockwise: 128x256";
  d.n = 4096 + 128;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).n, 128) << "preshuffled B needs tile_n to divide N";
  d.n = 4096;
  d.scaling = GG_SCALING_ROWWISE;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).m, 256) << "preshuffled rowwise: 256x128";
  d.scaling = GG_SCALING_BLOCKWISE;
  d.b_layout = GG_B_PLAIN;
  d.n = 192;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).n, 128) << "N below 256 keeps 128 columns";
  d.target = GG_TARGET_HOST;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).m, 128) << "the host keeps the default";
}

// K = 0 through the public API on the GPU path: the kernel compiles (it used to fail with
// "the grid holds no mma"), the output is zero-filled, and nothing is dispatched.
TEST(FakeHsa, ZeroKThroughThePublicApi) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES, GG_TARGET_GFX950);
  d.k = 0;
  CodeObject code = Compile(d);
  Configure("gfx950", code);
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context;
  ASSERT_EQ(gg_context_create(&options, &context), GG_OK);
  const int64_t total_m = 37, n = 256, g = 3;
  int64_t a_shape[2] = {total_m, 0}, b_shape[3] = {g, n, 0}, as_shape[1] = {total_m},
          bs_shape[2] = {g, n}, meta_shape[1] = {g}, out_shape[2] = {total_m, n};
  void *a, *b, *as, *bs, *meta, *out;
  ASSERT_EQ(gg_context_gpu_alloc(context, 16, &a), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, 16, &b), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, total_m * 4, &as), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, g * n * 4, &bs), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, g * 8, &meta), GG_OK);
  ASSERT_EQ(gg_context_gpu_alloc(context, total_m * n * 2, &out), GG_OK);
  memset(out, 0x5A, total_m * n * 2);
  DLDevice gpu = {kDLROCM, 0};
  DLTensor A = {a, gpu, 2, {GG_DL_FLOAT8_E4M3FN, 8, 1}, a_shape, nullptr, 0};
  DLTensor B = {b, gpu, 3, {GG_DL_FLOAT8_E4M3FN, 8, 1}, b_shape, nullptr, 0};
  DLTensor AS = {as, gpu, 1, {kDLFloat, 32, 1}, as_shape, nullptr, 0};
  DLTensor BS = {bs, gpu, 2, {kDLFloat, 32, 1}, bs_shape, nullptr, 0};
  DLTensor META = {meta, gpu, 1, {kDLInt, 64, 1}, meta_shape, nullptr, 0};
  DLTensor OUT = {out, gpu, 2, {kDLBfloat, 16, 1}, out_shape, nullptr, 0};
  int before = fake.dispatches();
  gg_status status = gg_f8f8bf16_rowwise_grouped_stacked(context, &A, &B, &AS, &BS, &META, &OUT);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  EXPECT_EQ(fake.dispatches(), before);
  for (int64_t i = 0; i < total_m * n * 2; ++i)
    ASSERT_EQ(static_cast<uint8_t*>(out)[i], 0) << "byte " << i << " not zero-filled";
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.compiles, 1u);
  for (void* p : {a, b, as, bs, meta, out}) gg_context_gpu_free(context, p);
  gg_context_destroy(context);
}

// Asynchronous: the packets go on the caller's queue and the call returns; the caller's
// completion signal drops by one when the kernels are done; the launch's memory is
// released afterwards. What needs a host-side zero fill is refused, writing nothing.
TEST(FakeHsa, AsyncLaunchOnTheCallersQueue) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES, GG_TARGET_GFX950);
  CodeObject code = Compile(d);
  Configure("gfx950", code);
  gg_hsa_device* device;
  ASSERT_EQ(gg_hsa_device_open(0, &device), GG_OK);
  int baseline = fake.live_allocations();
  gg_hsa_kernel* kernel;
  ASSERT_EQ(gg_hsa_kernel_load(device, code.bytes.data(), code.bytes.size(), &kernel), GG_OK);
  {
    const int64_t m = 137;
    Buffers buffers(device, d, m);
    // The caller's signal: the stand-in's signals are a counter (and a doorbell flag).
    alignas(8) int64_t user_signal[2] = {1, 0};
    int before = fake.dispatches();
    gg_status status = gg_hsa_kernel_launch(kernel, &d, buffers.pointers, m, 0, fake.queue(),
                                            uint64_t(uintptr_t(user_signal)));
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.dispatches(), before + 2);
    EXPECT_EQ(user_signal[0], 0) << "the caller's signal drops when the kernels are done";
    EXPECT_EQ(fake.pending_handlers(), 0);
    EXPECT_NE(Le(fake.last_packet() + 56, 8), 0u) << "gg's own completion signal";
    // Refused: padded with zeroing would need the output cleared in queue order.
    gg_op_desc padded = Desc(GG_LAYOUT_PADDED, GG_TARGET_GFX950);
    before = fake.dispatches();
    status = gg_hsa_kernel_launch(kernel, &padded, buffers.pointers, 4, 1, nullptr, 0);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(Message(status).find("cannot zero-fill the output in queue order"), std::string::npos);
    EXPECT_EQ(fake.dispatches(), before);
    // An empty output: nothing to launch, done at once.
    user_signal[0] = 1;
    ASSERT_EQ(gg_hsa_kernel_launch(kernel, &d, buffers.pointers, 0, 0, nullptr,
                                   uint64_t(uintptr_t(user_signal))),
              GG_OK);
    EXPECT_EQ(user_signal[0], 0);
    EXPECT_EQ(fake.dispatches(), before);
  }
  EXPECT_EQ(fake.live_allocations(), baseline)
      << "the finished launch's kernel arguments and workspace were released";
  gg_hsa_kernel_destroy(kernel);
  gg_hsa_device_close(device);
}

}  // namespace
