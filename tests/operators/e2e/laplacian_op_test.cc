// laplacian through the pipeline (shared harness): DALI's arguments and defaults (window_size 3,
// smoothing_size: each partial's own window_size, scale 1, normalized_kernel), per-sample argument inputs, the
// layouts (HWC, CHW, HW, FHWC frame by frame), dtype, determinism across num_threads and the
// errors at the call naming the argument. The kernel is checked against a direct sum and OpenCV in
// tests/kernels/laplacian_test.cc; here each result is compared with the kernel called directly.
#include <gtest/gtest.h>

#include <random>

#include "kernels/filter/laplacian.h"
#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;

std::vector<uint8_t> Noise(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xff);
  return v;
}

HostBatch Images(int n, int h, int w, int c, const std::string& layout = "HWC") {
  std::vector<std::vector<uint8_t>> s;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < n; ++i) {
    s.push_back(Noise(size_t(h * w * c), uint32_t(i + 1)));
    shapes.push_back(layout == "HW" ? TensorShape{h, w} : layout == "CHW" ? TensorShape{c, h, w} : TensorShape{h, w, c});
  }
  return HostBatch::Of(s, shapes, layout);
}

template <typename T>
std::vector<T> Sample(const Batch& b, int i) {
  const auto* p = static_cast<const T*>(b.data(i));
  return std::vector<T>(p, p + b.nbytes(i) / sizeof(T));
}

template <typename T>
std::vector<T> Direct(const HostBatch& in, int i, DType out, const kernels::ImageGeom& g,
                      const kernels::LaplacianWindows& w) {
  std::vector<T> o(in.bytes[size_t(i)].size());
  kernels::Laplacian2D(in.bytes[size_t(i)].data(), in.dtype, o.data(), out, g, w);
  return o;
}

TEST(LaplacianOp, DefaultsAreWindow3AndTheInputType) {
  const HostBatch in = Images(2, 19, 23, 3);
  const auto out = RunOpCase({OperatorDef("laplacian"), in});
  ASSERT_EQ(out[0].dtype(), DType::kUInt8);
  EXPECT_EQ(out[0].layout(), "HWC");
  const auto w = kernels::MakeLaplacianWindows(3, 3, 3, 3, false, 1, 1);
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(Sample<uint8_t>(out[0], i), Direct<uint8_t>(in, i, DType::kUInt8, kernels::ImageGeom::HWC(19, 23, 3), w));
}

TEST(LaplacianOp, ArgumentsReachTheKernel) {
  const HostBatch in = Images(2, 17, 21, 3, "CHW");
  const auto g = kernels::ImageGeom::CHW(3, 17, 21);
  auto out = RunOpCase({OperatorDef("laplacian")
                            .Arg("window_size", std::vector<int64_t>{5, 3})
                            .Arg("smoothing_size", std::vector<int64_t>{1, 7})
                            .Arg("scale", std::vector<double>{0.5, 2.0})
                            .Arg("dtype", std::string("float32")),
                        in});
  ASSERT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(Sample<float>(out[0], 1),
            Direct<float>(in, 1, DType::kFloat32, g, kernels::MakeLaplacianWindows(5, 3, 1, 7, false, 0.5f, 2.0f)));
  out = RunOpCase({OperatorDef("laplacian").Arg("window_size", int64_t{7}).Arg("normalized_kernel", true).Arg(
                       "dtype", std::string("int16")),
                   in});
  EXPECT_EQ(Sample<int16_t>(out[0], 0),
            Direct<int16_t>(in, 0, DType::kInt16, g, kernels::MakeLaplacianWindows(7, 7, 7, 7, true, 1, 1)));
}

TEST(LaplacianOp, PerSampleArgumentInputs) {
  const HostBatch in = Images(2, 15, 16, 1, "HW");
  const auto g = kernels::ImageGeom::HWC(15, 16, 1);
  const HostBatch ws = HostBatch::Of<int32_t>({{3, 5}, {7, 3}}, {TensorShape{2}, TensorShape{2}});
  const HostBatch sc = HostBatch::Of<float>({{2.0f}, {0.25f}}, {TensorShape{1}, TensorShape{1}});
  const auto out = RunOpCase({OperatorDef("laplacian").Arg("dtype", std::string("float32")), in,
                              {{"window_size", ws}, {"scale", sc}}});
  // No smoothing_size: d/dH smooths along W with window_size[H], d/dW along H with window_size[W]
  // (DALI's rule), so MakeLaplacianWindows(wy, wx, sy = wx, sx = wy).
  EXPECT_EQ(Sample<float>(out[0], 0),
            Direct<float>(in, 0, DType::kFloat32, g, kernels::MakeLaplacianWindows(3, 5, 5, 3, false, 2, 2)));
  EXPECT_EQ(Sample<float>(out[0], 1),
            Direct<float>(in, 1, DType::kFloat32, g, kernels::MakeLaplacianWindows(7, 3, 3, 7, false, .25f, .25f)));
  // A per-sample window out of range or even names the argument and the sample.
  const HostBatch bad = HostBatch::Of<int32_t>({{3}, {4}}, {TensorShape{1}, TensorShape{1}});
  ExpectRunError({OperatorDef("laplacian"), in, {{"window_size", bad}}}, "window_size");
  const HostBatch three = HostBatch::Of<float>({{1, 2, 3}, {1}}, {TensorShape{3}, TensorShape{1}});
  ExpectRunError({OperatorDef("laplacian"), in, {{"scale", three}}}, "scale");
}

TEST(LaplacianOp, SequencesFrameByFrame) {
  HostBatch seq = Images(1, 2 * 9, 10, 3);
  seq.shapes = {TensorShape{2, 9, 10, 3}};
  seq.layout = "FHWC";
  const auto out = RunOpCase({OperatorDef("laplacian").Arg("window_size", int64_t{5}), seq});
  ASSERT_EQ(out[0].shape(0), (TensorShape{2, 9, 10, 3}));
  const auto all = Sample<uint8_t>(out[0], 0);
  const auto w = kernels::MakeLaplacianWindows(5, 5, 5, 5, false, 1, 1);
  for (int f = 0; f < 2; ++f) {
    std::vector<uint8_t> frame(seq.bytes[0].begin() + f * 270, seq.bytes[0].begin() + (f + 1) * 270), ref(270);
    kernels::Laplacian2D(frame.data(), DType::kUInt8, ref.data(), DType::kUInt8, kernels::ImageGeom::HWC(9, 10, 3), w);
    EXPECT_EQ(std::vector<uint8_t>(all.begin() + f * 270, all.begin() + (f + 1) * 270), ref) << "frame " << f;
  }
}

TEST(LaplacianOp, SameForAnyThreadCount) {
  ExpectSameForAnyThreadCount({OperatorDef("laplacian").Arg("window_size", int64_t{5}), Images(5, 31, 40, 3)});
}

TEST(LaplacianOp, BadArgumentsAreRejectedAtTheCall) {
  ExpectCallError(OperatorDef("laplacian").Arg("window_size", int64_t{4}), "window_size", "odd");
  ExpectCallError(OperatorDef("laplacian").Arg("window_size", int64_t{1}), "window_size", "");
  ExpectCallError(OperatorDef("laplacian").Arg("window_size", int64_t{33}), "window_size", "");  // DALI: 3..31
  ExpectCallError(OperatorDef("laplacian").Arg("smoothing_size", int64_t{33}), "smoothing_size", "");
  ExpectCallError(OperatorDef("laplacian").Arg("window_size", std::vector<int64_t>{3, 3, 3, 3}), "window_size", "");
  ExpectCallError(OperatorDef("laplacian").Arg("smoothing_size", int64_t{2}), "smoothing_size", "odd");
  ExpectCallError(OperatorDef("laplacian").Arg("smoothing_size", int64_t{-1}), "smoothing_size", "");
  ExpectCallError(OperatorDef("laplacian").Arg("scale", std::vector<double>{1, 2, 3, 4}), "scale", "");
  ExpectCallError(OperatorDef("laplacian").Arg("scale", 2.0).Arg("normalized_kernel", true), "scale",
                  "normalized_kernel");
  ExpectCallError(OperatorDef("laplacian").Arg("dtype", std::string("int32")), "dtype", "");
}

}  // namespace
}  // namespace sluice
