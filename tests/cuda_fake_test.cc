// runtime/cuda.c and the API's CUDA path driven end to end against a CPU stand-in for the
// driver (tests/fake_cuda): device discovery, module loading (a real sm_90a module from
// the compiler), the tensor maps and parameters a launch hands the driver byte for byte,
// the launch's grid, block, shared memory and stream, zero extents, the caller's stream
// passed through without a host synchronisation, graph capture, and driver errors
// becoming statuses. The stand-in runs no kernel; the H200 check (tools/hopper) runs them.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/target.h"
#include "gg/gg.h"
#include "runtime/cuda.h"
#include "runtime/tune.h"
#include "tuning/shipped.h"
#include "tests/reference/problem.h"
#include "tests/support/context.h"
#include "tests/support/desc.h"
#include "tests/support/dl.h"
#include "tests/support/fake_cuda.h"
#include "tests/support/log.h"

namespace {

gg_op_desc Desc(gg_layout layout) {
  gg_op_desc d = gg_test::ChipDesc(layout, GG_TARGET_SM90A, 256, 512, 3);
  return gg_op_desc_with_defaults(&d);
}

std::vector<char> Module(const gg_op_desc& d) {
  gg_text text;
  gg_text_init(&text);
  gg_status status = gg_compile_artifact(&d, &text);
  EXPECT_EQ(status, GG_OK) << Message(status);
  std::vector<char> bytes(text.data, text.data + text.length);
  gg_text_free(&text);
  return bytes;
}

TensorMapRecord MapOf(const LaunchRecord* r, int which) {
  TensorMapRecord t;
  memcpy(&t, r->params[which], sizeof t);
  return t;
}

uint64_t U64(const LaunchRecord* r, int which) {
  uint64_t v;
  memcpy(&v, r->params[which], 8);
  return v;
}

TEST(FakeCuda, DeviceOpensAsHopperAndReleasesItsContext) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES);
  Configure(d);
  gg_cuda_device* device = nullptr;
  ASSERT_EQ(gg_cuda_device_open(0, &device), GG_OK);
  EXPECT_STREQ(gg_cuda_device_name(device), "Fake H200");
  EXPECT_EQ(gg_cuda_device_target(device), GG_TARGET_SM90A);
  EXPECT_EQ(fake.retained(), 1);
  gg_cuda_device_close(device);
  EXPECT_EQ(fake.retained(), 0) << "the primary context is released";

  gg_cuda_device* second = nullptr;
  gg_status status = gg_cuda_device_open(1, &second);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
  EXPECT_NE(Message(status).find("no CUDA device 1: the driver reports 1"), std::string::npos);
}

TEST(FakeCuda, AnotherArchitectureIsRefusedWithItsName) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES);
  std::vector<char> module = Module(d);
  Configure(d, 8, 0);
  gg_cuda_device* device;
  ASSERT_EQ(gg_cuda_device_open(0, &device), GG_OK);
  EXPECT_EQ(gg_cuda_device_target(device), GG_TARGET_HOST);
  char name[256];
  gg_op_desc_kernel_name(&d, name, sizeof name);
  gg_cuda_kernel* kernel = nullptr;
  gg_status status = gg_cuda_kernel_load(device, module.data(), module.size(), name, &d, &kernel);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
  EXPECT_NE(Message(status).find("compute capability 8.0"), std::string::npos);
  EXPECT_EQ(kernel, nullptr);
  gg_cuda_device_close(device);
}

TEST(FakeCuda, LaunchHandsTheDriverTensorMapsAndMemrefs) {
  for (gg_layout layout : {GG_LAYOUT_SIZES, GG_LAYOUT_BATCHED, GG_LAYOUT_K_OFFSETS}) {
    gg_op_desc d = Desc(layout);
    if (layout == GG_LAYOUT_K_OFFSETS) d.k = 768;
    std::vector<char> module = Module(d);
    Configure(d);
    gg_cuda_device* device;
    ASSERT_EQ(gg_cuda_device_open(0, &device), GG_OK);
    char name[256];
    gg_op_desc_kernel_name(&d, name, sizeof name);
    gg_cuda_kernel* kernel = nullptr;
    gg_status status = gg_cuda_kernel_load(device, module.data(), module.size(), name, &d, &kernel);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.max_dynamic_shared(), gg_sm90_dynamic_shared_bytes(&d));
    EXPECT_EQ(gg_cuda_kernel_registers(kernel), 168);
    const int64_t m = 300;
    {
      DeviceBuffers buffers(device, d, m);
      int before = fake.launches(), syncs = fake.synchronizes();
      void* stream = reinterpret_cast<void*>(uintptr_t(0x5eed));
      status = gg_cuda_kernel_launch(kernel, &d, buffers.pointers, m, 0, stream);
      ASSERT_EQ(status, GG_OK) << Message(status);
      ASSERT_EQ(fake.launches(), before + 1);
      EXPECT_EQ(fake.synchronizes(), syncs) << "a launch never waits";
      EXPECT_EQ(fake.context_depth(), 0) << "the caller's context stack is left as it was";
      const LaunchRecord* r = fake.launch(0);
      EXPECT_EQ(r->stream, stream);
      // Persistent CTAs: one per tile of the virtual grid, at most one per SM (132 here).
      gg_grid_dim_rule rules[3];
      gg_grid_rules(&d, rules);
      int64_t tiles = 1;
      for (int i = 0; i < 3; ++i) tiles *= gg_grid_dim(&rules[i], m);
      EXPECT_EQ(r->grid[0], unsigned(tiles < 132 ? tiles : 132));
      EXPECT_EQ(r->grid[1], 1u);
      EXPECT_EQ(r->grid[2], 1u);
      EXPECT_EQ(int64_t(r->grid[0]), gg_sm90_launch_ctas(&d, m, 132));
      EXPECT_EQ(r->block[0], 384u);
      EXPECT_EQ(r->block[1], 1u);
      EXPECT_EQ(r->shared, unsigned(gg_sm90_dynamic_shared_bytes(&d)));
      // A: [rows, K] bytes in 128 x tile_m boxes, B in 128 x tile_n, then A again in
      // 128 x 32 (for tiles of few rows); 128-byte swizzle, zero fill past the edges.
      ASSERT_EQ(GG_SM90_TENSOR_MAPS, 3);
      const unsigned box_rows[3] = {unsigned(d.tile.m), unsigned(d.tile.n), 32u};
      for (int which = 0; which < GG_SM90_TENSOR_MAPS; ++which) {
        gg_operand operand = which == 1 ? GG_OPERAND_B : GG_OPERAND_A;
        gg_operand_shape shape = gg_operand_shape_of(&d, operand, m);
        TensorMapRecord t = MapOf(r, which);
        EXPECT_EQ(t.address, buffers.pointers[operand]);
        EXPECT_EQ(t.rank, 2u);
        EXPECT_EQ(t.data_type, 0) << "UINT8";
        EXPECT_EQ(t.dims[0], uint64_t(d.k));
        EXPECT_EQ(t.dims[1], uint64_t(gg_operand_shape_numel(&shape) / d.k));
        EXPECT_EQ(t.strides[0], uint64_t(d.k));
        EXPECT_EQ(t.box[0], 128u);
        EXPECT_EQ(t.box[1], box_rows[which]) << "map " << which << "; 128 columns: A in one box";
        EXPECT_EQ(t.swizzle, 3) << "128B";
        EXPECT_EQ(t.oob, 0) << "zero fill";
      }
      uint64_t values[GG_MAX_OPERAND_ARGS];
      size_t count = gg_operand_arg_values(&d, buffers.pointers, m, values, nullptr, GG_MAX_OPERAND_ARGS);
      ASSERT_EQ(size_t(r->param_count), 3 + count);
      for (size_t i = 0; i < count; ++i) EXPECT_EQ(U64(r, int(3 + i)), values[i]) << "field " << i;
      EXPECT_EQ(U64(r, 3), uint64_t(uintptr_t(buffers.pointers[GG_OPERAND_A])));
      // The maps are kept: launching on the same tensors again encodes nothing; other
      // tensors are encoded and get their own maps.
      int encodes = fake.encodes();
      ASSERT_EQ(gg_cuda_kernel_launch(kernel, &d, buffers.pointers, m, 0, stream), GG_OK);
      EXPECT_EQ(fake.encodes(), encodes);
      EXPECT_EQ(memcmp(fake.launch(0)->params[0], fake.launch(1)->params[0], 128), 0);
      DeviceBuffers other(device, d, m);
      ASSERT_EQ(gg_cuda_kernel_launch(kernel, &d, other.pointers, m, 0, stream), GG_OK);
      EXPECT_EQ(fake.encodes(), encodes + 3);
      EXPECT_EQ(MapOf(fake.launch(0), 0).address, other.pointers[GG_OPERAND_A]);
      EXPECT_EQ(MapOf(fake.launch(0), 1).address, other.pointers[GG_OPERAND_B]);
      EXPECT_EQ(MapOf(fake.launch(0), 2).address, other.pointers[GG_OPERAND_A]);
    }
    gg_cuda_kernel_destroy(kernel);
    gg_cuda_device_close(device);
    EXPECT_EQ(fake.live_allocations(), 0);
  }
}

TEST(FakeCuda, ZeroExtentsClearTheOutputOnTheStreamAndLaunchNothing) {
  void* stream = reinterpret_cast<void*>(uintptr_t(0xab));
  for (int64_t k : {0, 512}) {
    // K = 0: the output is zero-filled on the caller's stream and nothing is launched.
    // Padded with zeroing: the output is cleared on the stream, then the kernel runs.
    gg_op_desc d = Desc(k ? GG_LAYOUT_PADDED : GG_LAYOUT_SIZES);
    d.k = k;
    std::vector<char> module = Module(d);
    Configure(d);
    gg_cuda_device* device;
    ASSERT_EQ(gg_cuda_device_open(0, &device), GG_OK);
    char name[256];
    gg_op_desc_kernel_name(&d, name, sizeof name);
    gg_cuda_kernel* kernel;
    gg_status status = gg_cuda_kernel_load(device, module.data(), module.size(), name, &d, &kernel);
    ASSERT_EQ(status, GG_OK) << Message(status);
    {
      const int64_t m = 40;
      DeviceBuffers buffers(device, d, m);
      int launches = fake.launches(), memsets = fake.memsets();
      ASSERT_EQ(gg_cuda_kernel_launch(kernel, &d, buffers.pointers, m, 1, stream), GG_OK);
      EXPECT_EQ(fake.memsets(), memsets + 1);
      EXPECT_EQ(fake.last_memset_stream(), stream);
      gg_operand_shape out = gg_operand_shape_of(&d, GG_OPERAND_OUT, m);
      EXPECT_EQ(fake.last_memset_bytes(), size_t(gg_operand_shape_numel(&out) * 2));
      EXPECT_EQ(fake.launches(), launches + (k ? 1 : 0));
      // An empty output: nothing to clear, nothing to launch.
      ASSERT_EQ(gg_cuda_kernel_launch(kernel, &d, buffers.pointers, 0, 1, stream), GG_OK);
      EXPECT_EQ(fake.memsets(), memsets + 1);
      EXPECT_EQ(fake.launches(), launches + (k ? 1 : 0));
    }
    gg_cuda_kernel_destroy(kernel);
    gg_cuda_device_close(device);
  }
}

TEST(FakeCuda, RefusalsComeBeforeAnyWrite) {
  gg_op_desc d = Desc(GG_LAYOUT_SIZES);
  std::vector<char> module = Module(d);
  Configure(d);
  gg_cuda_device* device;
  ASSERT_EQ(gg_cuda_device_open(0, &device), GG_OK);
  char name[256];
  gg_op_desc_kernel_name(&d, name, sizeof name);
  gg_cuda_kernel* kernel;
  ASSERT_EQ(gg_cuda_kernel_load(device, module.data(), module.size(), name, &d, &kernel), GG_OK);
  {
    const int64_t m = 64;
    DeviceBuffers buffers(device, d, m);
    void* pointers[GG_OPERAND_COUNT];
    memcpy(pointers, buffers.pointers, sizeof pointers);
    pointers[GG_OPERAND_B] = static_cast<char*>(pointers[GG_OPERAND_B]) + 8;
    int launches = fake.launches(), memsets = fake.memsets();
    gg_status status = gg_cuda_kernel_launch(kernel, &d, pointers, m, 0, nullptr);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(Message(status).find("B through TMA: its data must be 16-byte aligned"),
              std::string::npos);
    // A driver failure becomes a status naming the call and the driver's error.
    fake.fail("cuLaunchKernelEx", 700);
    status = gg_cuda_kernel_launch(kernel, &d, buffers.pointers, m, 0, nullptr);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INTERNAL);
    std::string message = Message(status);
    EXPECT_NE(message.find("cuLaunchKernelEx failed: CUDA_ERROR_ILLEGAL_ADDRESS (700)"),
              std::string::npos)
        << message;
    EXPECT_EQ(fake.launches(), launches);
    EXPECT_EQ(fake.memsets(), memsets);
    EXPECT_EQ(fake.context_depth(), 0);
  }
  // A module the driver refuses, and a name it lacks.
  gg_cuda_kernel* other = nullptr;
  const char junk[] = "not a module";
  gg_status status = gg_cuda_kernel_load(device, junk, sizeof junk, name, &d, &other);
  EXPECT_NE(Message(status).find("CUDA_ERROR_INVALID_IMAGE"), std::string::npos);
  status = gg_cuda_kernel_load(device, module.data(), module.size(), "gg_no_such_kernel", &d, &other);
  EXPECT_NE(Message(status).find("CUDA_ERROR_NOT_FOUND"), std::string::npos);
  EXPECT_EQ(other, nullptr);
  gg_cuda_kernel_destroy(kernel);
  gg_cuda_device_close(device);
}

// The public API: kDLCUDA tensors, the caller's stream, the synchronous convenience path,
// and capture into a graph that replays the launch.
TEST(FakeCuda, ApiLaunchesOnTheCallersStream) {
  {
    StackedCall c;
    MakeStackedCall(Desc(GG_LAYOUT_SIZES), 7, &c);
    if (HasFatalFailure()) return;
    gg_context* context = c.context;
    gg_cuda_device* device = c.device;
    gg_grouped_gemm_call& call = c.call;
    // Synchronous: one launch, then the stream is waited for.
    int launches = fake.launches(), syncs = fake.synchronizes();
    gg_status status = gg_grouped_gemm(context, &call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launches(), launches + 1);
    EXPECT_EQ(fake.synchronizes(), syncs + 1);
    // Asynchronous on the caller's stream: no wait.
    gg_launch_options launch = {reinterpret_cast<void*>(uintptr_t(0xca11e5)), 0};
    call.launch = &launch;
    status = gg_grouped_gemm(context, &call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launches(), launches + 2);
    EXPECT_EQ(fake.synchronizes(), syncs + 1);
    EXPECT_EQ(fake.launch(0)->stream, launch.stream);
    // Captured into a graph: nothing runs until the graph is launched, twice here.
    void* stream;
    ASSERT_EQ(gg_cuda_stream_create(device, &stream), GG_OK);
    launch.stream = stream;
    ASSERT_EQ(gg_cuda_capture_begin(device, stream), GG_OK);
    ASSERT_EQ(gg_grouped_gemm(context, &call), GG_OK);
    void* graph;
    ASSERT_EQ(gg_cuda_capture_end(device, stream, &graph), GG_OK);
    EXPECT_EQ(fake.launches(), launches + 2) << "captured, not run";
    ASSERT_EQ(gg_cuda_graph_launch(device, graph, stream), GG_OK);
    ASSERT_EQ(gg_cuda_graph_launch(device, graph, stream), GG_OK);
    EXPECT_EQ(fake.launches(), launches + 4);
    EXPECT_EQ(fake.launch(0)->captured, 1);
    EXPECT_EQ(fake.launch(0)->stream, stream);
    gg_cuda_graph_destroy(device, graph);
    gg_cuda_stream_destroy(device, stream);
    // Fast accumulation is its own kernel.
    call.accum = GG_ACCUM_FAST;
    call.launch = nullptr;
    ASSERT_EQ(gg_grouped_gemm(context, &call), GG_OK);
    gg_cache_stats stats;
    gg_context_cache_stats(context, &stats);
    EXPECT_EQ(stats.compiles, 2u);
  }
  EXPECT_EQ(fake.retained(), 0);
  EXPECT_EQ(fake.live_allocations(), 0);
}

// The tile the entry points take on sm_90a with none named (gg_tile_config_for): 128x256
// in fast rowwise mode where N is at least 2048 and there is a row per group (or N is at
// least 8192), as measured on an H200; the default 128x128 otherwise.
TEST(TileForShape, Sm90aTakesTheWideTileInFastRowwiseMode) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 4096, 7168, 8);
  d.accum = GG_ACCUM_FAST;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).n, 256);
  EXPECT_EQ(gg_tile_config_for(&d, 1).n, 256);
  EXPECT_EQ(gg_tile_config_for(&d, 0).n, 128) << "one busy expert: 16 CTAs of 256 columns";
  EXPECT_EQ(gg_tile_config_for(&d, 2048).m, 128);
  d.n = 8192;
  EXPECT_EQ(gg_tile_config_for(&d, 0).n, 256) << "32 CTAs of 256 columns";
  d.n = 1280;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).n, 128) << "narrow N";
  d.n = 4096;
  d.accum = GG_ACCUM_PROMOTED;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).n, 128) << "promoted needs a second accumulator set";
  d.accum = GG_ACCUM_FAST;
  d.scaling = GG_SCALING_BLOCKWISE;
  EXPECT_EQ(gg_tile_config_for(&d, 2048).n, 128) << "blockwise is promoted";
}

// Persistent CTAs: one per tile of the virtual grid (N / tile_n x (M / tile_m + G) for
// packed rows, G slices of M / tile_m x N / tile_n for batched ones), at most one per SM.
TEST(LaunchCtas, OnePerTileAtMostOnePerSm) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 4096, 7168, 8);
  d.tile.m = 128, d.tile.n = 256, d.tile.k = 128;
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 1, 132), 16 * (0 + 8)) << "one row: 8 tile rows of 16 tiles";
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 16, 132), 128);
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 1024, 132), 132) << "16 x 16 tiles, 132 SMs";
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 16384, 132), 132);
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 16384, 78), 78) << "a smaller part of the GPU";
  gg_op_desc b = gg_test::ChipDesc(GG_LAYOUT_BATCHED, GG_TARGET_SM90A, 256, 512, 3);
  b.tile.m = 128, b.tile.n = 128, b.tile.k = 128;
  EXPECT_EQ(gg_sm90_launch_ctas(&b, 130, 132), 3 * 2 * 2) << "3 slices of 2 x 2 tiles";
}

// Split-K: one CTA per tile and share of its K, in whole clusters, at most the resident
// CTAs (the SMs, or the clusters the device holds at once times their size).
TEST(LaunchCtas, SplitKGivesWholeClusters) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 1280, 8192, 8);
  d.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, 4};
  EXPECT_EQ(gg_sm90_split_k(&d), 4);
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 1, 132), 132) << "10 x 8 virtual tiles, 4 CTAs each";
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 1, 116), 116) << "29 clusters of 4 fit at once";
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 1, 118), 116) << "whole clusters only";
  d.tile.split_k = 3;
  EXPECT_EQ(gg_sm90_launch_ctas(&d, 1, 116), 114);
  gg_op_desc b = gg_test::ChipDesc(GG_LAYOUT_BATCHED, GG_TARGET_SM90A, 256, 4096, 3);
  b.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, 2};
  EXPECT_EQ(gg_sm90_launch_ctas(&b, 130, 132), 3 * 2 * 2 * 2) << "3 slices of 2 x 2 tiles, 2 CTAs each";
  // A 256-row tile: a cluster of two CTAs on its halves.
  b.tile = {256, 128, 128, 0, GG_LOOP_ROLLED, 1};
  EXPECT_EQ(gg_sm90_cluster_ctas(&b), 2);
  EXPECT_EQ(gg_sm90_launch_ctas(&b, 130, 132), 3 * 1 * 2 * 2) << "3 slices of 1 x 2 tiles, 2 CTAs each";
  EXPECT_EQ(gg_sm90_launch_ctas(&b, 16384, 131), 130) << "whole clusters only";
}

// The split the entry points take (gg_sm90_split_k_for), by hand: of the splits whose
// clusters an H200 holds for every tile that can hold rows in one round (132, 66, 39 and
// 30 clusters of 1 to 4 CTAs) with shares of at least the ring's 4 stages, the one with
// the most CTAs.
TEST(SplitKForShape, TheSplitThatKeepsTheMostSMsBusyInOneRound) {
  EXPECT_EQ(gg_sm90_planned_clusters(1), 132);
  EXPECT_EQ(gg_sm90_planned_clusters(2), 66);
  EXPECT_EQ(gg_sm90_planned_clusters(3), 39);
  EXPECT_EQ(gg_sm90_planned_clusters(4), 30);
  EXPECT_EQ(gg_sm90_planned_clusters(5), 0);
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 1280, 8192, 8);
  d.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, 0};
  EXPECT_EQ(gg_sm90_split_k_for(&d, 1), 4) << "10 tiles: 40 CTAs";
  EXPECT_EQ(gg_sm90_split_k_for(&d, 3), 4) << "three busy groups: 30 tiles, 30 clusters of 4";
  EXPECT_EQ(gg_sm90_split_k_for(&d, 4), 2) << "40 tiles: one more than 39 clusters of 3";
  EXPECT_EQ(gg_sm90_split_k_for(&d, 6), 2) << "60 tiles";
  EXPECT_EQ(gg_sm90_split_k_for(&d, 7), 1) << "70 tiles: more than 66 pairs";
  EXPECT_EQ(gg_sm90_split_k_for(&d, 16), 1) << "8 busy groups of 10 tiles";
  d.k = 2048;
  EXPECT_EQ(gg_sm90_split_k_for(&d, 1), 4) << "16 K tiles: four shares of 4";
  d.k = 1024;
  EXPECT_EQ(gg_sm90_split_k_for(&d, 1), 2) << "8 K tiles: two shares of 4";
  d.k = 512;
  EXPECT_EQ(gg_sm90_split_k_for(&d, 1), 1) << "4 K tiles: a share of 2 is shorter than the ring";
  d.n = 8192, d.k = 3584, d.tile.n = 256;
  EXPECT_EQ(gg_sm90_split_k_for(&d, 1), 3) << "32 tiles of 256 columns: 4 would take two rounds";
  d.n = 16384, d.k = 2048;
  EXPECT_EQ(gg_sm90_split_k_for(&d, 1), 2) << "64 tiles";
  gg_op_desc s = gg_test::ChipDesc(GG_LAYOUT_BATCHED, GG_TARGET_SM90A, 1280, 8192, 8);
  EXPECT_EQ(gg_sm90_split_k_for(&s, 1), 1) << "8 slices of 10 tiles";
  s.g = 2;
  EXPECT_EQ(gg_sm90_split_k_for(&s, 1), 4) << "2 slices of 10 tiles";
  gg_op_desc k = gg_test::ChipDesc(GG_LAYOUT_K_OFFSETS, GG_TARGET_SM90A, 1280, 8192, 2);
  EXPECT_EQ(gg_sm90_split_k_for(&k, 1), 1) << "runtime K";
  gg_op_desc a = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_GFX950, 1280, 8192, 8);
  EXPECT_EQ(gg_sm90_split_k_for(&a, 1), 1) << "AMD";
}

// The launch's tile in fast rowwise mode: 256 columns where their split keeps at least
// as many SMs busy as 128 columns do; promoted mode keeps 128 (its second set of
// accumulators does not fit 256).
TEST(SplitKForShape, FastModeWidensTheTileWhereItsSplitKeepsAsManySMsBusy) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 1280, 8192, 8);
  d.accum = GG_ACCUM_FAST;
  gg_tile_config t = gg_tile_config_for_launch(&d, 16);
  // 80 tiles of 128 columns unsplit, 40 of 256 split in 2 (one more than 39 clusters of
  // 3), and 56 of 192 split in 2, which stream the least on the busiest SM.
  EXPECT_EQ(t.n, 192);
  EXPECT_EQ(t.split_k, 2);
  EXPECT_EQ(gg_tile_config_unsplit(&d, 16).n, 128);
  t = gg_tile_config_for_launch(&d, 1);
  EXPECT_EQ(t.n, 128) << "10 tiles of 128 columns split in 4 busy more SMs than 5 of 256";
  EXPECT_EQ(t.split_k, 4);
  d.n = 7168, d.k = 2048;
  t = gg_tile_config_for_launch(&d, 1);
  // 56 tiles split in 2 or 28 of 256 columns split in 4, 112 CTAs each: the wide step
  // takes 256, the decode widths take 128 back (four ranks' reduction for shares of 4 K
  // tiles).
  EXPECT_EQ(t.n, 128);
  EXPECT_EQ(t.split_k, 2);
  d.accum = GG_ACCUM_PROMOTED;
  t = gg_tile_config_for_launch(&d, 1);
  EXPECT_EQ(t.n, 128);
  EXPECT_EQ(t.split_k, 2);
  gg_op_desc past = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 1536, 4096, 3);
  past.accum = GG_ACCUM_FAST;
  t = gg_tile_config_for_launch(&past, 129);
  EXPECT_EQ(t.n, 256) << "past decode rows: 4 x 12 tiles of 128 columns split in 2, "
                          "4 x 6 of 256 in 4";
  EXPECT_EQ(t.split_k, 4);
  d.tile = {128, 256, 128, 0, GG_LOOP_ROLLED, 0};
  d.accum = GG_ACCUM_FAST;
  d.tile.split_k = 2;
  EXPECT_EQ(gg_tile_config_for_launch(&d, 1).split_k, 2) << "the caller's split stays";
}

// Rowwise decode (at most 128 rows, packed) takes the width whose busiest SM takes at
// least 10 % less time: of the benchmark's shapes at 16 and 128 rows over 8 experts, 192
// columns at the two where they ran much faster on an H200 (docs/performance.md,
// 2026-12-04) and at none where they ran slower; at one row, 128 columns split in 2 where
// they beat the 192 or 256 columns and deeper splits of the rule before.
TEST(SplitKForShape, DecodeTakesTheWidthWhoseBusiestSMTakesLeast) {
  struct Shape {
    int64_t n, k, rows;
    int fast_n, fast_split, promoted_n, promoted_split;
  } shapes[] = {
      {4096, 7168, 16, 256, 1, 128, 1},   {7168, 2048, 16, 256, 1, 128, 1},
      {1280, 8192, 16, 192, 2, 192, 2},   {8192, 1024, 16, 256, 1, 128, 1},
      {7168, 8192, 16, 256, 1, 128, 1},   {8192, 3584, 16, 256, 1, 128, 1},
      {2304, 16384, 16, 192, 1, 192, 1},  {16384, 2048, 16, 256, 1, 128, 1},
      {13312, 16384, 16, 256, 1, 128, 1}, {16384, 6656, 16, 256, 1, 128, 1},
      {4096, 7168, 1, 128, 3, 128, 3},    {7168, 2048, 1, 128, 2, 128, 2},
      {1280, 8192, 1, 128, 4, 128, 4},    {8192, 1024, 1, 128, 2, 128, 2},
      {7168, 8192, 1, 256, 4, 128, 2},    {8192, 3584, 1, 128, 2, 128, 2},
      {2304, 16384, 1, 128, 4, 128, 4},   {16384, 2048, 1, 256, 2, 128, 1},
      {13312, 16384, 1, 256, 2, 128, 1},  {16384, 6656, 1, 256, 2, 128, 1},
  };
  for (const Shape& s : shapes)
    for (int64_t rows : {s.rows, s.rows == 16 ? int64_t(128) : int64_t(1)})
      for (gg_accum accum : {GG_ACCUM_FAST, GG_ACCUM_PROMOTED}) {
        gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, s.n, s.k, 8);
        d.accum = accum;
        gg_tile_config t = gg_tile_config_for_launch(&d, rows);
        bool fast = accum == GG_ACCUM_FAST;
        std::string at = "N " + std::to_string(s.n) + " K " + std::to_string(s.k) + " rows " +
                         std::to_string(rows) + (fast ? " fast" : " promoted");
        EXPECT_EQ(t.n, fast ? s.fast_n : s.promoted_n) << at;
        EXPECT_EQ(t.split_k, fast ? s.fast_split : s.promoted_split) << at;
      }
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 2304, 16384, 8);
  EXPECT_EQ(gg_tile_config_for_launch(&d, 129).n, 128) << "past decode rows";
  EXPECT_EQ(gg_tile_config_for_launch(&d, 1).n, 128)
      << "one busy group: 18 tiles split in 4 stream less than 12 of 192";
  d.scaling = GG_SCALING_BLOCKWISE;
  EXPECT_EQ(gg_tile_config_for_launch(&d, 16).n, 128) << "blockwise refuses 192 columns";
  gg_op_desc batched = gg_test::ChipDesc(GG_LAYOUT_BATCHED, GG_TARGET_SM90A, 2304, 16384, 8);
  EXPECT_EQ(gg_tile_config_for_launch(&batched, 16).n, 128) << "packed rows only";
  gg_op_desc amd = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_GFX950, 2304, 16384, 8);
  EXPECT_EQ(gg_tile_config_for_launch(&amd, 16).n, 128) << "sm_90a only";
}

// The descriptor says split-K only where asked, and refuses what the kernel cannot do.
TEST(SplitKDescriptor, RoundTripsAndRefusesWhatItCannotDo) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 1280, 8192, 8);
  d.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, 3};
  char text[512], name[256];
  gg_op_desc_format(&d, text, sizeof text);
  EXPECT_NE(strstr(text, " split=3"), nullptr) << text;
  gg_op_desc parsed;
  ASSERT_EQ(gg_op_desc_parse(text, &parsed), GG_OK);
  EXPECT_EQ(parsed.tile.split_k, 3);
  gg_op_desc_kernel_name(&d, name, sizeof name);
  EXPECT_NE(strstr(name, "_split3_sm_90a"), nullptr) << name;
  d.tile.split_k = 1;
  gg_op_desc_format(&d, text, sizeof text);
  EXPECT_EQ(strstr(text, "split"), nullptr) << "no split: the descriptor reads as before";
  struct Refusal {
    gg_layout layout;
    gg_target target;
    int64_t k;
    int split;
    const char* says;
  } refusals[] = {
      {GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 8192, 5, "split_k must be between 1 (none) and 4"},
      {GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 8192, -1, "split_k must be between 1 (none) and 4"},
      {GG_LAYOUT_OFFSETS, GG_TARGET_GFX950, 8192, 2, "split-K is an sm_90a kernel's"},
      {GG_LAYOUT_K_OFFSETS, GG_TARGET_SM90A, 8192, 2, "split-K needs a static K"},
      {GG_LAYOUT_OFFSETS, GG_TARGET_SM90A, 1024, 3, "split_k 3 gives shares of 2 K tiles (K=1024)"},
  };
  for (const Refusal& r : refusals) {
    gg_op_desc bad = gg_test::ChipDesc(r.layout, r.target, 1280, r.k, 8);
    bad.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, r.split};
    gg_status status = gg_op_desc_validate(&bad);
    ASSERT_NE(status, GG_OK) << r.says;
    EXPECT_NE(strstr(gg_status_message(status), r.says), nullptr) << gg_status_message(status);
    gg_status_free(status);
  }
}

// The API takes split-K at decode with few tiles: one launch of whole clusters, the
// cluster attribute on it; an explicit split goes through as asked.
TEST(FakeCuda, ApiLaunchesSplitKClusters) {
  {
    StackedCall c;
    MakeStackedCall(gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 256, 4096, 3), 13, &c);
    if (HasFatalFailure()) return;
    // 129 rows over 3 groups: (2 + 2) x 2 tiles in 8 clusters of 4; 32 K tiles: shares of 8.
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    const LaunchRecord* r = fake.launch(0);
    EXPECT_EQ(r->cluster[0], 4u);
    EXPECT_EQ(r->cluster[1] * r->cluster[2], 1u);
    EXPECT_EQ(r->grid[0], 2u * 4u * 4u) << "the virtual grid's 2 x 4 tiles, 4 CTAs each";
    c.call.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, 2};
    status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launch(0)->cluster[0], 2u);
    EXPECT_EQ(fake.launch(0)->grid[0], 16u);
    c.call.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, 1};
    status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launch(0)->cluster[0], 1u) << "split 1 asked: none";
    EXPECT_EQ(fake.launch(0)->grid[0], 8u);
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

// A 256-row tile is a cluster of two CTAs on its halves: the launch takes two CTAs a tile,
// in whole clusters, with the cluster attribute; B's tensor map is in boxes of half the
// tile's columns (each CTA loads one half and multicasts it), A's in the CTA's.
TEST(FakeCuda, ApiLaunchesClusterTilesOfTwoCtas) {
  {
    StackedCall c;
    MakeStackedCall(gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 512, 1024, 3), 31, &c, {},
                    {300, 0, 600});
    if (HasFatalFailure()) return;
    c.call.tile = {256, 256, 128, 0, GG_LOOP_ROLLED, 1};
    c.call.accum = GG_ACCUM_FAST;
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    const LaunchRecord* r = fake.launch(0);
    EXPECT_EQ(r->cluster[0], 2u);
    EXPECT_EQ(r->cluster[1] * r->cluster[2], 1u);
    // 900 rows over 3 groups: ceil(900 / 256) + 3 - 1 = 6 tile rows of 2 column tiles.
    EXPECT_EQ(r->grid[0], 6u * 2u * 2u) << "two CTAs a tile of the virtual grid";
    EXPECT_EQ(MapOf(r, 1).box[1], 128u) << "B: half of the 256 columns";
    EXPECT_EQ(MapOf(r, 0).box[1], 32u) << "A: the CTA's 128 rows in boxes of 32";
    c.call.tile = {256, 128, 128, 0, GG_LOOP_ROLLED, 1};
    c.call.accum = GG_ACCUM_PROMOTED;
    status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launch(0)->cluster[0], 2u);
    EXPECT_EQ(MapOf(fake.launch(0), 1).box[1], 64u);
    EXPECT_EQ(MapOf(fake.launch(0), 0).box[1], 128u);
    // Split-K clusters are 128-row tiles': 256 rows with a split is refused, nothing launched.
    int launches = fake.launches();
    c.call.tile = {256, 128, 128, 0, GG_LOOP_ROLLED, 2};
    status = gg_grouped_gemm(c.context, &c.call);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(Message(status).find("split-K clusters are 128-row tiles'"), std::string::npos);
    EXPECT_EQ(fake.launches(), launches);
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

// A tuning table's entry for this device's name comes first, then one with no device
// name; another device's is not taken.
TEST(FakeCuda, ApiTakesTheTunedSplitForThisDevice) {
  {
    StackedCall c;
    gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 256, 4096, 3);
    MakeStackedCall(d, 13, &c);
    if (HasFatalFailure()) return;
    const char* dir = getenv("TEST_TMPDIR");
    std::string table = std::string(dir ? dir : "/tmp") + "/fake_cuda.table";
    unlink(table.c_str());
    d.tile = gg_tile_config{0, 0, 0, 0, GG_LOOP_ROLLED, 0};
    auto record = [&](const char* device, int split) {
      gg_tune_entry e = {};
      e.key = gg_tune_key_of(&d, 129, device);
      e.best.tile = {128, 128, 128, 0, GG_LOOP_ROLLED, split};
      e.best.accum = d.accum;
      e.time_us = 1;
      gg_status status = gg_tune_db_record(table.c_str(), &e);
      ASSERT_EQ(status, GG_OK) << Message(status);
    };
    record("Other GPU", 3);
    record("", 2);
    ASSERT_EQ(gg_context_load_tuning_table(c.context, table.c_str()), GG_OK);
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launch(0)->cluster[0], 2u) << "the entry with no device name (the rule says 4)";
    record("Fake H200", 1);
    ASSERT_EQ(gg_context_load_tuning_table(c.context, table.c_str()), GG_OK);
    status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launch(0)->cluster[0], 1u) << "this device's own entry";
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

// The tables shipped in tuning/ are compiled in and used with no table loaded: the H200's
// first entry is launched on a device of its name, and not on one of another name or by
// a context whose options leave the shipped tables out.
TEST(FakeCuda, ApiTakesTheShippedTableByDefault) {
  const gg_shipped_tuning_table* h200 = nullptr;
  for (const gg_shipped_tuning_table* t = gg_shipped_tuning_tables; t->name; ++t)
    if (!strcmp(t->name, "h200.table")) h200 = t;
  ASSERT_NE(h200, nullptr);
  gg_tune_db db;
  ASSERT_EQ(gg_tune_db_parse(h200->text, &db), GG_OK);
  ASSERT_GT(db.count, 0u);
  const gg_tune_entry e = db.entries[0];
  gg_tune_db_free(&db);
  ASSERT_STREQ(e.key.device, "NVIDIA_H200");
  gg_op_desc d = gg_test::ChipDesc(e.key.layout, e.key.target, e.key.n, e.key.k, 8);
  d.scaling = e.key.scaling;
  d.b_layout = e.key.b_layout;
  d.accum = e.key.accum;
  // The key's rows per group; a bucket of 0 (fewer rows than groups) takes the fewest
  // groups of one row whose launch the rule would tile otherwise than the entry.
  auto Differs = [&e](gg_tile_config t) {
    return t.n != e.best.tile.n || std::max(1, t.split_k) != std::max(1, e.best.tile.split_k);
  };
  std::vector<int64_t> sizes(8, e.key.m_bucket);
  for (size_t ones = 1; e.key.m_bucket == 0 && ones < sizes.size(); ++ones) {
    std::fill(sizes.begin(), sizes.begin() + ones, 1);
    if (Differs(gg_tile_config_for_launch(&d, int64_t(ones)))) break;
  }
  int64_t rows = 0;
  for (int64_t r : sizes) rows += r;
  gg_tile_config rule = gg_tile_config_for_launch(&d, rows);
  ASSERT_TRUE(Differs(rule)) << "the entry must differ from the rule to be seen";
  // A launch's split is its cluster, its tile width its shared memory.
  auto Seen = [&d](gg_tile_config t) {
    gg_op_desc tiled = d;
    tiled.tile = t;
    return std::make_pair(std::max(1, t.split_k), gg_sm90_dynamic_shared_bytes(&tiled));
  };
  auto Launched = []() {
    return std::make_pair(int(fake.launch(0)->cluster[0]), int64_t(fake.launch(0)->shared));
  };
  for (const char* name : {"NVIDIA H200", "NVIDIA H100"}) {
    fake.set_device_name(name);
    StackedCall c;
    MakeStackedCall(d, 17, &c, {}, sizes);
    if (HasFatalFailure()) return;
    c.call.scaling = d.scaling;
    c.call.accum = d.accum;
    gg_status status = gg_grouped_gemm(c.context, &c.call);  // opens the context's device
    fake.set_device_name(nullptr);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(Launched(), Seen(!strcmp(name, "NVIDIA H200") ? e.best.tile : rule)) << name;
  }
  {
    fake.set_device_name("NVIDIA H200");
    StackedCall c;
    MakeStackedCall(d, 17, &c, {}, sizes);
    if (HasFatalFailure()) return;
    gg_context_destroy(c.context);
    gg_context_options options;
    gg_context_options_init(&options);
    options.cache_dir = "";
    options.gpu = -1;
    options.shipped_tuning_tables = 0;
    c.context = nullptr;
    ASSERT_EQ(gg_context_create(&options, &c.context), GG_OK);
    c.call.scaling = d.scaling;
    c.call.accum = d.accum;
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    fake.set_device_name(nullptr);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(Launched(), Seen(rule)) << "shipped tables left out";
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

// Replaces c's context by a memory-only one that autotunes and logs into log.
void AutotuningContext(StackedCall* c, gg_test::LogCapture* log) {
  gg_context_destroy(c->context);
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  options.gpu = -1;
  options.autotune = 1;
  options.log = gg_test::LogCapture::Capture;
  options.log_user = log;
  options.log_level = GG_LOG_DEBUG;
  c->context = nullptr;
  ASSERT_EQ(gg_context_create(&options, &c->context), GG_OK);
}

// Autotuning never benchmarks on a stream that is capturing a graph: the capture holds
// the launch alone, the rule's, and the context says so once.
TEST(FakeCuda, AutotuneNeverBenchmarksWhileCapturing) {
  {
    StackedCall c;
    MakeStackedCall(Desc(GG_LAYOUT_SIZES), 19, &c);
    if (HasFatalFailure()) return;
    gg_test::LogCapture log;
    AutotuningContext(&c, &log);
    if (HasFatalFailure()) return;
    void* stream;
    ASSERT_EQ(gg_cuda_stream_create(c.device, &stream), GG_OK);
    gg_launch_options launch = {stream, 0};
    c.call.launch = &launch;
    int launches = fake.launches();
    ASSERT_EQ(gg_cuda_capture_begin(c.device, stream), GG_OK);
    for (int i = 0; i < 2; ++i) {
      gg_status status = gg_grouped_gemm(c.context, &c.call);
      ASSERT_EQ(status, GG_OK) << Message(status);
    }
    void* graph;
    ASSERT_EQ(gg_cuda_capture_end(c.device, stream, &graph), GG_OK);
    EXPECT_EQ(fake.launches(), launches) << "captured, nothing run";
    EXPECT_EQ(log.Count("capturing a graph"), 1) << "said once";
    EXPECT_EQ(log.Count("candidates got"), 0) << "no sweep";
    ASSERT_EQ(gg_cuda_graph_launch(c.device, graph, stream), GG_OK);
    EXPECT_EQ(fake.launches(), launches + 2) << "the graph holds the two launches alone";
    gg_cuda_graph_destroy(c.device, graph);
    gg_cuda_stream_destroy(c.device, stream);
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

// Off a capture, a miss sweeps on the caller's stream once: the entry points' kernel
// runs into scratch first as the reference (the stand-in runs no kernel, so it writes
// nothing and no candidate is taken), then the key is kept: the next launch is one
// launch. Scratch and events are freed.
TEST(FakeCuda, AutotuneSweepsOnTheCallersStreamOnce) {
  {
    StackedCall c;
    MakeStackedCall(Desc(GG_LAYOUT_SIZES), 23, &c);
    if (HasFatalFailure()) return;
    gg_test::LogCapture log;
    AutotuningContext(&c, &log);
    if (HasFatalFailure()) return;
    int allocations = fake.live_allocations();
    gg_launch_options launch = {reinterpret_cast<void*>(uintptr_t(0x5ca1ab1e)), 0};
    c.call.launch = &launch;
    int launches = fake.launches();
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(log.Count("candidates got"), 1);
    EXPECT_EQ(log.Count("wrote nothing; not tuned"), 1);
    EXPECT_EQ(fake.launches(), launches + 2) << "the reference run, then the launch";
    EXPECT_EQ(fake.launch(1)->stream, launch.stream) << "the sweep ran on the caller's stream";
    EXPECT_EQ(fake.live_allocations(), allocations) << "scratch freed";
    EXPECT_EQ(fake.live_events(), 0);
    status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launches(), launches + 3) << "the key is kept: no second sweep";
    EXPECT_EQ(log.Count("candidates got"), 1);
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

// ... and the API launches that kernel: B's tensor map boxes 256 rows of it.
TEST(FakeCuda, ApiTakesTheWideTileInFastMode) {
  {
    StackedCall c;
    MakeStackedCall(gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 2048, 512, 3), 11, &c);
    if (HasFatalFailure()) return;
    for (gg_accum accum : {GG_ACCUM_FAST, GG_ACCUM_PROMOTED}) {
      c.call.accum = accum;
      gg_status status = gg_grouped_gemm(c.context, &c.call);
      ASSERT_EQ(status, GG_OK) << Message(status);
      EXPECT_EQ(MapOf(fake.launch(0), 1).box[1], accum == GG_ACCUM_FAST ? 256u : 128u);
      EXPECT_EQ(MapOf(fake.launch(0), 0).box[1], accum == GG_ACCUM_FAST ? 32u : 128u)
          << "256 columns: A in boxes of 32 rows";
      EXPECT_EQ(MapOf(fake.launch(0), 2).box[1], 32u) << "A in boxes of few rows, at any width";
    }
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

// Deployment: sm_90a kernels bundled ahead of time load from the bundle (no compile) and
// launch on the driver; the bundle records the launch metadata (384 threads, the ring's
// shared memory, three 128-byte maps and the memref fields).
TEST(FakeCuda, BundledKernelsLaunchWithoutCompiling) {
  gg_op_desc d = Desc(GG_LAYOUT_BATCHED);
  std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                     "/sm90a.ggb";
  const char* flags[1] = {"--op mm --ranks 3d3d --groups 1*3 --N 256 --K 512 --target sm_90a"};
  gg_status status = gg_bundle_write(path.c_str(), &d, flags, 1, 1);
  ASSERT_EQ(status, GG_OK) << Message(status);
  Configure(d);
  gg_context* context = gg_test::MemoryContext({path}, -1);
  ASSERT_NE(context, nullptr);
  gg_bundle_kernel_info info;
  ASSERT_EQ(gg_context_bundle_kernel(context, 0, &info), GG_OK);
  EXPECT_EQ(info.desc.target, GG_TARGET_SM90A);
  gg_kernel* kernel;
  ASSERT_EQ(gg_kernel_get(context, &d, &kernel), GG_OK);
  gg_cuda_device* device;
  ASSERT_EQ(gg_cuda_device_open(0, &device), GG_OK);
  {
    const int64_t m = 70;
    DeviceBuffers buffers(device, d, m);
    gg_problem_spec spec = {};
    spec.desc = d;
    int64_t slabs[3] = {m, m, m};
    spec.extents = slabs;
    spec.m = m;
    gg_problem* p;
    ASSERT_EQ(gg_problem_create(&spec, &p), GG_OK);
    gg_dl_operands operands;
    gg_dl_wrap(p, buffers.pointers, DLDevice{kDLCUDA, 0}, &operands);
    int launches = fake.launches();
    status = gg_kernel_launch(context, kernel, operands.pointers, 0);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launches(), launches + 1);
    EXPECT_EQ(fake.launch(0)->shared, unsigned(gg_sm90_dynamic_shared_bytes(&d)));
    size_t fields = gg_operand_arg_values(&d, buffers.pointers, m, nullptr, nullptr, 0);
    EXPECT_EQ(size_t(fake.launch(0)->param_count), GG_SM90_TENSOR_MAPS + fields);
    EXPECT_EQ(MapOf(fake.launch(0), 2).box[1], 32u);
    gg_problem_destroy(p);
  }
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.bundle_hits, 1u);
  EXPECT_EQ(stats.compiles, 0u);
  gg_cuda_device_close(device);
  gg_context_destroy(context);
}

}  // namespace
