// The colour operators (brightness_contrast, brightness, contrast, hsv, hue, saturation,
// color_twist): DALI's formulas through the pipeline, per-sample argument inputs, output types,
// and the errors for wrong layouts, channels, types and arguments. The kernels' formulas are
// checked against independent references in tests/kernels/color_kernels_test.cc.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <random>

#include "kernels/color/color_adjust.h"
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

double RoundSat(double v) { return std::min(std::max(std::nearbyint(v), 0.0), 255.0); }

struct Feed {
  std::vector<std::vector<uint8_t>> images;
  std::vector<TensorShape> shapes;
  std::string layout = "HWC";
};

Feed Images(int n, int h = 17, int w = 23, int c = 3) {
  Feed f;
  for (int i = 0; i < n; ++i) {
    f.images.push_back(Noise(static_cast<size_t>(h * w * c), static_cast<uint32_t>(i + 1)));
    f.shapes.push_back(TensorShape{h, w, c});
  }
  return f;
}

// external_source -> op (-> extra outputs named by `extra`, e.g. per-sample arguments).
// `args` are (argument, random.uniform range) pairs fed as argument inputs; their values come back
// as outputs 1.. .
std::vector<Batch> RunOp(const Feed& f, OperatorDef op, const std::vector<std::pair<std::string, std::vector<double>>>& args = {},
                       int threads = 2) {
  Pipeline p(Options(static_cast<int>(f.images.size()), threads));
  auto e = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  op.Input(e);
  std::vector<std::string> outs;
  for (const auto& [name, range] : args) {
    auto a = p.AddOperator(OperatorDef("random.uniform").Arg("range", range))[0];
    op.ArgInput(name, a);
    outs.push_back(a);
  }
  outs.insert(outs.begin(), p.AddOperator(op)[0]);
  p.SetOutputs(outs);
  p.Build();
  std::vector<Pipeline::ExternalSample> batch;
  for (size_t i = 0; i < f.images.size(); ++i) batch.push_back({f.images[i].data(), f.shapes[i], DType::kUInt8});
  for (int k = 0; k < 2; ++k) p.FeedInput("src", batch, f.layout);
  return p.Run();
}

float Scalar(const Batch& b, int i) { return *static_cast<const float*>(b.data(i)); }

TEST(ColorOps, BrightnessContrastPerSampleMatchesDalisFormula) {
  const Feed f = Images(4);
  auto out = RunOp(f, OperatorDef("brightness_contrast"),
                 {{"brightness", {0.5, 1.5}}, {"brightness_shift", {-0.1, 0.1}}, {"contrast", {0.2, 1.8}}});
  ASSERT_EQ(out[0].dtype(), DType::kUInt8);
  EXPECT_EQ(out[0].layout(), "HWC");
  std::vector<std::vector<uint8_t>> results;
  for (int i = 0; i < 4; ++i) {
    const double b = Scalar(out[1], i), s = Scalar(out[2], i), c = Scalar(out[3], i);
    const auto got = SampleData<uint8_t>(out[0], i);
    const auto& in = f.images[static_cast<size_t>(i)];
    ASSERT_EQ(got.size(), in.size());
    for (size_t k = 0; k < in.size(); ++k)
      ASSERT_LE(std::abs(got[k] - RoundSat(s * 255 + b * (128 + c * (in[k] - 128.0)))), 1) << i << " " << k;
    results.push_back(got);
  }
  // Per-sample values differ, so do the results (the inputs differ too: compare the coefficients).
  EXPECT_NE(Scalar(out[1], 0), Scalar(out[1], 1));
}

TEST(ColorOps, BrightnessAndContrastAreTheParts) {
  const Feed f = Images(2);
  auto bc = RunOp(f, OperatorDef("brightness_contrast").Arg("brightness", 1.3).Arg("brightness_shift", 0.05));
  auto b = RunOp(f, OperatorDef("brightness").Arg("brightness", 1.3).Arg("brightness_shift", 0.05));
  EXPECT_EQ(AllBytes(bc), AllBytes(b));
  bc = RunOp(f, OperatorDef("brightness_contrast").Arg("contrast", 0.6).Arg("contrast_center", 100.0));
  auto c = RunOp(f, OperatorDef("contrast").Arg("contrast", 0.6).Arg("contrast_center", 100.0));
  EXPECT_EQ(AllBytes(bc), AllBytes(c));
  for (size_t k = 0; k < f.images[0].size(); ++k)
    ASSERT_LE(std::abs(SampleData<uint8_t>(c[0], 0)[k] - RoundSat(100 + 0.6 * (f.images[0][k] - 100.0))), 1);
  // contrast = 0: every pixel becomes the centre; default centre for uint8 is 128.
  auto grey = RunOp(f, OperatorDef("contrast").Arg("contrast", 0.0));
  for (uint8_t v : SampleData<uint8_t>(grey[0], 1)) ASSERT_EQ(v, 128);
  // Negative image (DALI's example): brightness = -1, brightness_shift = 1.
  auto neg = RunOp(f, OperatorDef("brightness").Arg("brightness", -1.0).Arg("brightness_shift", 1.0));
  const auto nv = SampleData<uint8_t>(neg[0], 0);
  for (size_t k = 0; k < nv.size(); ++k) ASSERT_EQ(nv[k], 255 - f.images[0][k]);
  // Any channel count (element-wise).
  auto one = RunOp(Images(2, 5, 6, 1), OperatorDef("brightness").Arg("brightness", 2.0));
  EXPECT_EQ(one[0].shape(0), (TensorShape{5, 6, 1}));
}

TEST(ColorOps, OutputTypes) {
  const Feed f = Images(2);
  auto out = RunOp(f, OperatorDef("brightness_contrast").Arg("brightness", 0.5).Arg("dtype", std::string("float")));
  ASSERT_EQ(out[0].dtype(), DType::kFloat32);
  const auto v = SampleData<float>(out[0], 0);
  // uint8 -> float: input units are kept (no division by 255), as DALI.
  for (size_t k = 0; k < v.size(); ++k) ASSERT_NEAR(v[k], 0.5 * f.images[0][k], 1e-4);
  out = RunOp(f, OperatorDef("hsv").Arg("hue", 40.0).Arg("dtype", std::string("int16")));
  EXPECT_EQ(out[0].dtype(), DType::kInt16);
  out = RunOp(f, OperatorDef("color_twist").Arg("saturation", 0.5).Arg("dtype", std::string("float16")));
  EXPECT_EQ(out[0].dtype(), DType::kFloat16);
}

// The pipeline's result equals the kernel applied with DALI's matrix for the per-sample values.
void ExpectTwist(const Feed& f, const std::vector<Batch>& out, int i, double h, double s, double v, double b, double c) {
  const auto& in = f.images[static_cast<size_t>(i)];
  std::vector<uint8_t> ref(in.size());
  kernels::ColorMatrix3(in.data(), DType::kUInt8, ref.data(), DType::kUInt8, in.size() / 3,
                        kernels::ColorTwistTransform(h, s, v, b, c, 128));
  EXPECT_EQ(SampleData<uint8_t>(out[0], i), ref) << "sample " << i;
}

TEST(ColorOps, HsvFamilyPerSample) {
  const Feed f = Images(3);
  auto out = RunOp(f, OperatorDef("hsv"), {{"hue", {-90, 90}}, {"saturation", {0, 2}}, {"value", {0.5, 1.5}}});
  for (int i = 0; i < 3; ++i) ExpectTwist(f, out, i, Scalar(out[1], i), Scalar(out[2], i), Scalar(out[3], i), 1, 1);
  EXPECT_NE(Scalar(out[1], 0), Scalar(out[1], 2));
  out = RunOp(f, OperatorDef("hue"), {{"hue", {-180, 180}}});
  for (int i = 0; i < 3; ++i) ExpectTwist(f, out, i, Scalar(out[1], i), 1, 1, 1, 1);
  out = RunOp(f, OperatorDef("saturation"), {{"saturation", {0, 2}}});
  for (int i = 0; i < 3; ++i) ExpectTwist(f, out, i, 0, Scalar(out[1], i), 1, 1, 1);
  out = RunOp(f, OperatorDef("color_twist"),
            {{"hue", {-30, 30}}, {"saturation", {0, 2}}, {"brightness", {0.5, 1.5}}, {"contrast", {0.5, 1.5}}});
  for (int i = 0; i < 3; ++i)
    ExpectTwist(f, out, i, Scalar(out[1], i), Scalar(out[2], i), 1, Scalar(out[3], i), Scalar(out[4], i));
  // Constants: hue(h) == hsv(hue=h) == color_twist(hue=h).
  auto a = RunOp(f, OperatorDef("hue").Arg("hue", 25.0));
  auto b = RunOp(f, OperatorDef("hsv").Arg("hue", 25.0));
  auto c = RunOp(f, OperatorDef("color_twist").Arg("hue", 25.0).Arg("image_type", int64_t{0}));
  EXPECT_EQ(AllBytes(a), AllBytes(b));
  EXPECT_EQ(AllBytes(a), AllBytes(c));
  // Neutral arguments: the input comes back.
  auto id = RunOp(f, OperatorDef("color_twist"));
  EXPECT_EQ(SampleData<uint8_t>(id[0], 1), f.images[1]);
}

TEST(ColorOps, DeterministicAcrossThreadCounts) {
  const Feed f = Images(5);
  auto one = RunOp(f, OperatorDef("color_twist"), {{"hue", {-30, 30}}, {"saturation", {0, 2}}}, 1);
  auto two = RunOp(f, OperatorDef("color_twist"), {{"hue", {-30, 30}}, {"saturation", {0, 2}}}, 2);
  EXPECT_EQ(AllBytes(one), AllBytes(two));
}

TEST(ColorOps, BadInputsAndArgumentsAreClearErrors) {
  Feed chw = Images(1, 3, 8, 8);
  chw.layout = "CHW";
  ExpectError([&] { RunOp(chw, OperatorDef("brightness_contrast")); }, {"HWC", "'CHW'"});
  ExpectError([&] { RunOp(chw, OperatorDef("hsv")); }, {"HWC", "'CHW'"});
  ExpectError([&] { RunOp(Images(1, 4, 4, 4), OperatorDef("hue").Arg("hue", 10.0)); }, {"3 (RGB) channels", "(4, 4, 4)"});
  // Arguments are checked where the operator is added, naming it.
  auto add_error = [](OperatorDef def, const std::vector<std::string>& fragments) {
    ExpectError([&] { RunOp(Images(1), def); }, fragments);
  };
  add_error(OperatorDef("color_twist").Arg("saturation", -1.0), {"argument 'saturation'", ">= 0"});
  add_error(OperatorDef("color_twist").Arg("contrast", -0.5), {"argument 'contrast'"});
  add_error(OperatorDef("saturation").Arg("saturation", -0.1), {"argument 'saturation'"});
  add_error(OperatorDef("hsv").Arg("dtype", std::string("float64")), {"argument 'dtype'"});
  add_error(OperatorDef("brightness_contrast").Arg("dtype", std::string("float16")), {"argument 'dtype'"});
  add_error(OperatorDef("hue").Arg("image_type", std::string("BGR")), {"argument 'image_type'"});
  add_error(OperatorDef("brightness").Arg("contrast", 2.0), {"contrast"});
  // Per-sample values are checked per batch, naming the argument and the sample.
  ExpectError([&] { RunOp(Images(2), OperatorDef("color_twist"), {{"saturation", {-2, -1}}}); },
              {"argument 'saturation'", "per-sample value"});
  // A per-sample argument must be a scalar per sample.
  ExpectError(
      [&] {
        const Feed f = Images(2);
        Pipeline p(Options(2));
        auto e = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
        auto a = p.AddOperator(OperatorDef("random.uniform").Arg("shape", std::vector<int64_t>{2}))[0];
        p.SetOutputs({p.AddOperator(OperatorDef("hsv").Input(e).ArgInput("hue", a))[0]});
        p.Build();
        std::vector<Pipeline::ExternalSample> batch;
        for (size_t i = 0; i < 2; ++i) batch.push_back({f.images[i].data(), f.shapes[i], DType::kUInt8});
        for (int k = 0; k < 2; ++k) p.FeedInput("src", batch, "HWC");
        p.Run();
      },
      {"hue", "expected a scalar"});
}

}  // namespace
}  // namespace sluice
