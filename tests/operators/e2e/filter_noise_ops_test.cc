// gaussian_blur, filter, noise.gaussian/shot/salt_and_pepper, erase, grid_mask and
// jpeg_compression_distortion through the pipeline: DALI's arguments and defaults, per-sample
// argument inputs, layouts, determinism across num_threads and the errors (operator and argument
// named). The kernels are checked against OpenCV/TurboJPEG/scalar references in
// tests/kernels/filter_kernels_test.cc.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <random>

#include "kernels/filter/convolution.h"
#include "kernels/filter/gaussian_window.h"
#include "kernels/noise/jpeg_distortion.h"
#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

std::vector<uint8_t> Noise(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xff);
  return v;
}

struct Feed {
  std::vector<std::vector<uint8_t>> images;
  std::vector<TensorShape> shapes;
  std::string layout = "HWC";
  // Optional second input (filters, float32).
  std::vector<std::vector<float>> filters;
  std::vector<TensorShape> filter_shapes;
};

Feed Images(int n, int h = 19, int w = 23, int c = 3) {
  Feed f;
  for (int i = 0; i < n; ++i) {
    f.images.push_back(Noise(static_cast<size_t>(h * w * c), static_cast<uint32_t>(i + 1)));
    f.shapes.push_back(TensorShape{h, w, c});
  }
  return f;
}

// external_source(s) -> op; `args`: (argument, random.uniform range) fed as argument inputs,
// returned as outputs 1...
std::vector<Batch> RunOp(const Feed& f, OperatorDef op, const std::vector<std::pair<std::string, std::vector<double>>>& args = {},
                         int threads = 2, int iterations = 1) {
  Pipeline p(Options(static_cast<int>(f.images.size()), threads));
  auto e = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  op.Input(e);
  if (!f.filters.empty()) op.Input(p.AddOperator(OperatorDef("external_source").Name("flt"))[0]);
  std::vector<std::string> outs;
  for (const auto& [name, range] : args) {
    auto a = p.AddOperator(OperatorDef("random.uniform").Arg("range", range))[0];
    op.ArgInput(name, a);
    outs.push_back(a);
  }
  outs.insert(outs.begin(), p.AddOperator(op)[0]);
  p.SetOutputs(outs);
  p.Build();
  std::vector<Pipeline::ExternalSample> batch, fb;
  for (size_t i = 0; i < f.images.size(); ++i) batch.push_back({f.images[i].data(), f.shapes[i], DType::kUInt8});
  for (size_t i = 0; i < f.filters.size(); ++i) fb.push_back({f.filters[i].data(), f.filter_shapes[i], DType::kFloat32});
  std::vector<Batch> last;
  for (int k = 0; k < iterations + 1; ++k) {
    p.FeedInput("src", batch, f.layout);
    if (!fb.empty()) p.FeedInput("flt", fb, "");
  }
  for (int k = 0; k < iterations; ++k) {
    auto r = p.Run();
    last.insert(last.end(), r.begin(), r.end());
  }
  return last;
}

float Scalar(const Batch& b, int i) { return *static_cast<const float*>(b.data(i)); }

TEST(GaussianBlurOp, MatchesTheKernelWithDalisDefaultsAndPerSampleSigma) {
  const Feed f = Images(3);
  auto out = RunOp(f, OperatorDef("gaussian_blur"), {{"sigma", {0.5, 3.0}}});
  ASSERT_EQ(out[0].dtype(), DType::kUInt8);
  EXPECT_EQ(out[0].layout(), "HWC");
  for (int i = 0; i < 3; ++i) {
    const float s = Scalar(out[1], i);
    const auto w = kernels::GaussianWindow(kernels::GaussianSigmaToWindow(s), s);
    std::vector<uint8_t> ref(f.images[size_t(i)].size());
    kernels::SeparableFilter2D(f.images[size_t(i)].data(), DType::kUInt8, ref.data(), DType::kUInt8,
                               kernels::ImageGeom::HWC(19, 23, 3), w, w, kernels::BorderMode::kReflect101);
    EXPECT_EQ(SampleData<uint8_t>(out[0], i), ref) << i;
  }
  // Per-axis sigma and window, float output; window only gives sigma from OpenCV's formula.
  auto a = RunOp(f, OperatorDef("gaussian_blur").Arg("window_size", std::vector<int64_t>{5, 3}).Arg("dtype", std::string("float32")));
  ASSERT_EQ(a[0].dtype(), DType::kFloat32);
  auto b = RunOp(f, OperatorDef("gaussian_blur")
                        .Arg("window_size", std::vector<int64_t>{5, 3})
                        .Arg("sigma", std::vector<double>{1.1, 0.8})
                        .Arg("dtype", std::string("float32")));
  EXPECT_EQ(AllBytes(a), AllBytes(b));
  // CHW equals HWC transposed.
  Feed chw = f;
  chw.layout = "CHW";
  for (size_t i = 0; i < f.images.size(); ++i) {
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 19 * 23; ++k) chw.images[i][size_t(c * 19 * 23 + k)] = f.images[i][size_t(k * 3 + c)];
    chw.shapes[i] = TensorShape{3, 19, 23};
  }
  auto h = RunOp(f, OperatorDef("gaussian_blur").Arg("sigma", 1.5));
  auto p = RunOp(chw, OperatorDef("gaussian_blur").Arg("sigma", 1.5));
  EXPECT_EQ(p[0].layout(), "CHW");
  const auto hv = SampleData<uint8_t>(h[0], 1), pv = SampleData<uint8_t>(p[0], 1);
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 19 * 23; ++k) ASSERT_EQ(pv[size_t(c * 19 * 23 + k)], hv[size_t(k * 3 + c)]);
}

TEST(FilterOp, SecondInputAnchorBorderAndValidMode) {
  Feed f = Images(2, 12, 14, 3);
  f.filters = {{0, 0, 0, 0, 1, 0, 0, 0, 0}, {1, 2, 3, 4, 5, 6}};
  f.filter_shapes = {TensorShape{3, 3}, TensorShape{2, 3}};
  for (std::string mode : {"same", "valid"})
    for (std::string border : {"reflect_101", "reflect_1001", "wrap", "clamp", "constant"}) {
      auto out = RunOp(f, OperatorDef("filter").Arg("mode", mode).Arg("border", border).Arg("dtype", std::string("float32")));
      // Sample 0: the identity filter.
      const auto id = SampleData<float>(out[0], 0);
      if (mode == "same") {
        ASSERT_EQ(id.size(), f.images[0].size());
        for (size_t k = 0; k < id.size(); ++k) ASSERT_EQ(id[k], f.images[0][k]);
      } else {
        EXPECT_EQ(out[0].shape(0), (TensorShape{10, 12, 3}));
        EXPECT_EQ(out[0].shape(1), (TensorShape{11, 12, 3}));
      }
      // Sample 1: scalar correlation, anchor = centre (1, 1).
      const auto got = SampleData<float>(out[0], 1);
      kernels::BorderMode bm;
      ASSERT_TRUE(kernels::ParseBorderMode(border, &bm));
      const bool valid = mode == "valid";
      const int oh = valid ? 11 : 12, ow = valid ? 12 : 14;
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x)
          for (int c = 0; c < 3; ++c) {
            double acc = 0;
            for (int i = 0; i < 2; ++i)
              for (int j = 0; j < 3; ++j) {
                const int64_t sy = kernels::BorderIndex(y + i - (valid ? 0 : 1), 12, bm);
                const int64_t sx = kernels::BorderIndex(x + j - (valid ? 0 : 1), 14, bm);
                const double v = sy < 0 || sx < 0 ? 0.0 : f.images[1][size_t((sy * 14 + sx) * 3 + c)];
                acc += v * f.filters[1][size_t(i * 3 + j)];
              }
            ASSERT_NEAR(got[size_t((y * ow + x) * 3 + c)], acc, 1e-2) << mode << border;
          }
    }
  // anchor (0, 0) shifts the identity filter: out[y, x] = in[y + 1, x + 1] inside.
  auto sh = RunOp(f, OperatorDef("filter").Arg("anchor", std::vector<int64_t>{0, 0}));
  const auto s0 = SampleData<uint8_t>(sh[0], 0);
  for (int y = 0; y < 11; ++y)
    for (int x = 0; x < 13; ++x) ASSERT_EQ(s0[size_t((y * 14 + x) * 3)], f.images[0][size_t(((y + 1) * 14 + x + 1) * 3)]);
}

TEST(NoiseOps, GaussianStatisticsPerSampleArgumentsAndThreadDeterminism) {
  Feed f;
  for (int i = 0; i < 4; ++i) {
    f.images.push_back(std::vector<uint8_t>(64 * 64 * 3, 128));
    f.shapes.push_back(TensorShape{64, 64, 3});
  }
  auto out = RunOp(f, OperatorDef("noise.gaussian").Arg("stddev", 10.0).Arg("mean", 5.0));
  for (int i = 0; i < 4; ++i) {
    const auto v = SampleData<uint8_t>(out[0], i);
    double s = 0, s2 = 0;
    for (uint8_t x : v) {
      s += x - 128.0;
      s2 += (x - 128.0) * (x - 128.0);
    }
    const double mean = s / v.size(), sd = std::sqrt(s2 / v.size() - mean * mean);
    EXPECT_NEAR(mean, 5.0, 0.5);
    EXPECT_NEAR(sd, 10.0, 0.5);
  }
  EXPECT_NE(SampleData<uint8_t>(out[0], 0), SampleData<uint8_t>(out[0], 1));  // own stream per sample
  for (const char* op : {"noise.gaussian", "noise.shot", "noise.salt_and_pepper"}) {
    auto one = RunOp(f, OperatorDef(op), {}, 1, 2);
    auto three = RunOp(f, OperatorDef(op), {}, 3, 2);
    EXPECT_EQ(AllBytes(one), AllBytes(three)) << op;
    EXPECT_NE(AllBytes({one[0]}), AllBytes({one[1]})) << op;  // iterations differ
  }
  auto ps = RunOp(f, OperatorDef("noise.gaussian"), {{"stddev", {0, 0.001}}});
  EXPECT_EQ(SampleData<uint8_t>(ps[0], 2), f.images[2]);
}

TEST(NoiseOps, ShotAndSaltAndPepper) {
  Feed f;
  f.images.push_back(std::vector<uint8_t>(100 * 100 * 3, 200));
  f.shapes.push_back(TensorShape{100, 100, 3});
  auto shot = RunOp(f, OperatorDef("noise.shot").Arg("factor", 4.0));
  double s = 0, s2 = 0;
  const auto v = SampleData<uint8_t>(shot[0], 0);
  for (uint8_t x : v) {
    ASSERT_TRUE(x % 4 == 0 || x == 255) << int(x);  // multiples of factor, or saturated
    s += x;
    s2 += double(x) * x;
  }
  const double mean = s / v.size(), var = s2 / v.size() - mean * mean;
  EXPECT_NEAR(mean, 200, 1.0);
  EXPECT_NEAR(var, 200 * 4, 60);  // Var(factor * Poisson(in / factor)) = in * factor
  auto id = RunOp(f, OperatorDef("noise.shot").Arg("factor", 0.0));
  EXPECT_EQ(SampleData<uint8_t>(id[0], 0), f.images[0]);

  auto sp = RunOp(f, OperatorDef("noise.salt_and_pepper").Arg("prob", 0.3).Arg("salt_vs_pepper", 0.2));
  const auto p = SampleData<uint8_t>(sp[0], 0);
  int salt = 0, pepper = 0;
  for (size_t k = 0; k < p.size(); k += 3) {
    ASSERT_TRUE(p[k] == p[k + 1] && p[k] == p[k + 2]);
    salt += p[k] == 255;  // defaults: the type's max and min
    pepper += p[k] == 0;
  }
  EXPECT_NEAR(salt / 10000.0, 0.06, 0.015);
  EXPECT_NEAR(pepper / 10000.0, 0.24, 0.025);
  auto spv = RunOp(f, OperatorDef("noise.salt_and_pepper").Arg("prob", 1.0).Arg("salt_vs_pepper", 1.0).Arg("salt_val", 7.0));
  for (uint8_t x : SampleData<uint8_t>(spv[0], 0)) ASSERT_EQ(x, 7);
}

TEST(EraseOp, RegionsNormalizedCenteredAndPerChannelFill) {
  const Feed f = Images(2, 20, 30, 3);
  // Two regions along H and W.
  auto out = RunOp(f, OperatorDef("erase")
                          .Arg("anchor", std::vector<double>{2, 3, 10, 20})
                          .Arg("shape", std::vector<double>{4, 5, 30, 30})
                          .Arg("fill_value", std::vector<double>{1, 2, 3}));
  const auto v = SampleData<uint8_t>(out[0], 0);
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 30; ++x)
      for (int c = 0; c < 3; ++c) {
        const bool in = (y >= 2 && y < 6 && x >= 3 && x < 8) || (y >= 10 && x >= 20);
        ASSERT_EQ(v[size_t((y * 30 + x) * 3 + c)], in ? c + 1 : f.images[0][size_t((y * 30 + x) * 3 + c)]);
      }
  // axis_names "W": vertical band; normalized + centered: [trunc(0.5 * 30 - 0.2 * 30 / 2), ...).
  auto band = RunOp(f, OperatorDef("erase")
                           .Arg("axis_names", std::string("W"))
                           .Arg("anchor", std::vector<double>{0.5})
                           .Arg("shape", std::vector<double>{0.2})
                           .Arg("normalized", true)
                           .Arg("centered_anchor", true));
  const auto b = SampleData<uint8_t>(band[0], 1);
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 30; ++x) {
      const bool in = x >= 12 && x < 18;
      ASSERT_EQ(b[size_t((y * 30 + x) * 3)], in ? 0 : f.images[1][size_t((y * 30 + x) * 3)]) << y << "," << x;
    }
  // No shape: the input comes back.
  auto none = RunOp(f, OperatorDef("erase"));
  EXPECT_EQ(SampleData<uint8_t>(none[0], 0), f.images[0]);
}

TEST(GridMaskOp, ZeroesDalisGridAndPerSampleTile) {
  const Feed f = Images(2, 40, 40, 3);
  auto out = RunOp(f, OperatorDef("grid_mask").Arg("tile", int64_t{10}).Arg("ratio", 0.35));
  const auto v = SampleData<uint8_t>(out[0], 0);
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 40; ++x) {
      const bool keep = (x % 10) >= 4 || (y % 10) >= 4;  // angle 0: squares of 3.5 px at each tile's origin
      ASSERT_EQ(v[size_t((y * 40 + x) * 3)], keep ? f.images[0][size_t((y * 40 + x) * 3)] : 0) << y << "," << x;
    }
  auto ps = RunOp(f, OperatorDef("grid_mask"), {{"angle", {0.1, 0.7}}, {"shift_x", {0, 5}}});
  EXPECT_EQ(ps[0].shape(1), (TensorShape{40, 40, 3}));
}

TEST(JpegCompressionDistortionOp, RoundTripPerSampleQuality) {
  const Feed f = Images(2, 32, 40, 3);
  auto out = RunOp(f, OperatorDef("jpeg_compression_distortion"));
  std::vector<uint8_t> ref(f.images[0].size());
  kernels::JpegDistort(f.images[0].data(), 32, 40, 3, 50, ref.data());  // DALI's default quality 50
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), ref);
  auto hi = RunOp(f, OperatorDef("jpeg_compression_distortion").Arg("quality", int64_t{500}));  // clamped to 100
  kernels::JpegDistort(f.images[1].data(), 32, 40, 3, 100, ref.data());
  EXPECT_EQ(SampleData<uint8_t>(hi[0], 1), ref);
}

TEST(FilterNoiseOps, BadInputsAndArgumentsNameTheOperatorAndArgument) {
  Feed chw = Images(1, 3, 8, 8);
  chw.layout = "CHW";
  ExpectError([&] { RunOp(chw, OperatorDef("grid_mask")); }, {"grid_mask", "HWC", "'CHW'"});
  ExpectError([&] { RunOp(chw, OperatorDef("jpeg_compression_distortion")); }, {"jpeg_compression_distortion", "HWC"});
  Feed hcw = Images(1);  // gaussian_blur takes images, sequences and volumes, not this
  hcw.layout = "HCW";
  ExpectError([&] { RunOp(hcw, OperatorDef("gaussian_blur").Arg("sigma", 1.0)); }, {"gaussian_blur", "'HCW'"});
  ExpectError([&] { RunOp(Images(1, 8, 8, 4), OperatorDef("jpeg_compression_distortion")); }, {"3 (RGB)", "(8, 8, 4)"});
  auto add_error = [](OperatorDef def, const std::vector<std::string>& fragments) {
    ExpectError([&] { RunOp(Images(1), def); }, fragments);
  };
  add_error(OperatorDef("gaussian_blur"), {"gaussian_blur", "argument 'sigma'"});
  add_error(OperatorDef("gaussian_blur").Arg("sigma", -1.0), {"argument 'sigma'"});
  add_error(OperatorDef("gaussian_blur").Arg("window_size", int64_t{4}), {"argument 'window_size'", "odd"});
  // Three values are for volumes (D, H, W): refused for an image when the batch is set up.
  add_error(OperatorDef("gaussian_blur").Arg("sigma", std::vector<double>{1, 2, 3}), {"argument 'sigma'", "1 value or 2"});
  add_error(OperatorDef("noise.salt_and_pepper").Arg("prob", 1.5), {"noise.salt_and_pepper", "argument 'prob'"});
  add_error(OperatorDef("noise.salt_and_pepper").Arg("salt_vs_pepper", -0.1), {"argument 'salt_vs_pepper'"});
  add_error(OperatorDef("noise.gaussian").Arg("stddev", -1.0), {"argument 'stddev'"});
  add_error(OperatorDef("grid_mask").Arg("tile", int64_t{0}), {"grid_mask", "argument 'tile'"});
  add_error(OperatorDef("grid_mask").Arg("ratio", 2.0), {"argument 'ratio'"});
  add_error(OperatorDef("erase").Arg("anchor", std::vector<double>{1, 2}).Arg("shape", std::vector<double>{1, 2, 3, 4}),
            {"erase", "argument 'anchor'"});
  add_error(OperatorDef("erase").Arg("shape", std::vector<double>{1, 2, 3}), {"argument 'shape'"});
  add_error(OperatorDef("erase").Arg("shape", std::vector<double>{1, 2}).Arg("axis_names", std::string("HD")),
            {"argument 'axis_names'", "'D'"});
  add_error(OperatorDef("erase").Arg("shape", std::vector<double>{1, 2}).Arg("fill_value", std::vector<double>{1, 2}),
            {"argument 'fill_value'", "3 channels"});
  add_error(OperatorDef("erase").Arg("normalized", true).Arg("normalized_anchor", true), {"normalized"});
  // Per-sample values are checked per batch, naming the argument and the sample.
  ExpectError([&] { RunOp(Images(2), OperatorDef("noise.salt_and_pepper"), {{"prob", {2, 3}}}); },
              {"argument 'prob'", "per-sample value"});
  ExpectError([&] { RunOp(Images(2), OperatorDef("grid_mask"), {{"ratio", {-2, -1}}}); }, {"argument 'ratio'"});
  // Filter: wrong filter shape, anchor outside the filter, valid mode with a filter larger than the image.
  Feed f = Images(1, 4, 4, 3);
  f.filters = {{1, 2, 3}};
  f.filter_shapes = {TensorShape{3}};
  ExpectError([&] { RunOp(f, OperatorDef("filter")); }, {"filter", "2-D"});
  f.filters = {std::vector<float>(25, 1.f)};
  f.filter_shapes = {TensorShape{5, 5}};
  ExpectError([&] { RunOp(f, OperatorDef("filter").Arg("anchor", std::vector<int64_t>{7, 0})); }, {"argument 'anchor'"});
  ExpectError([&] { RunOp(f, OperatorDef("filter").Arg("mode", std::string("valid"))); }, {"valid", "larger"});
  ExpectError([&] { RunOp(f, OperatorDef("filter").Arg("border", std::string("mirror"))); }, {"argument 'border'"});
}

}  // namespace
}  // namespace sluice
