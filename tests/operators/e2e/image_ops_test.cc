#include <gtest/gtest.h>

#include <cmath>

#include "kernels/resize/resize.h"
#include "operators/resize/resize_size.h"
#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

TEST(ResizeOutputSize, FollowsDalisRules) {
  auto size = [](double h, double w, double rh, double rw, ResizeMode m = ResizeMode::kDefault, double mh = 0, double mw = 0) {
    ResizeRequest r;
    r.size = {rh, rw};
    r.mode = m;
    r.max_size = {mh, mw};
    return ResizeOutputSize(h, w, r);
  };
  using A = std::array<int, 2>;
  EXPECT_EQ(size(375, 500, 224, 224), (A{224, 224}));                      // both given: exact
  EXPECT_EQ(size(375, 500, 0, 250), (A{188, 250}));                        // missing height keeps the aspect
  EXPECT_EQ(size(375, 500, 0, 250, ResizeMode::kStretch), (A{375, 250}));  // stretch keeps the missing one
  EXPECT_EQ(size(720, 1280, 480, 640, ResizeMode::kNotLarger), (A{360, 640}));    // DALI's example
  EXPECT_EQ(size(480, 640, 1080, 1920, ResizeMode::kNotSmaller), (A{1440, 1920}));  // DALI's example
  EXPECT_EQ(size(375, 500, 256, 256, ResizeMode::kNotSmaller), (A{256, 341}));  // resize_shorter=256
  EXPECT_EQ(size(375, 500, 256, 256, ResizeMode::kNotLarger), (A{192, 256}));   // resize_longer=256
  EXPECT_EQ(size(100, 1000, 256, 256, ResizeMode::kNotSmaller, 1000, 1000), (A{100, 1000}));  // max_size caps the scale
  EXPECT_EQ(size(3, 3, 0.2, 0.2), (A{1, 1}));  // never below 1
  EXPECT_EQ(size(10, 20, 0, 0), (A{10, 20}));  // nothing requested: unchanged
}

// max_size, as DALI's AdjustOutputSize (dali/operators/image/resize/resize_attr_base.cc): in
// not_larger/not_smaller mode max_size[d] / in[d] lowers the one scale of every axis; in default
// and stretch mode an extent above its limit becomes the limit and no other axis changes (a derived
// extent included); with no extent given the input's size is kept and max_size is ignored. The
// expected sizes are that function's arithmetic followed by round-half-away, done by hand.
TEST(ResizeOutputSize, MaxSizeFollowsDalisAdjustOutputSize) {
  struct Case {
    double h, w, rh, rw;
    ResizeMode mode;
    double mh, mw;
    std::array<int, 2> expected;
  };
  using M = ResizeMode;
  const Case cases[] = {
      // default: derived height 50 (scale 0.5); only the width is capped (old rule gave 40x400)
      {100, 1000, 0, 500, M::kDefault, 0, 400, {50, 400}},
      // default: derived height 600 (scale 2) capped to 400 on its own; the width stays 200
      {300, 100, 0, 200, M::kDefault, 400, 400, {400, 200}},
      // default: the limit on the derived axis only
      {100, 1000, 0, 500, M::kDefault, 20, 0, {20, 500}},
      // default, both given: each axis capped on its own
      {300, 100, 600, 50, M::kDefault, 400, 400, {400, 50}},
      // default, below every limit: unchanged
      {300, 100, 0, 50, M::kDefault, 400, 400, {150, 50}},
      // stretch: the missing height keeps 300, capped to 200; the given width stays
      {300, 100, 0, 50, M::kStretch, 200, 200, {200, 50}},
      // not_smaller (resize_shorter=800) with max_size=1400: DALI's documented 1200x600 -> 1400x700
      {600, 1200, 800, 800, M::kNotSmaller, 1400, 1400, {700, 1400}},
      // not_larger: scale min(480/720, 640/1280) = 0.5, lowered to 300/720 by the height's limit
      {720, 1280, 480, 640, M::kNotLarger, 300, 0, {300, 533}},
      // resize_longer=256 (not_larger) with max_size=100: scale 100/500 for both axes
      {375, 500, 256, 256, M::kNotLarger, 100, 100, {75, 100}},
      // resize_shorter=15 with max_size=18 on 30x40 (the resize_crop_mirror conformance case)
      {30, 40, 15, 15, M::kNotSmaller, 18, 18, {14, 18}},
      // nothing requested: the input's size, max_size not applied
      {10, 20, 0, 0, M::kDefault, 5, 5, {10, 20}},
      {10, 20, 0, 0, M::kNotSmaller, 5, 5, {10, 20}},
  };
  for (const Case& c : cases) {
    ResizeRequest r;
    r.size = {c.rh, c.rw};
    r.mode = c.mode;
    r.max_size = {c.mh, c.mw};
    EXPECT_EQ(ResizeOutputSize(c.h, c.w, r), c.expected)
        << c.h << "x" << c.w << " size " << c.rh << "x" << c.rw << " mode " << int(c.mode) << " max " << c.mh << "x" << c.mw;
  }
  // A volume in default mode: the derived width 40 * sqrt(2 * 4) = 113.1 is capped alone.
  const std::vector<double> e = ResizeOutputExtentsN({10, 20, 40}, {20, 80, 0}, ResizeMode::kDefault, {0, 0, 100});
  EXPECT_DOUBLE_EQ(e[0], 20);
  EXPECT_DOUBLE_EQ(e[1], 80);
  EXPECT_DOUBLE_EQ(e[2], 100);
}

TEST(ResizeOutputSize, MissingExtentsTakeTheGeometricMeanOfTheGivenScales) {
  // Scales 2 and 4 given, the third missing: sqrt(2 * 4) as in DALI's AdjustOutputSize (the
  // arithmetic mean would give 3).
  const std::vector<double> e = ResizeOutputExtentsN({10, 20, 40}, {20, 80, 0}, ResizeMode::kDefault, {0, 0, 0});
  EXPECT_DOUBLE_EQ(e[0], 20);
  EXPECT_DOUBLE_EQ(e[1], 80);
  EXPECT_NEAR(e[2], 40 * std::sqrt(8.0), 1e-9);
}

// external_source of uint8 HWC images -> op; returns outputs.
std::vector<Batch> RunOnImages(const std::vector<std::vector<uint8_t>>& images, const std::vector<TensorShape>& shapes,
                               OperatorDef op, int threads = 2) {
  Pipeline p(Options(static_cast<int>(images.size()), threads));
  auto e = p.AddOperator(OperatorDef("external_source").Name("src").Arg("layout", std::string("HWC")))[0];
  op.Input(e);
  auto out = p.AddOperator(op);
  p.SetOutputs(out);
  p.Build();
  std::vector<Pipeline::ExternalSample> batch;
  for (size_t i = 0; i < images.size(); ++i) batch.push_back({images[i].data(), shapes[i], DType::kUInt8});
  for (int k = 0; k < 2; ++k) p.FeedInput("src", batch);
  return p.Run();
}

std::vector<uint8_t> Pattern(int h, int w, int c, int seed) {
  std::vector<uint8_t> v(static_cast<size_t>(h * w * c));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>((i * 131 + static_cast<size_t>(seed) * 17 + (i / 7) * 3) & 0xff);
  return v;
}

TEST(ResizeOp, MatchesTheKernelAndDalisSizeArguments) {
  auto img = Pattern(375, 500, 3, 1);
  // subpixel_scale=False: the whole image is stretched to the rounded size (Pillow's result).
  auto out = RunOnImages({img}, {TensorShape{375, 500, 3}},
                         OperatorDef("resize").Arg("resize_shorter", 256.0).Arg("subpixel_scale", false));
  ASSERT_EQ(out[0].shape(0), (TensorShape{256, 341, 3}));
  std::vector<uint8_t> ref(256 * 341 * 3);
  kernels::ResizeParams params;
  params.roi = kernels::ResizeRoi{0, 0, 500, 375};
  kernels::Resize(img.data(), 375, 500, 3, ref.data(), 256, 341, params);
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), ref);
  // DALI's default subpixel_scale=True keeps the scale 256/375 along x: the 341.33-pixel-wide
  // exact result is rounded to 341, so the region shrinks about its centre to 341 * 375 / 256.
  out = RunOnImages({img}, {TensorShape{375, 500, 3}}, OperatorDef("resize").Arg("resize_shorter", 256.0));
  ASSERT_EQ(out[0].shape(0), (TensorShape{256, 341, 3}));
  const double half = 0.5 * 341.0 * 375.0 / 256.0;
  params.roi = kernels::ResizeRoi{static_cast<float>(250 - half), 0, static_cast<float>(250 + half), 375};
  kernels::Resize(img.data(), 375, 500, 3, ref.data(), 256, 341, params);
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), ref);
  // A scalar size is every extent: with mode not_smaller, the shorter side.
  out = RunOnImages({img}, {TensorShape{375, 500, 3}},
                    OperatorDef("resize").Arg("size", 256.0).Arg("mode", std::string("not_smaller")));
  EXPECT_EQ(out[0].shape(0), (TensorShape{256, 341, 3}));

  out = RunOnImages({img}, {TensorShape{375, 500, 3}}, OperatorDef("resize").Arg("resize_x", 224.0).Arg("resize_y", 224.0).Arg("interp_type", std::string("TRIANGULAR")));
  EXPECT_EQ(out[0].shape(0), (TensorShape{224, 224, 3}));
  EXPECT_TRUE(out[0].is_contiguous());
  out = RunOnImages({img}, {TensorShape{375, 500, 3}}, OperatorDef("resize").Arg("size", std::vector<double>{100, 0}).Arg("dtype", std::string("float")));
  EXPECT_EQ(out[0].shape(0), (TensorShape{100, 133, 3}));
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  // A negative extent mirrors.
  auto flipped = RunOnImages({img}, {TensorShape{375, 500, 3}}, OperatorDef("resize").Arg("resize_x", -500.0).Arg("resize_y", 375.0));
  auto f = SampleData<uint8_t>(flipped[0], 0);
  EXPECT_EQ(f[0], img[(499) * 3]);
}

TEST(ResizeOp, BadArgumentsAreClearErrors) {
  auto img = Pattern(10, 10, 3, 1);
  ExpectError([&] { RunOnImages({img}, {TensorShape{10, 10, 3}}, OperatorDef("resize")); }, {"no output size"});
  ExpectError([&] { RunOnImages({img}, {TensorShape{10, 10, 3}}, OperatorDef("resize").Arg("resize_x", 5.0).Arg("resize_shorter", 5.0)); },
              {"give one of"});
  ExpectError([&] { RunOnImages({img}, {TensorShape{10, 10, 3}}, OperatorDef("resize").Arg("resize_x", 5.0).Arg("interp_type", std::string("BOX"))); },
              {"interp_type", "expected one of 'NN', 'LINEAR'", "got 'BOX'"});
  ExpectError([&] { RunOnImages({img}, {TensorShape{10, 10, 3}}, OperatorDef("resize").Arg("resize_x", 5.0).Arg("mode", std::string("fit"))); },
              {"mode"});
}

// Straightforward reference for crop_mirror_normalize to CHW float.
std::vector<float> CmnReference(const std::vector<uint8_t>& img, int h, int w, int c, int cx, int cy, int cw, int ch,
                                bool mirror, const std::vector<float>& mean, const std::vector<float>& stdv) {
  std::vector<float> out(static_cast<size_t>(c * ch * cw));
  for (int k = 0; k < c; ++k)
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < cw; ++x) {
        const int sx = cx + (mirror ? cw - 1 - x : x), sy = cy + y;
        out[static_cast<size_t>((k * ch + y) * cw + x)] = (img[static_cast<size_t>((sy * w + sx) * c + k)] - mean[static_cast<size_t>(k)]) / stdv[static_cast<size_t>(k)];
      }
  (void)h;
  return out;
}

TEST(CropMirrorNormalizeOp, MatchesAReferenceWithPerSampleMirror) {
  const std::vector<float> mean = {123.675f, 116.28f, 103.53f}, stdv = {58.395f, 57.12f, 57.375f};
  std::vector<std::vector<uint8_t>> imgs = {Pattern(256, 300, 3, 1), Pattern(240, 260, 3, 2), Pattern(224, 224, 3, 3)};
  std::vector<TensorShape> shapes = {TensorShape{256, 300, 3}, TensorShape{240, 260, 3}, TensorShape{224, 224, 3}};
  Pipeline p(Options(3));
  auto e = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  auto m = p.AddOperator(OperatorDef("random.coin_flip"))[0];
  auto out = p.AddOperator(OperatorDef("crop_mirror_normalize")
                               .Input(e)
                               .ArgInput("mirror", m)
                               .Arg("crop", std::vector<double>{224, 224})
                               .Arg("mean", std::vector<double>(mean.begin(), mean.end()))
                               .Arg("std", std::vector<double>(stdv.begin(), stdv.end())))[0];
  p.SetOutputs({out, m});
  p.Build();
  std::vector<Pipeline::ExternalSample> batch;
  for (size_t i = 0; i < 3; ++i) batch.push_back({imgs[i].data(), shapes[i], DType::kUInt8});
  p.FeedInput("src", batch);
  p.FeedInput("src", batch);
  auto res = p.Run();
  EXPECT_EQ(res[0].layout(), "CHW");
  EXPECT_TRUE(res[0].is_single_tensor());
  for (int i = 0; i < 3; ++i) {
    const int h = static_cast<int>(shapes[static_cast<size_t>(i)][0]), w = static_cast<int>(shapes[static_cast<size_t>(i)][1]);
    const bool mirror = *static_cast<const int32_t*>(res[1].data(i)) != 0;
    const int cx = static_cast<int>(std::lround(0.5 * (w - 224))), cy = static_cast<int>(std::lround(0.5 * (h - 224)));
    auto ref = CmnReference(imgs[static_cast<size_t>(i)], h, w, 3, cx, cy, 224, 224, mirror, mean, stdv);
    auto got = SampleData<float>(res[0], i);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t k = 0; k < ref.size(); ++k) ASSERT_NEAR(got[k], ref[k], 1e-4f * std::max(1.f, std::abs(ref[k]))) << i << " " << k;
  }
}

TEST(CropMirrorNormalizeOp, LayoutsTypesPaddingAndOutOfBounds) {
  auto img = Pattern(8, 10, 3, 1);
  auto out = RunOnImages({img}, {TensorShape{8, 10, 3}},
                         OperatorDef("crop_mirror_normalize").Arg("output_layout", std::string("HWC")).Arg("pad_output", true).Arg("dtype", std::string("uint8")));
  EXPECT_EQ(out[0].shape(0), (TensorShape{8, 10, 4}));
  auto v = SampleData<uint8_t>(out[0], 0);
  EXPECT_EQ(v[0], img[0]);
  EXPECT_EQ(v[3], 0);
  out = RunOnImages({img}, {TensorShape{8, 10, 3}}, OperatorDef("crop_mirror_normalize").Arg("dtype", std::string("float16")));
  EXPECT_EQ(out[0].dtype(), DType::kFloat16);
  ExpectError([&] { RunOnImages({img}, {TensorShape{8, 10, 3}}, OperatorDef("crop_mirror_normalize").Arg("crop", std::vector<double>{20, 20})); },
              {"outside", "out_of_bounds_policy"});
  out = RunOnImages({img}, {TensorShape{8, 10, 3}},
                    OperatorDef("crop_mirror_normalize").Arg("crop", std::vector<double>{20, 20}).Arg("out_of_bounds_policy", std::string("pad")).Arg("fill_values", std::vector<double>{-1.0}));
  EXPECT_EQ(out[0].shape(0), (TensorShape{3, 20, 20}));
  EXPECT_EQ(SampleData<float>(out[0], 0)[0], -1.0f);
  out = RunOnImages({img}, {TensorShape{8, 10, 3}},
                    OperatorDef("crop_mirror_normalize").Arg("crop", std::vector<double>{20, 20}).Arg("out_of_bounds_policy", std::string("trim_to_shape")));
  EXPECT_EQ(out[0].shape(0), (TensorShape{3, 8, 10}));
  ExpectError([&] { RunOnImages({img}, {TensorShape{8, 10, 3}}, OperatorDef("crop_mirror_normalize").Arg("std", std::vector<double>{0.0})); }, {"std"});
  ExpectError([&] { RunOnImages({img}, {TensorShape{8, 10, 3}}, OperatorDef("crop_mirror_normalize").Arg("output_layout", std::string("NCHW"))); },
              {"output_layout"});
  ExpectError([&] { RunOnImages({img}, {TensorShape{8, 10, 3}}, OperatorDef("crop_mirror_normalize").Arg("mean", std::vector<double>{1, 2})); },
              {"1 or 3 values"});
}

TEST(GeometryOps, CropFlipTransposeCast) {
  auto img = Pattern(4, 6, 3, 5);
  auto px = [&](int y, int x, int c) { return img[static_cast<size_t>((y * 6 + x) * 3 + c)]; };
  auto out = RunOnImages({img}, {TensorShape{4, 6, 3}}, OperatorDef("crop").Arg("crop", std::vector<double>{2, 3}).Arg("crop_pos_x", 1.0).Arg("crop_pos_y", 0.0));
  EXPECT_EQ(out[0].shape(0), (TensorShape{2, 3, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0)[0], px(0, 3, 0));

  out = RunOnImages({img}, {TensorShape{4, 6, 3}}, OperatorDef("flip").Arg("horizontal", int64_t{1}).Arg("vertical", int64_t{1}));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0)[0], px(3, 5, 0));

  out = RunOnImages({img}, {TensorShape{4, 6, 3}}, OperatorDef("transpose").Arg("perm", std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(out[0].shape(0), (TensorShape{3, 4, 6}));
  EXPECT_EQ(out[0].layout(), "CHW");
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0)[1 * 24 + 2 * 6 + 5], px(2, 5, 1));
  ExpectError([&] { RunOnImages({img}, {TensorShape{4, 6, 3}}, OperatorDef("transpose").Arg("perm", std::vector<int64_t>{0, 0, 1})); }, {"perm"});
  ExpectError([&] { RunOnImages({img}, {TensorShape{4, 6, 3}}, OperatorDef("transpose")); }, {"perm", "required"});

  out = RunOnImages({img}, {TensorShape{4, 6, 3}}, OperatorDef("cast").Arg("dtype", std::string("float")));
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(SampleData<float>(out[0], 0)[7], static_cast<float>(img[7]));
}

TEST(ImagePipeline, TrainPipelineIsDeterministicAcrossThreadCounts) {
  std::vector<std::string> files;
  for (const char* f : {"photo_500x375.jpg", "progressive.jpg", "cmyk.jpg", "gray.jpg", "orient_6.jpg", "palette.png"})
    files.push_back(ImagePath(f));
  std::vector<uint8_t> ref;
  for (int threads : {1, 2, 4}) {
    Pipeline p(Options(4, threads, 2024));
    auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", files).Arg("random_shuffle", true).Arg("initial_fill", int64_t{3}));
    auto d = p.AddOperator(OperatorDef("decoders.image_random_crop").Input(r[0]))[0];
    auto s = p.AddOperator(OperatorDef("resize").Input(d).Arg("resize_x", 64.0).Arg("resize_y", 64.0))[0];
    auto m = p.AddOperator(OperatorDef("random.coin_flip"))[0];
    auto c = p.AddOperator(OperatorDef("crop_mirror_normalize").Input(s).ArgInput("mirror", m)
                               .Arg("mean", std::vector<double>{123.675, 116.28, 103.53}).Arg("std", std::vector<double>{58.395, 57.12, 57.375}))[0];
    p.SetOutputs({c, r[1]});
    p.Build();
    std::vector<uint8_t> all;
    for (int it = 0; it < 4; ++it) {
      auto b = AllBytes(p.Run());
      all.insert(all.end(), b.begin(), b.end());
    }
    if (threads == 1) ref = all;
    else EXPECT_EQ(all, ref) << threads;
  }
}

}  // namespace
}  // namespace sluice
