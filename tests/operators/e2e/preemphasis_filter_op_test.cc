// preemphasis_filter through a pipeline, with the shared harness (op_harness.h): per-sample
// coefficients, the output type, determinism across thread counts, and errors at the call and at
// run time. The arithmetic itself is tests/kernels/preemphasis_test.cc's.
#include <gtest/gtest.h>

#include <cmath>

#include "op_harness.h"

namespace sluice::testing {
namespace {

HostBatch Signals() {
  std::vector<std::vector<float>> s = {{1.f, 2.f, 4.f, 8.f}, {0.5f, -0.5f}, {3.f}, {}};
  return HostBatch::Of(s, {TensorShape{4}, TensorShape{2}, TensorShape{1}, TensorShape{0}});
}

std::vector<float> Values(const Batch& b, int i) {
  std::vector<float> v(b.nbytes(i) / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), b.data(i), b.nbytes(i));
  return v;
}

TEST(PreemphasisFilterOp, PerSampleCoefficientsBordersAndShapes) {
  OpCase c{OperatorDef("preemphasis_filter").Arg("border", std::string("reflect")), Signals(), {}};
  c.arg_inputs.push_back({"preemph_coeff", HostBatch::Of<float>({{0.5f}, {1.f}, {0.25f}, {0.9f}}, {{}, {}, {}, {}})});
  const auto out = RunOpCase(c);
  ASSERT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(Values(out[0], 0), (std::vector<float>{0.f, 1.5f, 3.f, 6.f}));  // out[0] = 1 - 0.5 * in[1]
  EXPECT_EQ(Values(out[0], 1), (std::vector<float>{1.f, -1.f}));
  EXPECT_EQ(Values(out[0], 2), (std::vector<float>{2.25f}));  // one element: reflects onto itself
  EXPECT_EQ(out[0].shape(3), TensorShape{0});
}

TEST(PreemphasisFilterOp, IntegerOutputAndLayoutPassThrough) {
  HostBatch in = HostBatch::Of<int16_t>({{100, 200, -300}}, {TensorShape{3, 1}}, "TC");
  const auto out = RunOpCase({OperatorDef("preemphasis_filter").Arg("dtype", std::string("int16"))
                                  .Arg("preemph_coeff", 0.5).Arg("border", std::string("zero")), in, {}});
  ASSERT_EQ(out[0].dtype(), DType::kInt16);
  EXPECT_EQ(out[0].layout(), "TC");
  EXPECT_EQ(out[0].shape(0), (TensorShape{3, 1}));
  const auto* v = static_cast<const int16_t*>(out[0].data(0));
  EXPECT_EQ(v[0], 100);
  EXPECT_EQ(v[1], 150);
  EXPECT_EQ(v[2], -400);
}

TEST(PreemphasisFilterOp, SameBatchesForAnyThreadCount) {
  std::vector<std::vector<float>> s;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < 7; ++i) {
    s.emplace_back();
    for (int t = 0; t < 500 + 37 * i; ++t) s.back().push_back(std::sin(0.01f * float(t * (i + 1))));
    shapes.push_back(TensorShape{int64_t(s.back().size())});
  }
  ExpectSameForAnyThreadCount({OperatorDef("preemphasis_filter"), HostBatch::Of(s, shapes), {}});
}

TEST(PreemphasisFilterOp, BadArgumentsAndInputsAreErrors) {
  ExpectCallError(OperatorDef("preemphasis_filter").Arg("border", std::string("mirror")), "border", "mirror");
  ExpectCallError(OperatorDef("preemphasis_filter").Arg("dtype", std::string("bool")), "dtype", "bool");
  HostBatch bools = HostBatch::Of<uint8_t>({{1, 0}}, {TensorShape{2}});
  bools.dtype = DType::kBool;
  ExpectRunError({OperatorDef("preemphasis_filter"), bools, {}}, "bool");
}

}  // namespace
}  // namespace sluice::testing
