// sphere and water through the pipeline (shared harness): DALI's defaults (INTERP_NN, fill 0, the
// water wave), arguments reaching the kernel, the per-sample and constant mask, determinism across
// num_threads, errors at the call naming the argument. Formulas: tests/kernels/displacement_test.cc
// and python/tests/test_displacement_ops.py (against DALI 2.4's outputs' formulas).
#include <gtest/gtest.h>

#include <random>

#include "kernels/warp/displacement.h"
#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;

HostBatch Images(int n, int h, int w) {
  std::mt19937 rng(6);
  std::vector<std::vector<uint8_t>> s;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> v(size_t(h * w * 3));
    for (auto& x : v) x = uint8_t(rng() & 0xff);
    s.push_back(std::move(v));
    shapes.push_back(TensorShape{h, w, 3});
  }
  return HostBatch::Of(s, shapes, "HWC");
}

std::vector<uint8_t> Sample(const Batch& b, int i) {
  const auto* p = static_cast<const uint8_t*>(b.data(i));
  return std::vector<uint8_t>(p, p + b.nbytes(i));
}

TEST(DisplacementOps, DefaultsArgumentsAndMask) {
  const HostBatch in = Images(2, 23, 31);
  const auto g = kernels::ImageGeom::HWC(23, 31, 3);
  std::vector<uint8_t> ref(in.bytes[0].size());
  auto out = RunOpCase({OperatorDef("sphere"), in});
  kernels::Sphere(in.bytes[1].data(), ref.data(), DType::kUInt8, g, kernels::PerspectiveInterp::kNearest, 0.f);
  EXPECT_EQ(Sample(out[0], 1), ref);
  out = RunOpCase({OperatorDef("water").Arg("ampl_x", 3.0).Arg("phase_y", 0.5).Arg("fill_value", 9.0).Arg(
                       "interp_type", std::string("LINEAR")),
                   in});
  kernels::WaterParams wp;
  wp.ampl_x = 3;
  wp.phase_y = 0.5f;
  kernels::Water(in.bytes[0].data(), ref.data(), DType::kUInt8, g, wp, kernels::PerspectiveInterp::kLinear, 9.f);
  EXPECT_EQ(Sample(out[0], 0), ref);
  const HostBatch mask = HostBatch::Of<int32_t>({{0}, {1}}, {TensorShape{}, TensorShape{}});
  out = RunOpCase({OperatorDef("water"), in, {{"mask", mask}}});
  EXPECT_EQ(Sample(out[0], 0), in.bytes[0]);
  EXPECT_NE(Sample(out[0], 1), in.bytes[1]);
  out = RunOpCase({OperatorDef("sphere").Arg("mask", int64_t{0}), in});
  EXPECT_EQ(Sample(out[0], 1), in.bytes[1]);
}

TEST(DisplacementOps, SameForAnyThreadCount) {
  ExpectSameForAnyThreadCount({OperatorDef("water").Arg("interp_type", std::string("LINEAR")), Images(5, 30, 41)});
  ExpectSameForAnyThreadCount({OperatorDef("sphere"), Images(5, 30, 41)});
}

TEST(DisplacementOps, BadArgumentsAreRejectedAtTheCall) {
  ExpectCallError(OperatorDef("sphere").Arg("interp_type", std::string("CUBIC")), "interp_type", "");
  ExpectCallError(OperatorDef("water").Arg("mask", int64_t{2}), "mask", "");
  const HostBatch bad = HostBatch::Of<int32_t>({{3}}, {TensorShape{}});
  ExpectRunError({OperatorDef("sphere"), Images(1, 5, 5), {{"mask", bad}}}, "mask");
}

}  // namespace
}  // namespace sluice
