// tensor_resize with the shared harness: HWC images and DHWC-like volumes against the resize
// kernels (bit-exact: the operator maps onto them), 1-D signals and a middle axis against linear
// interpolation written here, an unchanged axis between two resized ones, DALI's size rules
// (scales with size_rounding, alignment, roi, axes / axis_names), and bad arguments rejected at
// the call or the run, naming the argument. Photographs and SciPy: python/tests/test_tensor_resize.py.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;

std::vector<float> Ramp(size_t n, float k) {
  std::vector<float> v(n);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(float(i) * k) * 10.0f + float(i % 7);
  return v;
}

template <typename T>
std::vector<T> Values(const Batch& b, int i) {
  const auto* p = static_cast<const T*>(b.data(i));
  return std::vector<T>(p, p + b.nbytes(i) / sizeof(T));
}

// Linear interpolation without antialiasing of n_in samples (stride `stride`) to n_out:
// source (i + 0.5) * n_in / n_out - 0.5, the edge sample repeated.
std::vector<double> Linear1D(const std::vector<double>& x, int n_out) {
  const int n = static_cast<int>(x.size());
  std::vector<double> y(static_cast<size_t>(n_out));
  for (int i = 0; i < n_out; ++i) {
    const double s = (i + 0.5) * n / n_out - 0.5;
    const int a = static_cast<int>(std::floor(s));
    const double f = s - a;
    auto at = [&](int k) { return x[size_t(std::clamp(k, 0, n - 1))]; };
    y[size_t(i)] = at(a) * (1 - f) + at(a + 1) * f;
  }
  return y;
}

TEST(TensorResize, HwcImageAlongHeightAndWidthIsResize) {
  std::vector<uint8_t> img(size_t(30) * 40 * 3);
  for (size_t i = 0; i < img.size(); ++i) img[i] = uint8_t((i * 53) & 0xff);
  const HostBatch in = HostBatch::Of<uint8_t>({img}, {TensorShape{30, 40, 3}}, "HWC");
  for (const OperatorDef& op : {OperatorDef("tensor_resize").Arg("sizes", std::vector<double>{13, 17}).Arg("axes", std::vector<int64_t>{0, 1}),
                                OperatorDef("tensor_resize").Arg("sizes", std::vector<double>{13, 17}).Arg("axis_names", std::string("HW")),
                                OperatorDef("tensor_resize").Arg("sizes", std::vector<double>{13, 17, 3})}) {
    const std::vector<Batch> out = RunOpCase(OpCase{op, in});
    ASSERT_EQ(out[0].shape(0), (TensorShape{13, 17, 3}));
    EXPECT_EQ(out[0].layout(), "HWC");
    std::vector<uint8_t> ref(size_t(13) * 17 * 3);
    kernels::Resize(img.data(), 30, 40, 3, ref.data(), 13, 17, kernels::ResizeParams{});
    EXPECT_EQ(Values<uint8_t>(out[0], 0), ref);
  }
}

TEST(TensorResize, VolumeOfThreeAxesIsResizeVolume) {
  const std::vector<float> v = Ramp(6 * 7 * 8, 0.3f);
  const HostBatch in = HostBatch::Of<float>({v}, {TensorShape{6, 7, 8}});
  const OpCase c{OperatorDef("tensor_resize").Arg("sizes", std::vector<double>{9, 4, 11}), in};
  const std::vector<Batch> out = RunOpCase(c);
  ASSERT_EQ(out[0].shape(0), (TensorShape{9, 4, 11}));
  std::vector<float> ref(size_t(9) * 4 * 11);
  kernels::ResizeParams p;
  p.roi = kernels::ResizeRoi{0, 0, 8, 7};
  kernels::ResizeVolume(v.data(), 6, 7, 8, 1, ref.data(), 9, 4, 11, p, kernels::ResizeDepthRoi{0, 6});
  EXPECT_EQ(Values<float>(out[0], 0), ref);
  ExpectSameForAnyThreadCount(c);
}

TEST(TensorResize, SignalAndMiddleAxisAgainstLinearInterpolation) {
  // A 1-D signal 50 -> 123, and axis 1 of a (4, 10, 3) tensor 10 -> 23 (rows and channels apart).
  const std::vector<float> sig = Ramp(50, 0.2f);
  std::vector<Batch> out = RunOpCase(OpCase{
      OperatorDef("tensor_resize").Arg("sizes", std::vector<double>{123}).Arg("antialias", false),
      HostBatch::Of<float>({sig}, {TensorShape{50}})});
  ASSERT_EQ(out[0].shape(0), (TensorShape{123}));
  const std::vector<double> want = Linear1D(std::vector<double>(sig.begin(), sig.end()), 123);
  const std::vector<float> got = Values<float>(out[0], 0);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;

  const std::vector<float> t = Ramp(4 * 10 * 3, 0.7f);
  out = RunOpCase(OpCase{OperatorDef("tensor_resize")
                             .Arg("axes", std::vector<int64_t>{-2})
                             .Arg("sizes", std::vector<double>{23})
                             .Arg("antialias", false),
                         HostBatch::Of<float>({t}, {TensorShape{4, 10, 3}})});
  ASSERT_EQ(out[0].shape(0), (TensorShape{4, 23, 3}));
  const std::vector<float> g = Values<float>(out[0], 0);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) {
      std::vector<double> x(10);
      for (int k = 0; k < 10; ++k) x[size_t(k)] = t[size_t((r * 10 + k) * 3 + c)];
      const std::vector<double> y = Linear1D(x, 23);
      for (int k = 0; k < 23; ++k) EXPECT_NEAR(g[size_t((r * 23 + k) * 3 + c)], y[size_t(k)], 1e-4) << r << k << c;
    }
}

// out = a separable linear resize (no antialiasing) of axes `ax0` (to n0) and `ax2` (to n2) of
// t (d0 x d1 x d2 x d3), in double: axis 2 first, then axis 0.
std::vector<double> Separable(const std::vector<float>& t, int d0, int d1, int d2, int d3, int n0, int n2) {
  std::vector<double> mid(size_t(d0) * d1 * n2 * d3), out(size_t(n0) * d1 * n2 * d3);
  for (int a = 0; a < d0; ++a)
    for (int b = 0; b < d1; ++b)
      for (int c = 0; c < d3; ++c) {
        std::vector<double> x(static_cast<size_t>(d2));
        for (int k = 0; k < d2; ++k) x[size_t(k)] = t[size_t(((a * d1 + b) * d2 + k) * d3 + c)];
        const auto y = Linear1D(x, n2);
        for (int k = 0; k < n2; ++k) mid[size_t(((a * d1 + b) * n2 + k) * d3 + c)] = y[size_t(k)];
      }
  for (int b = 0; b < d1; ++b)
    for (int k = 0; k < n2; ++k)
      for (int c = 0; c < d3; ++c) {
        std::vector<double> x(static_cast<size_t>(d0));
        for (int a = 0; a < d0; ++a) x[size_t(a)] = mid[size_t(((a * d1 + b) * n2 + k) * d3 + c)];
        const auto y = Linear1D(x, n0);
        for (int a = 0; a < n0; ++a) out[size_t(((a * d1 + b) * n2 + k) * d3 + c)] = y[size_t(a)];
      }
  return out;
}

TEST(TensorResize, UnchangedAxisBetweenResizedOnesAndManyChannels) {
  // (6, 5, 8, 4): axes 0 and 2 resized, axis 1 unchanged between them, 4 channels.
  const std::vector<float> t = Ramp(6 * 5 * 8 * 4, 0.11f);
  std::vector<Batch> out = RunOpCase(OpCase{OperatorDef("tensor_resize")
                                                .Arg("axes", std::vector<int64_t>{0, 2})
                                                .Arg("sizes", std::vector<double>{9, 3})
                                                .Arg("antialias", false),
                                            HostBatch::Of<float>({t}, {TensorShape{6, 5, 8, 4}})});
  ASSERT_EQ(out[0].shape(0), (TensorShape{9, 5, 3, 4}));
  std::vector<float> g = Values<float>(out[0], 0);
  std::vector<double> want = Separable(t, 6, 5, 8, 4, 9, 3);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(g[i], want[i], 1e-4) << i;
  // (6, 8, 7): axes 0 and 1 resized; the 7 trailing elements are an unchanged third group.
  const std::vector<float> u = Ramp(6 * 8 * 7, 0.13f);
  out = RunOpCase(OpCase{OperatorDef("tensor_resize")
                             .Arg("axes", std::vector<int64_t>{0, 1})
                             .Arg("sizes", std::vector<double>{9, 3})
                             .Arg("antialias", false),
                         HostBatch::Of<float>({u}, {TensorShape{6, 8, 7}})});
  ASSERT_EQ(out[0].shape(0), (TensorShape{9, 3, 7}));
  g = Values<float>(out[0], 0);
  want = Separable(u, 6, 1, 8, 7, 9, 3);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(g[i], want[i], 1e-4) << i;
}

TEST(TensorResize, ScalesRoundingAlignmentAndRoi) {
  const std::vector<float> d = {1, 2, 3, 4, 5, 6, 7, 8};  // 2 x 4
  const HostBatch in = HostBatch::Of<float>({d}, {TensorShape{2, 4}});
  auto shape = [&](OperatorDef op) { return RunOpCase(OpCase{op, in})[0].shape(0); };
  const auto scales = std::vector<double>{0.6, 0.6};
  EXPECT_EQ(shape(OperatorDef("tensor_resize").Arg("scales", scales)), (TensorShape{1, 2}));  // round(1.2), round(2.4)
  EXPECT_EQ(shape(OperatorDef("tensor_resize").Arg("scales", scales).Arg("size_rounding", std::string("ceil"))),
            (TensorShape{2, 3}));
  EXPECT_EQ(shape(OperatorDef("tensor_resize").Arg("scales", 1.3).Arg("size_rounding", std::string("truncate"))),
            (TensorShape{2, 5}));
  // DALI's tests (ONNX's linear reference): alignment 0, 0.5 and 1 place the scaled region.
  const float want[3][2] = {{2.6666665f, 4.3333331f}, {3.6666665f, 5.3333331f}, {4.6666665f, 6.3333331f}};
  const double align[3] = {0.0, 0.5, 1.0};
  for (int k = 0; k < 3; ++k) {
    const auto v = Values<float>(RunOpCase(OpCase{OperatorDef("tensor_resize")
                                                      .Arg("scales", scales)
                                                      .Arg("alignment", align[k])
                                                      .Arg("antialias", false),
                                                  in})[0],
                                 0);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_NEAR(v[0], want[k][0], 1e-5) << align[k];
    EXPECT_NEAR(v[1], want[k][1], 1e-5) << align[k];
  }
  // roi_start > roi_end flips the axis; a relative roi of the second half.
  const auto flipped = Values<float>(RunOpCase(OpCase{OperatorDef("tensor_resize")
                                                          .Arg("axes", std::vector<int64_t>{1})
                                                          .Arg("sizes", std::vector<double>{4})
                                                          .Arg("roi_start", std::vector<double>{4})
                                                          .Arg("roi_end", std::vector<double>{0}),
                                                      in})[0],
                                     0);
  EXPECT_EQ(flipped, (std::vector<float>{4, 3, 2, 1, 8, 7, 6, 5}));
  const auto half = Values<float>(RunOpCase(OpCase{OperatorDef("tensor_resize")
                                                       .Arg("axes", std::vector<int64_t>{1})
                                                       .Arg("sizes", std::vector<double>{2})
                                                       .Arg("roi_start", 0.5)
                                                       .Arg("roi_end", 1.0)
                                                       .Arg("roi_relative", true),
                                                   in})[0],
                                  0);
  EXPECT_EQ(half, (std::vector<float>{3, 4, 7, 8}));
}

TEST(TensorResize, NearestPerSampleSizesAndDtype) {
  const std::vector<uint8_t> a = {10, 20, 30, 40}, b = {1, 2, 3, 4, 5, 6};
  const HostBatch in = HostBatch::Of<uint8_t>({a, b}, {TensorShape{2, 2}, TensorShape{2, 3}});
  const OpCase c{OperatorDef("tensor_resize").Arg("interp_type", std::string("NN")).Arg("dtype", std::string("float32")),
                 in,
                 {{"sizes", HostBatch::Of<float>({{4, 4}, {2, 6}}, {TensorShape{2}, TensorShape{2}})}}};
  const std::vector<Batch> out = RunOpCase(c);
  ASSERT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(Values<float>(out[0], 0),
            (std::vector<float>{10, 10, 20, 20, 10, 10, 20, 20, 30, 30, 40, 40, 30, 30, 40, 40}));
  EXPECT_EQ(Values<float>(out[0], 1), (std::vector<float>{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
}

TEST(TensorResize, BadArgumentsNameTheArgument) {
  ExpectCallError(OperatorDef("tensor_resize"), "sizes", "one of sizes or scales");
  ExpectCallError(OperatorDef("tensor_resize").Arg("sizes", 2.0).Arg("scales", 2.0), "sizes", "one of sizes or scales");
  ExpectCallError(OperatorDef("tensor_resize").Arg("scales", 2.0).Arg("mode", std::string("not_smaller")), "mode", "scales");
  ExpectCallError(OperatorDef("tensor_resize").Arg("sizes", 2.0).Arg("roi_start", 0.0), "roi_end", "together");
  ExpectCallError(OperatorDef("tensor_resize").Arg("sizes", 2.0).Arg("size_rounding", std::string("floor")),
                  "size_rounding", "");
  ExpectCallError(OperatorDef("tensor_resize")
                      .Arg("sizes", 2.0)
                      .Arg("axes", std::vector<int64_t>{0})
                      .Arg("axis_names", std::string("H")),
                  "axes", "");
  ExpectCallError(OperatorDef("tensor_resize").Arg("sizes", -2.0), "sizes", "");
  const HostBatch in = HostBatch::Of<float>({Ramp(24, 0.1f)}, {TensorShape{2, 3, 4}});
  ExpectRunError(OpCase{OperatorDef("tensor_resize").Arg("sizes", 2.0).Arg("axes", std::vector<int64_t>{3}), in}, "axes");
  ExpectRunError(OpCase{OperatorDef("tensor_resize").Arg("sizes", std::vector<double>{2, 2}), in}, "sizes");
  ExpectRunError(OpCase{OperatorDef("tensor_resize").Arg("sizes", 2.0).Arg("axis_names", std::string("W")), in},
                 "axis_names");
  // Axes 0, 2 and 4 resized with unresized axes between them: 5 groups.
  const HostBatch deep = HostBatch::Of<float>({Ramp(2 * 2 * 2 * 2 * 2, 0.1f)}, {TensorShape{2, 2, 2, 2, 2}});
  ExpectRunError(
      OpCase{OperatorDef("tensor_resize").Arg("axes", std::vector<int64_t>{0, 2, 4}).Arg("sizes", 3.0), deep},
      "at most 3");
}

}  // namespace
}  // namespace sluice
