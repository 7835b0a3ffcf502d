// The CPU stand-in for the CUDA driver (tests/fake_cuda) as the CUDA suites drive it: what
// it records of each launch and tensor map, its test hooks (bound at start, with
// GG_CUDA_LIBRARY pointing gg at it), and device buffers from it. One test binary per
// including file: the hooks and the environment live in an anonymous namespace.
#ifndef GG_TESTS_SUPPORT_FAKE_CUDA_H_
#define GG_TESTS_SUPPORT_FAKE_CUDA_H_

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gg/gg.h"
#include "runtime/cuda.h"
#include "tests/reference/problem.h"
#include "tests/support/context.h"
#include "tests/support/dl.h"

namespace {

struct TensorMapRecord {  // what the stand-in writes into an encoded map
  int data_type;
  unsigned rank;
  void* address;
  uint64_t dims[2], strides[1];  // gg's maps are 2-D
  uint32_t box[2], element_strides[2];
  int interleave, swizzle, l2, oob;
};

struct LaunchRecord {
  unsigned grid[3], block[3], shared;
  unsigned cluster[3];
  void* stream;
  int param_count;
  unsigned char params[64][128];
  int captured;
};

struct Fake {
  void (*configure)(int, int, int, int, int, int);
  void (*fail)(const char*, int);
  void (*set_device_name)(const char*);
  int (*launches)();
  int (*memsets)();
  int (*encodes)();
  void* (*last_memset_stream)();
  size_t (*last_memset_bytes)();
  int (*synchronizes)();
  int (*live_allocations)();
  int (*live_events)();
  int (*context_depth)();
  int (*retained)();
  int (*max_dynamic_shared)();
  const LaunchRecord* (*launch)(int back);
};

Fake fake;

template <typename T>
void Bind(void* library, const char* name, T* out) {
  *out = reinterpret_cast<T>(dlsym(library, name));
  ASSERT_NE(*out, nullptr) << name;
}

// Points gg at the stand-in before anything loads the driver, and binds the test hooks.
class FakeCudaEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* root = std::getenv("TEST_SRCDIR");
    std::string path = std::string(root ? root : ".") + "/gg/tests/fake_cuda/libfake_cuda.so";
    setenv("GG_CUDA_LIBRARY", path.c_str(), 1);
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    Bind(library, "test_configure", &fake.configure);
    Bind(library, "test_fail", &fake.fail);
    Bind(library, "test_set_device_name", &fake.set_device_name);
    Bind(library, "test_launches", &fake.launches);
    Bind(library, "test_memsets", &fake.memsets);
    Bind(library, "test_encodes", &fake.encodes);
    Bind(library, "test_last_memset_stream", &fake.last_memset_stream);
    Bind(library, "test_last_memset_bytes", &fake.last_memset_bytes);
    Bind(library, "test_synchronizes", &fake.synchronizes);
    Bind(library, "test_live_allocations", &fake.live_allocations);
    Bind(library, "test_live_events", &fake.live_events);
    Bind(library, "test_context_depth", &fake.context_depth);
    Bind(library, "test_retained", &fake.retained);
    Bind(library, "test_max_dynamic_shared", &fake.max_dynamic_shared);
    Bind(library, "test_launch", &fake.launch);
  }
};

const ::testing::Environment* const environment =
    ::testing::AddGlobalTestEnvironment(new FakeCudaEnvironment);

std::string Message(gg_status status) {
  std::string text = status ? gg_status_message(status) : "OK";
  gg_status_free(status);
  return text;
}

size_t ParamCount(const gg_op_desc& d) {
  void* none[GG_OPERAND_COUNT] = {};
  return GG_SM90_TENSOR_MAPS + gg_operand_arg_values(&d, none, 1, nullptr, nullptr, 0);
}

void Configure(const gg_op_desc& d, int major = 9, int minor = 0) {
  fake.configure(1, major, minor, 232448, int(ParamCount(d)), GG_SM90_TENSOR_MAPS);
}

struct DeviceBuffers {
  gg_cuda_device* device;
  void* pointers[GG_OPERAND_COUNT] = {};
  DeviceBuffers(gg_cuda_device* dev, const gg_op_desc& d, int64_t m) : device(dev) {
    for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
      gg_operand_shape shape = gg_operand_shape_of(&d, gg_operand(i), m);
      if (!shape.present) continue;
      size_t bytes = size_t(gg_operand_shape_numel(&shape)) * gg_dtype_size(shape.dtype);
      EXPECT_EQ(gg_cuda_alloc(device, bytes, &pointers[i]), GG_OK);
    }
  }
  ~DeviceBuffers() {
    for (void* p : pointers) gg_cuda_free(device, p);
  }
};

// A stacked problem of `d` (groups of `sizes` rows, random data from `seed`) in the
// stand-in's device memory, a memory-only context (with `bundles` loaded), and a
// gg_grouped_gemm call on them; freed in reverse when it goes.
struct StackedCall {
  gg_problem* problem = nullptr;
  gg_context* context = nullptr;
  gg_cuda_device* device = nullptr;
  std::unique_ptr<DeviceBuffers> buffers;
  gg_dl_operands operands;
  gg_grouped_gemm_call call = {};
  ~StackedCall() {
    buffers.reset();
    if (device) gg_cuda_device_close(device);
    if (context) gg_context_destroy(context);
    if (problem) gg_problem_destroy(problem);
  }
};

void MakeStackedCall(const gg_op_desc& d, uint64_t seed, StackedCall* c,
                     const std::vector<std::string>& bundles = {},
                     std::vector<int64_t> sizes = {100, 0, 29}) {
  gg_problem_spec spec = {};
  spec.desc = d;
  spec.desc.g = int64_t(sizes.size());
  spec.extents = sizes.data();
  spec.m = GG_DYNAMIC;
  spec.data = GG_DATA_RANDOM;
  spec.seed = seed;
  ASSERT_EQ(gg_problem_create(&spec, &c->problem), GG_OK);
  Configure(c->problem->desc);
  c->context = gg_test::MemoryContext(bundles, -1);
  ASSERT_NE(c->context, nullptr);
  ASSERT_EQ(gg_cuda_device_open(0, &c->device), GG_OK);
  c->buffers.reset(new DeviceBuffers(c->device, c->problem->desc, c->problem->m));
  gg_dl_wrap(c->problem, c->buffers->pointers, DLDevice{kDLCUDA, 0}, &c->operands);
  c->call.layout = d.layout;
  memcpy(c->call.operands, c->operands.pointers, sizeof c->call.operands);
}

}  // namespace

#endif  // GG_TESTS_SUPPORT_FAKE_CUDA_H_
