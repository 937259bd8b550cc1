// experimental.warp_perspective through the pipeline (shared harness): DALI's arguments and
// defaults (pixel_origin "corner", inverse_map, border "constant", linear), the matrix as an
// argument, a per-sample argument input or the second input, `size`, layouts (HWC, CHW), errors at
// the call naming the argument, determinism across num_threads. The kernel is checked against a
// scalar reference in tests/kernels/warp_perspective_test.cc and against OpenCV / DALI 2.4 in
// python/tests/test_warp_perspective.py; here results are compared with the kernel called directly.
#include <gtest/gtest.h>

#include <random>

#include "kernels/warp/warp_perspective.h"
#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;

const std::vector<double> kM = {0.9, 0.1, 3, -0.05, 1.1, 2, 0.002, 0.001, 1};
const std::vector<double> kId = {1, 0, 0, 0, 1, 0, 0, 0, 1};

HostBatch Images(int n, int h, int w, int c, const std::string& layout = "HWC") {
  std::mt19937 rng(5);
  std::vector<std::vector<uint8_t>> s;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> v(size_t(h * w * c));
    for (auto& x : v) x = uint8_t(rng() & 0xff);
    s.push_back(std::move(v));
    shapes.push_back(layout == "CHW" ? TensorShape{c, h, w} : TensorShape{h, w, c});
  }
  return HostBatch::Of(s, shapes, layout);
}

std::vector<uint8_t> Sample(const Batch& b, int i) {
  const auto* p = static_cast<const uint8_t*>(b.data(i));
  return std::vector<uint8_t>(p, p + b.nbytes(i));
}

// The kernel on sample i with the centre-convention map of `m` (corner: T(-0.5) m T(0.5)).
std::vector<uint8_t> Direct(const HostBatch& in, int i, const std::vector<double>& m, bool corner,
                            const kernels::ImageGeom& ig, const kernels::ImageGeom& og,
                            kernels::PerspectiveInterp interp = kernels::PerspectiveInterp::kLinear) {
  kernels::PerspectiveParams p;
  p.interp = interp;
  const double s = corner ? 0.5 : 0.0;
  // T(-s) * m * T(s)
  double t[9];
  for (int r = 0; r < 3; ++r) {
    t[r * 3] = m[size_t(r * 3)];
    t[r * 3 + 1] = m[size_t(r * 3 + 1)];
    t[r * 3 + 2] = s * (m[size_t(r * 3)] + m[size_t(r * 3 + 1)]) + m[size_t(r * 3 + 2)];
  }
  for (int c = 0; c < 3; ++c) {
    p.map[c] = t[c] - s * t[6 + c];
    p.map[3 + c] = t[3 + c] - s * t[6 + c];
    p.map[6 + c] = t[6 + c];
  }
  std::vector<uint8_t> o(size_t(og.height * og.width * og.channels));
  kernels::WarpPerspective(in.bytes[size_t(i)].data(), ig, o.data(), og, DType::kUInt8, p);
  return o;
}

TEST(WarpPerspectiveOp, MatrixArgumentDefaultsAndSize) {
  const HostBatch in = Images(2, 20, 30, 3);
  const auto g = kernels::ImageGeom::HWC(20, 30, 3);
  auto out = RunOpCase({OperatorDef("experimental.warp_perspective").Arg("matrix", kM), in});
  ASSERT_EQ(out[0].shape(1), (TensorShape{20, 30, 3}));
  EXPECT_EQ(Sample(out[0], 1), Direct(in, 1, kM, true, g, g));
  out = RunOpCase({OperatorDef("experimental.warp_perspective")
                       .Arg("matrix", kM)
                       .Arg("size", std::vector<double>{11, 17})
                       .Arg("pixel_origin", std::string("center"))
                       .Arg("interp_type", std::string("CUBIC")),
                   in});
  ASSERT_EQ(out[0].shape(0), (TensorShape{11, 17, 3}));
  EXPECT_EQ(Sample(out[0], 0),
            Direct(in, 0, kM, false, g, kernels::ImageGeom::HWC(11, 17, 3), kernels::PerspectiveInterp::kCubic));
}

TEST(WarpPerspectiveOp, MatrixPerSampleOrAsInput) {
  const HostBatch in = Images(2, 16, 21, 3, "CHW");
  const auto g = kernels::ImageGeom::CHW(3, 16, 21);
  std::vector<float> m0(kM.begin(), kM.end()), m1(kId.begin(), kId.end());
  m1[2] = 2.5f;
  const HostBatch mats = HostBatch::Of<float>({m0, m1}, {TensorShape{3, 3}, TensorShape{3, 3}});
  const auto by_arg = RunOpCase({OperatorDef("experimental.warp_perspective"), in, {{"matrix", mats}}});
  EXPECT_EQ(Sample(by_arg[0], 0), Direct(in, 0, kM, true, g, g));
  EXPECT_EQ(Sample(by_arg[0], 1), Direct(in, 1, {1, 0, 2.5, 0, 1, 0, 0, 0, 1}, true, g, g));
  // The second positional input: the same matrices.
  PipelineOptions o;
  o.batch_size = 2;
  o.num_threads = 2;
  Pipeline p(o);
  OperatorDef def("experimental.warp_perspective");
  def.Input(p.AddOperator(OperatorDef("external_source").Name("src"))[0]);
  def.Input(p.AddOperator(OperatorDef("external_source").Name("mat"))[0]);
  p.SetOutputs(p.AddOperator(def));
  p.Build();
  p.FeedInput("src", harness_detail::Samples(in), "CHW");
  p.FeedInput("mat", harness_detail::Samples(mats), "");
  p.ScheduleRun();
  const auto by_input = p.ShareOutputs();
  EXPECT_EQ(Fingerprint(by_input), Fingerprint(by_arg));
}

TEST(WarpPerspectiveOp, InverseMapFalseInverts) {
  const HostBatch in = Images(1, 18, 25, 1);
  const std::vector<double> fwd = {2, 0, 0, 0, 2, 0, 0, 0, 1};  // source -> destination: scale 2
  const auto a = RunOpCase({OperatorDef("experimental.warp_perspective").Arg("matrix", fwd).Arg("inverse_map", false), in});
  const auto b = RunOpCase(
      {OperatorDef("experimental.warp_perspective").Arg("matrix", std::vector<double>{0.5, 0, 0, 0, 0.5, 0, 0, 0, 1}), in});
  EXPECT_EQ(Fingerprint(a), Fingerprint(b));
  ExpectRunError({OperatorDef("experimental.warp_perspective")
                      .Arg("matrix", std::vector<double>{1, 2, 3, 2, 4, 6, 0, 0, 1})
                      .Arg("inverse_map", false),
                  in},
                 "singular");
}

TEST(WarpPerspectiveOp, SameForAnyThreadCount) {
  ExpectSameForAnyThreadCount(
      {OperatorDef("experimental.warp_perspective").Arg("matrix", kM).Arg("border_mode", std::string("reflect")),
       Images(5, 31, 40, 3)});
}

TEST(WarpPerspectiveOp, BadArgumentsAreRejectedAtTheCall) {
  ExpectCallError(OperatorDef("experimental.warp_perspective"), "matrix", "required");
  ExpectCallError(OperatorDef("experimental.warp_perspective").Arg("matrix", std::vector<double>{1, 0, 0, 1}), "matrix", "");
  ExpectCallError(OperatorDef("experimental.warp_perspective").Arg("matrix", kM).Arg("interp_type", std::string("LANCZOS3")),
                  "interp_type", "");
  ExpectCallError(OperatorDef("experimental.warp_perspective").Arg("matrix", kM).Arg("border_mode", std::string("mirror")),
                  "border_mode", "");
  ExpectCallError(OperatorDef("experimental.warp_perspective").Arg("matrix", kM).Arg("size", std::vector<double>{0, 3}),
                  "size", "");
  ExpectCallError(OperatorDef("experimental.warp_perspective").Arg("matrix", kM).Arg("pixel_origin", std::string("x")),
                  "pixel_origin", "");
  ExpectRunError({OperatorDef("experimental.warp_perspective").Arg("matrix", kM).Arg("fill_value", std::vector<double>{1, 2}),
                  Images(1, 5, 5, 3)},
                 "fill_value");
}

}  // namespace
}  // namespace sluice
