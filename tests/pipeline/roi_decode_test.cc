// ROI decode (pipeline/roi_decode.h): where the pass applies and where it steps aside, the rule the
// decoder evaluates, the windowed resize and windowed JPEG decode it relies on, and pipelines that
// give the same bytes with and without it.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "kernels/decode/image_decoder.h"
#include "kernels/resize/resize.h"
#include "kernels/resize/resize_window.h"
#include "operators/decode/roi_rule.h"
#include "operators/op_spec_encoding.h"
#include "pipeline/graph.h"
#include "pipeline/roi_decode.h"
#include "pipeline_test_util.h"

namespace sluice {
namespace {

using testing::Spec;
using testing::TestImage;

std::vector<uint8_t> Bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// files -> decoders.image -> resize(resize_shorter=256) -> crop(224); the crop's output is returned.
struct Chain {
  std::vector<OpSpec> specs;
  std::vector<std::string> outputs;
  OpSpec& dec() { return specs[0]; }
  OpSpec& resize() { return specs[1]; }
  OpSpec& crop() { return specs[2]; }
};
Chain ValidationChain(std::map<std::string, Value> dec_args = {}, std::map<std::string, Value> resize_args = {},
                      std::map<std::string, Value> crop_args = {}, std::map<std::string, std::string> crop_inputs = {},
                      const std::string& crop_op = "crop") {
  Chain c;
  c.specs.push_back(Spec("decoders.image", "dec", {"files"}, std::move(dec_args)));
  if (resize_args.empty()) resize_args["resize_shorter"] = 256.0;
  c.specs.push_back(Spec("resize", "rs", {c.specs[0].outputs[0]}, std::move(resize_args)));
  if (crop_args.empty()) crop_args["crop"] = std::vector<double>{224, 224};
  c.specs.push_back(Spec(crop_op, "crop", {c.specs[1].outputs[0]}, std::move(crop_args), std::move(crop_inputs)));
  c.outputs = {c.specs[2].outputs[0]};
  return c;
}

TEST(RoiDecodePass, WiresTheValidationChain) {
  for (const char* crop_op : {"crop", "crop_mirror_normalize"}) {
    Chain c = ValidationChain({}, {}, {}, {}, crop_op);
    ASSERT_EQ(ApplyRoiDecode(c.specs, c.outputs), 1) << crop_op;
    ASSERT_EQ(c.dec().outputs.size(), 2u);
    EXPECT_EQ(c.resize().arg_inputs.at("input_window"), c.dec().outputs[1]);
    const auto& rule = std::get<std::vector<std::string>>(c.dec().args.at("roi_decode_rule"));
    ASSERT_EQ(rule.size(), 2u);
    EXPECT_EQ(DecodeSpec(rule[0]).op, "resize");
    EXPECT_EQ(DecodeSpec(rule[1]).op, crop_op);
    EXPECT_EQ(std::get<double>(DecodeSpec(rule[0]).args.at("resize_shorter")), 256.0);
  }
}

TEST(RoiDecodePass, StepsAsideWhenTheChainIsNotExclusivelyAFixedCrop) {
  {  // the decoder's output is also returned: it must stay whole
    Chain c = ValidationChain();
    c.outputs.push_back(c.dec().outputs[0]);
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
  {  // the resize's output is also returned
    Chain c = ValidationChain();
    c.outputs.push_back(c.resize().outputs[0]);
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
  {  // another operator also reads the decoded image
    Chain c = ValidationChain();
    c.specs.push_back(Spec("flip", "flip", {c.dec().outputs[0]}));
    c.outputs.push_back(c.specs.back().outputs[0]);
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
  {  // turned off by the user
    Chain c = ValidationChain({{"roi_decode", false}});
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
    EXPECT_EQ(c.dec().outputs.size(), 1u);
  }
  {  // a per-sample crop position: the window is not fixed by the arguments
    std::vector<OpSpec> extra{Spec("random.uniform", "pos", {}, {{"range", std::vector<double>{0, 1}}})};
    Chain c = ValidationChain({}, {}, {}, {{"crop_pos_x", extra[0].outputs[0]}});
    c.specs.insert(c.specs.end(), extra.begin(), extra.end());
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
  {  // a float resize: its SIMD body and scalar tail round differently, a window could differ
    Chain c = ValidationChain({}, {{"resize_shorter", 256.0}, {"dtype", std::string("float32")}});
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
  {  // no crop after the resize: everything is used
    Chain c = ValidationChain();
    c.specs.pop_back();
    c.outputs = {c.resize().outputs[0]};
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
  {  // a crop directly after the decoder (decoders.image_crop is the operator for that)
    std::vector<OpSpec> specs{Spec("decoders.image", "dec", {"files"})};
    specs.push_back(Spec("crop", "crop", {specs[0].outputs[0]}, {{"crop", std::vector<double>{224, 224}}}));
    EXPECT_EQ(ApplyRoiDecode(specs, {specs[1].outputs[0]}), 0);
  }
  {  // not on a GPU decoder
    Chain c = ValidationChain();
    c.dec().device = "mixed";
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
  {  // the user set the rule: left alone
    Chain c = ValidationChain();
    ASSERT_EQ(ApplyRoiDecode(c.specs, c.outputs), 1);
    EXPECT_EQ(ApplyRoiDecode(c.specs, c.outputs), 0);
  }
}

TEST(RoiRule, EncodedSpecsRoundTripExactly) {
  OpSpec s;
  s.op = "resize";
  s.args = {{"b", true}, {"i", int64_t{-7}}, {"d", 0.1 + 0.2}, {"s", std::string("a:b\n9:")},
            {"il", std::vector<int64_t>{1, -2, 3}}, {"dl", std::vector<double>{1.0 / 3, -0.0, 1e300}},
            {"sl", std::vector<std::string>{"", "x:y", "12:"}}};
  const OpSpec back = DecodeSpec(EncodeSpec(s));
  EXPECT_EQ(back.op, s.op);
  EXPECT_TRUE(back.args == s.args);
}

TEST(RoiRule, WindowOfResizeShorterAndCenterCrop) {
  Chain c = ValidationChain();
  ASSERT_EQ(ApplyRoiDecode(c.specs, c.outputs), 1);
  const RoiRule rule(std::get<std::vector<std::string>>(c.dec().args.at("roi_decode_rule")), "dec", "roi_decode_rule");
  // 375x500 -> 256x341 (resize_shorter=256), center crop 224: columns 59..283, rows 16..240 of the
  // resized image; 1.46 source pixels per output pixel, and the linear filter widened to +-1.46.
  const kernels::CropWindow w = rule.Window(375, 500);
  EXPECT_GT(w.x, 80);
  EXPECT_LT(w.x, 87);
  EXPECT_GT(w.x + w.w, 414);
  EXPECT_LT(w.x + w.w, 421);
  EXPECT_GT(w.y, 19);
  EXPECT_LT(w.y, 24);
  EXPECT_GT(w.y + w.h, 351);
  EXPECT_LT(w.y + w.h, 357);
  // A 256x256 image is not resized (each output pixel copies one source pixel): exactly the crop.
  EXPECT_EQ(rule.Window(256, 256), (kernels::CropWindow{16, 16, 224, 224}));
  // Upscaling 100x2000 -> 256x5120 (0.39 source pixels per output pixel, the linear filter not
  // widened: 2 taps): crop columns 16..240 read source columns 5..95, rows 2448..2672 rows 955..1045.
  EXPECT_EQ(rule.Window(2000, 100), (kernels::CropWindow{5, 955, 90, 90}));
}

// Resize's output over the region ResizeWindow computes equals Resize's from the whole image, for
// every filter, up- and downscaling, mirrored and fractional regions of interest.
TEST(ResizeWindow, MatchesResizeOverTheComputedRegion) {
  std::mt19937 rng(5);
  const int H = 97, W = 131, C = 3;
  std::vector<uint8_t> img(size_t(H) * W * C);
  for (auto& v : img) v = uint8_t(rng());
  using F = kernels::ResizeFilter;
  int checked = 0;
  for (F f : {F::kNearest, F::kLinear, F::kCubic, F::kLanczos3, F::kTriangular, F::kGaussian}) {
    for (auto [oh, ow] : {std::pair{40, 57}, std::pair{150, 210}, std::pair{97, 131}}) {
      for (bool mirror : {false, true}) {
        kernels::ResizeParams p;
        p.min_filter = p.mag_filter = f;
        p.roi = mirror ? kernels::ResizeRoi{W - 0.3f, 1.7f, 0.4f, H - 2.2f} : kernels::ResizeRoi{0.25f, 0.f, W - 0.5f, float(H)};
        std::vector<uint8_t> full(size_t(oh) * ow * C);
        kernels::Resize(img.data(), H, W, C, full.data(), oh, ow, p);
        // The output window the decoder would ask for, and the source window it would decode.
        const kernels::Span ox{ow / 4, ow * 3 / 4}, oy{oh / 5, oh * 4 / 5};
        const kernels::Span sx = kernels::ResizeSourceSpan(W, p.roi->x0, p.roi->x1, ow, p, ox);
        const kernels::Span sy = kernels::ResizeSourceSpan(H, p.roi->y0, p.roi->y1, oh, p, oy);
        ASSERT_LT(sx.end - sx.begin, W);
        const int wh = sy.end - sy.begin, ww = sx.end - sx.begin;
        std::vector<uint8_t> part(size_t(wh) * ww * C);
        for (int y = 0; y < wh; ++y)
          std::memcpy(&part[size_t(y) * ww * C], &img[(size_t(sy.begin + y) * W + sx.begin) * C], size_t(ww) * C);
        std::vector<uint8_t> out(full.size(), 77);
        const auto done = kernels::ResizeWindow(part.data(), wh, ww, C, {sy.begin, sx.begin, H, W}, out.data(), oh, ow, p);
        EXPECT_LE(done.rows.begin, oy.begin);
        EXPECT_GE(done.rows.end, oy.end);
        EXPECT_LE(done.cols.begin, ox.begin);
        EXPECT_GE(done.cols.end, ox.end);
        for (int y = 0; y < oh; ++y)
          for (int x = 0; x < ow; ++x)
            for (int ch = 0; ch < C; ++ch) {
              const size_t k = (size_t(y) * ow + x) * C + ch;
              const bool computed = y >= done.rows.begin && y < done.rows.end && x >= done.cols.begin && x < done.cols.end;
              ASSERT_EQ(out[k], computed ? full[k] : 0)
                  << "filter " << int(f) << " out " << oh << "x" << ow << " mirror " << mirror << " at " << y << "," << x;
            }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 36);
}

// A window of a JPEG decoded alone (rows above skipped, rows below never decoded, columns cropped)
// equals the same window of the whole decode, at every DCT scale, for every EXIF orientation,
// progressive, CMYK and grayscale files, in colour and gray.
TEST(JpegWindow, EqualsTheWindowOfTheWholeDecode) {
  std::vector<std::string> names{"photo_500x375.jpg", "progressive.jpg", "cmyk.jpg", "gray.jpg"};
  for (int o = 1; o <= 8; ++o) names.push_back("orient_" + std::to_string(o) + ".jpg");
  int checked = 0;
  for (const auto& name : names) {
    const auto bytes = Bytes(TestImage(name));
    const kernels::ImageInfo info = kernels::PeekImage(bytes);
    for (auto color : {kernels::OutputColor::kRGB, kernels::OutputColor::kGray}) {
      for (int target : {0, 200, 100, 40}) {  // full scale, then (depending on the image) 1/2, 1/4, 1/8
        kernels::DecodeParams params;
        params.output_type = color;
        params.target_width = params.target_height = target;
        const kernels::DecodePlan fp = kernels::PlanDecode(info, params);
        std::vector<uint8_t> full(fp.size_bytes());
        kernels::DecodeImage(bytes, info, params, full.data(), full.size());
        const int H = fp.height, W = fp.width, C = fp.channels;
        std::mt19937 rng{static_cast<uint32_t>(checked)};
        for (int t = 0; t < 6; ++t) {
          kernels::CropWindow w;
          w.x = t == 0 ? 0 : int(rng() % uint32_t(W));
          w.y = t == 1 ? 0 : int(rng() % uint32_t(H));
          w.w = t == 2 ? W - w.x : 1 + int(rng() % uint32_t(W - w.x));
          w.h = t == 3 ? H - w.y : 1 + int(rng() % uint32_t(H - w.y));
          kernels::DecodeParams wp = params;
          wp.scaled_roi = w;
          const kernels::DecodePlan pp = kernels::PlanDecode(info, wp);
          ASSERT_EQ(pp.scale_num, fp.scale_num);
          ASSERT_EQ(pp.width, w.w);
          ASSERT_EQ(pp.height, w.h);
          std::vector<uint8_t> part(pp.size_bytes());
          kernels::DecodeImage(bytes, info, wp, part.data(), part.size());
          for (int y = 0; y < w.h; ++y)
            ASSERT_EQ(0, std::memcmp(&part[size_t(y) * w.w * C], &full[(size_t(w.y + y) * W + w.x) * C], size_t(w.w) * C))
                << name << " scale " << fp.scale_num << "/8 window x " << w.x << " y " << w.y << " " << w.w << "x" << w.h
                << " row " << y;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 12 * 2 * 4 * 6);
}

// files -> decoders.image -> resize -> crop_mirror_normalize, run with and without the pass.
std::vector<std::vector<uint8_t>> RunValidation(const std::vector<std::string>& files, bool roi, bool scaled,
                                                const std::string& color, const std::map<std::string, Value>& resize_args,
                                                double crop, const std::string& dtype, size_t* decoded_bytes) {
  PipelineOptions o;
  o.batch_size = static_cast<int>(files.size());
  o.num_threads = 2;
  o.seed = 1;
  o.enable_memory_stats = true;
  Pipeline p(o);
  auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", files));
  OperatorDef dec("decoders.image");
  dec.Input(r[0]).Name("dec").Arg("roi_decode", roi).Arg("scaled_decode", scaled).Arg("output_type", color);
  auto d = p.AddOperator(dec)[0];
  OperatorDef rs("resize");
  rs.Input(d);
  rs.args = resize_args;
  auto s = p.AddOperator(rs)[0];
  auto out = p.AddOperator(OperatorDef("crop_mirror_normalize")
                               .Input(s)
                               .Arg("crop", std::vector<double>{crop, crop})
                               .Arg("dtype", dtype)
                               .Arg("output_layout", std::string("CHW"))
                               .Arg("mean", std::vector<double>{120.0})
                               .Arg("std", std::vector<double>{58.0}))[0];
  std::vector<std::string> outs{out};
  p.SetOutputs(outs);
  p.Build();
  auto batches = p.Run();
  std::vector<std::vector<uint8_t>> result;
  for (int i = 0; i < batches[0].num_samples(); ++i) {
    const auto* b = static_cast<const uint8_t*>(batches[0].data(i));
    result.emplace_back(b, b + batches[0].nbytes(i));
  }
  for (const auto& st : p.GetExecutorStatistics().operators)
    if (st.name == "dec") *decoded_bytes = st.real_memory_size.at(0);
  return result;
}

TEST(RoiDecodePipeline, SameBytesWithAndWithoutThePass) {
  std::vector<std::string> files;
  for (const char* f : {"photo_500x375.jpg", "progressive.jpg", "cmyk.jpg", "gray.jpg", "palette.png", "gray.png"})
    files.push_back(TestImage(f));
  for (int o = 1; o <= 8; ++o) files.push_back(TestImage("orient_" + std::to_string(o) + ".jpg"));
  const std::vector<std::map<std::string, Value>> resizes{
      {{"resize_shorter", 256.0}},
      {{"resize_shorter", 160.0}, {"interp_type", std::string("CUBIC")}},
      {{"size", std::vector<double>{96.0}}, {"mode", std::string("not_smaller")}, {"interp_type", std::string("LANCZOS3")}},
      {{"resize_shorter", 300.0}, {"antialias", false}},
  };
  const std::vector<double> crops{224, 128, 64, 200};
  for (size_t k = 0; k < resizes.size(); ++k)
    for (bool scaled : {false, true})
      for (const char* color : {"RGB", "GRAY"})
        for (const char* dtype : {"uint8", "float32"}) {
          size_t with_bytes = 0, without_bytes = 0;
          const auto with = RunValidation(files, true, scaled, color, resizes[k], crops[k], dtype, &with_bytes);
          const auto without = RunValidation(files, false, scaled, color, resizes[k], crops[k], dtype, &without_bytes);
          EXPECT_LT(with_bytes, without_bytes) << "the pass did not apply";
          ASSERT_EQ(with.size(), without.size());
          for (size_t i = 0; i < with.size(); ++i)
            EXPECT_EQ(with[i], without[i]) << files[i] << " resize #" << k << " scaled " << scaled << " " << color << " "
                                           << dtype;
        }
}

}  // namespace
}  // namespace sluice
