// A problem on DLPack tensors for the public API's suites: inputs drawn from a Spec, the
// output poisoned, the named entry point for the layout, and the reference comparison.
#ifndef GG_TESTS_SUPPORT_API_CASE_H_
#define GG_TESTS_SUPPORT_API_CASE_H_

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gg/gg.h"
#include "tests/reference/reference.h"
#include "tests/support/dl.h"
#include "tests/support/test_util.h"

namespace gg_test {

class ApiCase {
 public:
  explicit ApiCase(const Spec& spec) : spec_(spec) {
    gg_problem_spec ps = {spec.desc(), spec.extents.data(), spec.m, spec.zeroing, spec.data,
                          spec.seed, spec.alternate_constant};
    gg_status status = gg_problem_create(&ps, &problem_);
    EXPECT_EQ(status, GG_OK) << gg_status_message(status) << "\n  " << spec.command();
    gg_status_free(status);
    if (!problem_) return;
    gg_dl_wrap(problem_, problem_->buffers, DLDevice{kDLCPU, 0}, &dl_);
    Poison();
  }
  ~ApiCase() { gg_problem_destroy(problem_); }
  ApiCase(const ApiCase&) = delete;
  ApiCase& operator=(const ApiCase&) = delete;

  bool ok() const { return problem_ != nullptr; }
  const gg_problem* problem() const { return problem_; }
  gg_dl_operands& dl() { return dl_; }
  DLTensor& tensor(gg_operand operand) { return dl_.tensors[operand]; }
  uint16_t* out() { return static_cast<uint16_t*>(problem_->buffers[GG_OPERAND_OUT]); }
  int64_t out_count() const { return gg_operand_shape_numel(&problem_->shapes[GG_OPERAND_OUT]); }

  void Poison() { gg_poison_bf16(out(), out_count()); }

  // Every output element still holds the poison.
  bool Untouched() {
    for (int64_t i = 0; i < out_count(); ++i)
      if (out()[i] != GG_POISON_BF16) return false;
    return true;
  }

  // The entry point named after the upstream op of the spec's layout and scaling.
  gg_status Call(gg_context* context) {
    const DLTensor* t[GG_OPERAND_COUNT];
    for (int i = 0; i < GG_OPERAND_COUNT; ++i) t[i] = dl_.pointers[i];
    DLTensor* out = &dl_.tensors[GG_OPERAND_OUT];
    switch (spec_.layout) {
      case GG_LAYOUT_SIZES:
        return spec_.scaling == GG_SCALING_BLOCKWISE
                   ? gg_f8f8bf16_groupwise_grouped(context, t[0], t[1], t[2], t[3], t[4], out)
                   : gg_f8f8bf16_rowwise_grouped_stacked(context, t[0], t[1], t[2], t[3], t[4],
                                                          out);
      case GG_LAYOUT_PADDED:
        return gg_f8f8bf16_rowwise_grouped_dynamic(context, t[0], t[1], t[2], t[3], t[4],
                                                   spec_.zeroing, out);
      default:
        return gg_f8f8bf16_rowwise_grouped_mm(context, t[0], t[1], t[2], t[3], t[4], out);
    }
  }

  // Compares the output with the reference run from the same poison.
  void ExpectMatchesReference() {
    int64_t count = out_count();
    std::vector<uint16_t> want(size_t(count ? count : 1));
    std::vector<double> bound(want.size());
    gg_poison_bf16(want.data(), count);
    gg_reference_run(problem_, want.data(), bound.data());
    gg_compare_result r = gg_compare_outputs(out(), want.data(), bound.data(), count,
                                             spec_.data == GG_DATA_EXACT);
    EXPECT_EQ(r.mismatches, 0) << spec_.command();
    EXPECT_EQ(r.unwritten, 0) << spec_.command();
    EXPECT_EQ(r.clobbered, 0) << spec_.command();
  }

 private:
  Spec spec_;
  gg_problem* problem_ = nullptr;
  gg_dl_operands dl_;
};

inline std::string TakeMessage(gg_status status) {
  std::string text = gg_status_message(status);
  gg_status_free(status);
  return text;
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_API_CASE_H_
