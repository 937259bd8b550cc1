// experimental.median_blur / dilate / erode through the pipeline (shared harness): DALI's arguments
// and defaults (window_size / mask_size (3, 3) as (width, height), anchor -1: the centre, iterations
// as a grown mask, border_mode "constant"), per-sample argument inputs, layouts (HWC, CHW, HW,
// FHWC frame by frame), determinism across num_threads, the errors at the call naming the argument.
// The kernel is checked against brute force in tests/kernels/rank_filter_test.cc and OpenCV in
// python/tests/test_rank_filters.py; here each result is compared with the kernel called directly.
#include <gtest/gtest.h>

#include <random>

#include "kernels/morphology/rank_filter.h"
#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;
using kernels::RankFilterParams;
using kernels::RankOp;

HostBatch Images(int n, int h, int w, int c, const std::string& layout = "HWC") {
  std::mt19937 rng(5);
  std::vector<std::vector<uint8_t>> s;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> v(size_t(h * w * c));
    for (auto& x : v) x = uint8_t(rng() & 0xff);
    s.push_back(std::move(v));
    shapes.push_back(layout == "HW" ? TensorShape{h, w} : layout == "CHW" ? TensorShape{c, h, w} : TensorShape{h, w, c});
  }
  return HostBatch::Of(s, shapes, layout);
}

std::vector<uint8_t> Sample(const Batch& b, int i) {
  const auto* p = static_cast<const uint8_t*>(b.data(i));
  return std::vector<uint8_t>(p, p + b.nbytes(i));
}

std::vector<uint8_t> Direct(const HostBatch& in, int i, const kernels::ImageGeom& g, const RankFilterParams& p) {
  std::vector<uint8_t> o(in.bytes[size_t(i)].size());
  kernels::RankFilter2D(in.bytes[size_t(i)].data(), o.data(), DType::kUInt8, g, p);
  return o;
}

TEST(RankFilterOps, Defaults) {
  const HostBatch in = Images(2, 17, 23, 3);
  const auto g = kernels::ImageGeom::HWC(17, 23, 3);
  const std::pair<const char*, RankOp> ops[] = {{"experimental.median_blur", RankOp::kMedian},
                                                {"experimental.dilate", RankOp::kMax},
                                                {"experimental.erode", RankOp::kMin}};
  for (auto [name, op] : ops) {
    const auto out = RunOpCase({OperatorDef(name), in});
    ASSERT_EQ(out[0].dtype(), DType::kUInt8) << name;
    const RankFilterParams p{op, 3, 3, 1, 1, op == RankOp::kMedian ? kernels::BorderMode::kClamp
                                                                    : kernels::BorderMode::kConstant};
    for (int i = 0; i < 2; ++i) EXPECT_EQ(Sample(out[0], i), Direct(in, i, g, p)) << name;
  }
}

TEST(RankFilterOps, ArgumentsReachTheKernel) {
  const HostBatch in = Images(2, 15, 19, 3, "CHW");
  const auto g = kernels::ImageGeom::CHW(3, 15, 19);
  auto out = RunOpCase({OperatorDef("experimental.dilate")
                            .Arg("mask_size", std::vector<int64_t>{5, 3})
                            .Arg("anchor", std::vector<int64_t>{0, -1})
                            .Arg("iterations", int64_t{2})
                            .Arg("border_mode", std::string("reflect")),
                        in});
  // iterations 2: mask (5 + 4, 3 + 2), anchor (0, 1 * 2).
  EXPECT_EQ(Sample(out[0], 1), Direct(in, 1, g, {RankOp::kMax, 9, 5, 0, 2, kernels::BorderMode::kReflect1001}));
  out = RunOpCase({OperatorDef("experimental.median_blur").Arg("window_size", std::vector<int64_t>{5, 1}), in});
  EXPECT_EQ(Sample(out[0], 0), Direct(in, 0, g, {RankOp::kMedian, 5, 1, 2, 0, kernels::BorderMode::kClamp}));
}

TEST(RankFilterOps, PerSampleArgumentInputsAndSequences) {
  const HostBatch in = Images(2, 12, 14, 1, "HW");
  const auto g = kernels::ImageGeom::HWC(12, 14, 1);
  const HostBatch masks = HostBatch::Of<int32_t>({{3, 5}, {2, 2}}, {TensorShape{2}, TensorShape{2}});
  const HostBatch anchors = HostBatch::Of<int32_t>({{-1}, {0}}, {TensorShape{1}, TensorShape{1}});
  const auto out = RunOpCase({OperatorDef("experimental.erode").Arg("border_mode", std::string("wrap")), in,
                              {{"mask_size", masks}, {"anchor", anchors}}});
  EXPECT_EQ(Sample(out[0], 0), Direct(in, 0, g, {RankOp::kMin, 3, 5, 1, 2, kernels::BorderMode::kWrap}));
  EXPECT_EQ(Sample(out[0], 1), Direct(in, 1, g, {RankOp::kMin, 2, 2, 0, 0, kernels::BorderMode::kWrap}));
  const HostBatch bad = HostBatch::Of<int32_t>({{3, 3}, {0, 2}}, {TensorShape{2}, TensorShape{2}});
  ExpectRunError({OperatorDef("experimental.erode"), in, {{"anchor", bad}}}, "anchor");
  ExpectRunError({OperatorDef("experimental.median_blur"), in, {{"window_size", bad}}}, "window_size");

  HostBatch seq = Images(1, 2 * 9, 10, 3);
  seq.shapes = {TensorShape{2, 9, 10, 3}};
  seq.layout = "FHWC";
  const auto s = Sample(RunOpCase({OperatorDef("experimental.median_blur"), seq})[0], 0);
  for (int f = 0; f < 2; ++f) {
    std::vector<uint8_t> frame(seq.bytes[0].begin() + f * 270, seq.bytes[0].begin() + (f + 1) * 270), ref(270);
    kernels::RankFilter2D(frame.data(), ref.data(), DType::kUInt8, kernels::ImageGeom::HWC(9, 10, 3),
                          {RankOp::kMedian, 3, 3, 1, 1, kernels::BorderMode::kClamp});
    EXPECT_EQ(std::vector<uint8_t>(s.begin() + f * 270, s.begin() + (f + 1) * 270), ref) << "frame " << f;
  }
}

TEST(RankFilterOps, SameForAnyThreadCount) {
  ExpectSameForAnyThreadCount({OperatorDef("experimental.median_blur").Arg("window_size", int64_t{5}), Images(5, 31, 40, 3)});
  ExpectSameForAnyThreadCount({OperatorDef("experimental.dilate").Arg("iterations", int64_t{2}), Images(5, 31, 40, 3)});
}

TEST(RankFilterOps, BadArgumentsAreRejectedAtTheCall) {
  ExpectCallError(OperatorDef("experimental.median_blur").Arg("window_size", int64_t{0}), "window_size", "");
  ExpectCallError(OperatorDef("experimental.median_blur").Arg("window_size", std::vector<int64_t>{3, 3, 3}),
                  "window_size", "");
  ExpectCallError(OperatorDef("experimental.dilate").Arg("mask_size", std::vector<int64_t>{0, 3}), "mask_size", "");
  ExpectCallError(OperatorDef("experimental.dilate").Arg("anchor", std::vector<int64_t>{3, 0}), "anchor", "inside");
  ExpectCallError(OperatorDef("experimental.erode").Arg("anchor", int64_t{-2}), "anchor", "");
  ExpectCallError(OperatorDef("experimental.erode").Arg("iterations", int64_t{0}), "iterations", "");
  ExpectCallError(OperatorDef("experimental.erode").Arg("border_mode", std::string("mirror")), "border_mode", "");
}

}  // namespace
}  // namespace sluice
