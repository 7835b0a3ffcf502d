// Bundles for gfx942 and gfx950 through the CPU stand-in for HSA (tests/fake_hsa): every
// layout x scaling x B layout bundled, then launched from the bundle and from a freshly
// compiled kernel. The stand-in runs no kernel, so what must be equal bit for bit is what
// gg hands the GPU: the code object, and each dispatch's packet and kernel arguments.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gg/gg.h"
#include "runtime/code_object.h"
#include "tests/reference/problem.h"
#include "tests/support/context.h"
#include "tests/support/dl.h"
#include "tests/support/lines.h"

namespace {

struct Fake {
  void (*configure)(const char*, uint32_t, uint32_t, uint32_t, int);
  int (*dispatches)();
  const uint8_t* (*packet)(int back);
  const uint8_t* (*kernarg)(int back);
};

Fake fake;

class FakeHsaEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* root = std::getenv("TEST_SRCDIR");
    std::string path = std::string(root ? root : ".") + "/gg/tests/fake_hsa/libfake_hsa.so";
    setenv("GG_HSA_LIBRARY", path.c_str(), 1);
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    fake.configure = reinterpret_cast<decltype(fake.configure)>(dlsym(library, "test_configure"));
    fake.dispatches = reinterpret_cast<decltype(fake.dispatches)>(dlsym(library, "test_dispatches"));
    fake.packet = reinterpret_cast<decltype(fake.packet)>(dlsym(library, "test_packet"));
    fake.kernarg = reinterpret_cast<decltype(fake.kernarg)>(dlsym(library, "test_kernarg"));
    ASSERT_TRUE(fake.configure && fake.dispatches && fake.packet && fake.kernarg);
  }
};

const ::testing::Environment* const environment =
    ::testing::AddGlobalTestEnvironment(new FakeHsaEnvironment);

std::string Take(gg_status status) {
  std::string text = status ? gg_status_message(status) : "ok";
  gg_status_free(status);
  return text;
}

using gg_test::MemoryContext;

// What one launch handed the GPU: its packets (up to the kernel object: the kernarg address
// and completion signal are per launch) and kernel arguments, the last packet first.
struct Dispatch {
  int packets = 0;
  std::vector<std::vector<uint8_t>> packet, kernarg;
};

Dispatch Launch(gg_context* context, gg_kernel* kernel, const gg_problem* p,
                void* const device[GG_OPERAND_COUNT], std::string* error) {
  const void* code;
  size_t size;
  gg_kernel_code_object(kernel, &code, &size);
  gg_code_object_info info;
  EXPECT_EQ(gg_code_object_read(code, size, &info), GG_OK);
  const char* chip = gg_target_name(gg_kernel_desc(kernel)->target);
  fake.configure(chip, info.kernel.kernarg_size, info.kernel.group_segment_size,
                 info.kernel.private_segment_size, 0);
  gg_dl_operands operands;
  gg_dl_wrap(p, device, DLDevice{kDLROCM, 0}, &operands);
  Dispatch d;
  int before = fake.dispatches();
  *error = Take(gg_kernel_launch(context, kernel, operands.pointers, p->zeroing));
  d.packets = fake.dispatches() - before;
  for (int back = 0; back < d.packets && back < 2; ++back) {
    const gg_kernel_info& k = back == 0 ? info.kernel : info.group_ends;
    d.packet.emplace_back(fake.packet(back), fake.packet(back) + 40);
    d.kernarg.emplace_back(fake.kernarg(back), fake.kernarg(back) + k.kernarg_size);
  }
  return d;
}

// Kernel arguments equal but for the workspace each launch allocates: a memref base
// (allocated and aligned pointers, equal to each other) that differs between the two.
void ExpectSameArguments(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  ASSERT_EQ(a.size(), b.size());
  size_t words = a.size() / 8, bases = 0;
  auto word = [](const std::vector<uint8_t>& v, size_t i) {
    uint64_t w;
    memcpy(&w, v.data() + 8 * i, 8);
    return w;
  };
  for (size_t i = 0; i < words; ++i) {
    if (word(a, i) == word(b, i)) continue;
    ASSERT_LT(i + 1, words) << "argument word " << i << " differs";
    EXPECT_EQ(word(a, i), word(a, i + 1)) << "argument word " << i << " differs";
    EXPECT_EQ(word(b, i), word(b, i + 1)) << "argument word " << i << " differs";
    ++bases;
    ++i;
  }
  EXPECT_LE(bases, 1u);
  EXPECT_EQ(memcmp(a.data() + 8 * words, b.data() + 8 * words, a.size() % 8), 0);
}

class BundleAmd : public ::testing::TestWithParam<gg_target> {};

TEST_P(BundleAmd, EveryKernelDispatchesAsTheCompiledOne) {
  const char* chip = gg_target_name(GetParam());
  std::vector<std::string> lines = gg_test::EveryKernelLine(chip);
  ASSERT_GE(lines.size(), 18u);
  std::vector<gg_op_desc> descs;
  std::vector<const char*> flags;
  for (const std::string& line : lines) {
    gg_flags f = gg_test::Parse(line);
    descs.push_back(f.desc);
    flags.push_back(line.c_str());
    gg_flags_free(&f);
  }
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + chip + ".ggb";
  gg_status status = gg_bundle_write(path.c_str(), descs.data(), flags.data(), descs.size(), 0);
  ASSERT_EQ(status, GG_OK) << Take(status);

  // The stand-in serves one device at a time: the bundle's launches first, then the
  // compiled kernels' in a second context, on the same operands (host memory, which the
  // stand-in's GPU reads as its own), compared launch by launch.
  fake.configure(chip, 0, 0, 0, 0);  // the GPU the contexts open is this chip
  struct Line {
    gg_problem* problem = nullptr;
    void* device[GG_OPERAND_COUNT] = {};
    std::vector<uint8_t> code;
    Dispatch dispatch;
  };
  std::vector<Line> runs(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    gg_flags f = gg_test::Parse(lines[i]);
    gg_problem_spec spec = gg_flags_problem(&f);
    ASSERT_EQ(gg_problem_create(&spec, &runs[i].problem), GG_OK);
    gg_flags_free(&f);
    for (int o = 0; o < GG_OPERAND_COUNT; ++o) {
      const gg_problem* p = runs[i].problem;
      if (!p->buffers[o]) continue;
      runs[i].device[o] = aligned_alloc(256, (p->bytes[o] + 255) / 256 * 256 + 256);
      ASSERT_NE(runs[i].device[o], nullptr);
      memcpy(runs[i].device[o], p->buffers[o], p->bytes[o]);
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    gg_context* context = MemoryContext(pass == 0 ? std::vector<std::string>{path} : std::vector<std::string>{});
    ASSERT_TRUE(context);
    for (size_t i = 0; i < lines.size(); ++i) {
      SCOPED_TRACE(lines[i]);
      Line& run = runs[i];
      gg_kernel* kernel = nullptr;
      ASSERT_EQ(Take(gg_kernel_get(context, &run.problem->desc, &kernel)), "ok");
      const void* code;
      size_t size;
      gg_kernel_code_object(kernel, &code, &size);
      std::vector<uint8_t> bytes(static_cast<const uint8_t*>(code),
                                 static_cast<const uint8_t*>(code) + size);
      std::string error;
      Dispatch d = Launch(context, kernel, run.problem, run.device, &error);
      EXPECT_EQ(error, "ok");
      EXPECT_GE(d.packets, 1);
      if (pass == 0) {
        run.code = bytes;
        run.dispatch = d;
        continue;
      }
      EXPECT_TRUE(bytes == run.code) << "the code objects differ";
      ASSERT_EQ(d.packets, run.dispatch.packets);
      for (size_t k = 0; k < d.packet.size(); ++k) {
        EXPECT_EQ(d.packet[k], run.dispatch.packet[k]) << "packet " << k;
        ExpectSameArguments(d.kernarg[k], run.dispatch.kernarg[k]);
      }
    }
    gg_cache_stats stats;
    gg_context_cache_stats(context, &stats);
    EXPECT_EQ(stats.bundle_hits, pass == 0 ? lines.size() : 0u);
    EXPECT_EQ(stats.compiles, pass == 0 ? 0u : lines.size());
    gg_context_destroy(context);
  }
  for (Line& run : runs) {
    for (void* d : run.device) free(d);
    gg_problem_destroy(run.problem);
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, BundleAmd, ::testing::Values(GG_TARGET_GFX942, GG_TARGET_GFX950),
                         [](const ::testing::TestParamInfo<gg_target>& info) {
                           return std::string(gg_target_name(info.param));
                         });

}  // namespace
