#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "kernels/decode/image_decoder.h"
#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

// readers.file over `files` -> decoder `op` with `args`; returns the pipeline (built).
std::unique_ptr<Pipeline> DecodePipeline(const std::vector<std::string>& files, const std::string& op,
                                         std::map<std::string, Value> args, int batch, int threads = 2,
                                         const std::string& then_resize = "") {
  auto p = std::make_unique<Pipeline>(Options(batch, threads));
  OperatorDef reader("readers.file");
  reader.Arg("files", files).Name("Reader");
  auto r = p->AddOperator(reader);
  OperatorDef dec(op);
  dec.Input(r[0]).Name("decoder");
  dec.args = std::move(args);
  auto images = p->AddOperator(dec)[0];
  p->SetOutputs({images, r[1]});
  p->Build();
  return p;
}

kernels::DecodePlan KernelDecode(const std::string& path, const kernels::DecodeParams& params, std::vector<uint8_t>& out) {
  auto bytes = ReadBytes(path);
  auto plan = kernels::PlanDecode(kernels::PeekImage(bytes), params);
  out.resize(plan.size_bytes());
  kernels::DecodeImage(bytes, params, out.data(), out.size());
  return plan;
}

TEST(DecodersImage, MatchesTheKernelForEveryFormat) {
  std::vector<std::string> files;
  for (const char* f : {"photo_500x375.jpg", "progressive.jpg", "cmyk.jpg", "gray.jpg", "gray.png", "palette.png",
                        "gray8.bmp", "gray.pgm", "orient_6.jpg"})
    files.push_back(ImagePath(f));
  auto p = DecodePipeline(files, "decoders.image", {}, static_cast<int>(files.size()));
  auto out = p->Run();
  const Batch& images = out[0];
  EXPECT_EQ(images.layout(), "HWC");
  for (int i = 0; i < images.num_samples(); ++i) {
    std::vector<uint8_t> ref;
    auto plan = KernelDecode(files[static_cast<size_t>(i)], {}, ref);
    EXPECT_EQ(images.shape(i), (TensorShape{plan.height, plan.width, 3})) << files[static_cast<size_t>(i)];
    EXPECT_EQ(SampleData<uint8_t>(images, i), ref) << files[static_cast<size_t>(i)];
    EXPECT_EQ(images.source(i).path, files[static_cast<size_t>(i)]);
  }
}

TEST(DecodersImage, OutputTypes) {
  const std::string f = ImagePath("photo_500x375.jpg");
  for (auto [type, channels] : std::vector<std::pair<std::string, int>>{{"GRAY", 1}, {"BGR", 3}, {"YCbCr", 3}, {"ANY_DATA", 3}}) {
    auto p = DecodePipeline({f}, "decoders.image", {{"output_type", type}}, 1);
    EXPECT_EQ(p->Run()[0].shape(0)[2], channels) << type;
  }
  auto rgb = DecodePipeline({f}, "decoders.image", {}, 1)->Run();
  auto bgr = DecodePipeline({f}, "decoders.image", {{"output_type", std::string("BGR")}}, 1)->Run();
  auto a = SampleData<uint8_t>(rgb[0], 0), b = SampleData<uint8_t>(bgr[0], 0);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i += 3) {
    ASSERT_EQ(a[i], b[i + 2]);
    ASSERT_EQ(a[i + 2], b[i]);
  }
  ExpectError([&] { DecodePipeline({f}, "decoders.image", {{"output_type", std::string("HSV")}}, 1); },
              {"output_type", "expected one of 'RGB'", "got 'HSV'"});
}

TEST(DecodersImage, CorruptInputNamesTheFileAndTheOperator) {
  TempDir tmp;
  auto good = ReadBytes(ImagePath("photo_500x375.jpg"));
  WriteBytes(tmp / "truncated.jpg", std::vector<uint8_t>(good.begin(), good.begin() + static_cast<long>(good.size() / 3)));
  WriteBytes(tmp / "empty.jpg", {});
  WriteBytes(tmp / "text.jpg", {'h', 'e', 'l', 'l', 'o', '\n'});
  for (const char* bad : {"truncated.jpg", "empty.jpg", "text.jpg"}) {
    auto p = DecodePipeline({ImagePath("photo_500x375.jpg"), tmp / bad}, "decoders.image", {}, 2);
    ExpectError([&] { p->Run(); }, {"[decoder]", "sample 1", tmp / bad});
  }
  // A decompression bomb is refused before decoding.
  auto p = DecodePipeline({ImagePath("photo_500x375.jpg")}, "decoders.image", {{"max_pixels", int64_t{1000}}}, 1);
  ExpectError([&] { p->Run(); }, {"[decoder]", "photo_500x375.jpg"});
}

TEST(DecodersImage, OnErrorReplaceKeepsTheBatchFullAndLogsTheSource) {
  TempDir tmp;
  auto good = ReadBytes(ImagePath("photo_500x375.jpg"));
  WriteBytes(tmp / "truncated.jpg", std::vector<uint8_t>(good.begin(), good.begin() + 5000));
  const std::vector<std::string> files = {ImagePath("gray.jpg"), tmp / "truncated.jpg", ImagePath("photo_500x375.jpg"),
                                          ImagePath("cmyk.jpg")};
  auto p = DecodePipeline(files, "decoders.image", {{"on_error", std::string("replace")}}, 4);
  auto out = p->Run();
  ASSERT_EQ(out[0].num_samples(), 4);
  // Sample 1 failed and took the data of the next sample that decoded (2).
  EXPECT_EQ(out[0].shape(1), out[0].shape(2));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 1), SampleData<uint8_t>(out[0], 2));
  // The prefetched next batch (the same four files) may already be logged too.
  auto log = p->GetErrorLog();
  ASSERT_GE(log.size(), 1u);
  for (const auto& rec : log) {
    EXPECT_EQ(rec.op, "decoder");
    EXPECT_EQ(rec.sample, 1);
    EXPECT_EQ(rec.replaced_by, 2);
    EXPECT_EQ(rec.source, tmp / "truncated.jpg");
    EXPECT_FALSE(rec.error.empty());
  }
  EXPECT_EQ(log[0].iteration, 0);
  auto st = p->GetExecutorStatistics();
  bool found = false;
  for (const auto& op : st.operators)
    if (op.name == "decoder") { EXPECT_GE(op.replaced_samples, 1); found = true; }
  EXPECT_TRUE(found);

  // A batch where nothing decodes is still an error.
  WriteBytes(tmp / "a.jpg", {1, 2, 3});
  WriteBytes(tmp / "b.jpg", {4, 5, 6});
  auto q = DecodePipeline({tmp / "a.jpg", tmp / "b.jpg"}, "decoders.image", {{"on_error", std::string("replace")}}, 2);
  ExpectError([&] { q->Run(); }, {"no sample of the batch could be decoded"});
  ExpectError([&] { DecodePipeline(files, "decoders.image", {{"on_error", std::string("skip")}}, 4); }, {"on_error"});
}

TEST(DecodersImageRandomCrop, SameSeedSameWindowsForAnyThreadCountAndWindowsAreCrops) {
  std::vector<std::string> files(16, ImagePath("photo_500x375.jpg"));
  std::vector<uint8_t> ref;
  for (int threads : {1, 2, 4}) {
    auto p = DecodePipeline(files, "decoders.image_random_crop", {}, 16, threads);
    std::vector<uint8_t> all;
    for (int it = 0; it < 2; ++it) {
      auto b = AllBytes(p->Run());
      all.insert(all.end(), b.begin(), b.end());
    }
    if (threads == 1) ref = all;
    else EXPECT_EQ(all, ref) << threads << " threads";
  }
  // Windows differ between samples and lie within the image.
  auto p = DecodePipeline(files, "decoders.image_random_crop", {}, 16);
  auto out = p->Run();
  std::set<std::vector<int64_t>> shapes;
  for (int i = 0; i < 16; ++i) {
    EXPECT_LE(out[0].shape(i)[0], 375);
    EXPECT_LE(out[0].shape(i)[1], 500);
    shapes.insert(out[0].shape(i).to_vector());
  }
  EXPECT_GT(shapes.size(), 8u);
}

TEST(DecodersImageRandomCrop, FullAreaWindowEqualsTheFullDecode) {
  const std::string f = ImagePath("photo_500x375.jpg");
  const double r = 500.0 / 375.0;
  auto p = DecodePipeline({f}, "decoders.image_random_crop",
                          {{"random_area", std::vector<double>{1.0, 1.0}}, {"random_aspect_ratio", std::vector<double>{r, r}}}, 1);
  auto out = p->Run();
  std::vector<uint8_t> ref;
  KernelDecode(f, {}, ref);
  EXPECT_EQ(out[0].shape(0), (TensorShape{375, 500, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), ref);
  ExpectError([&] { DecodePipeline({f}, "decoders.image_random_crop", {{"random_area", std::vector<double>{0.5, 0.1}}}, 1); },
              {"random_area"});
}

TEST(DecodersImageCrop, DecodesTheFixedWindow) {
  const std::string f = ImagePath("photo_500x375.jpg");
  auto p = DecodePipeline({f}, "decoders.image_crop",
                          {{"crop", std::vector<double>{100, 200}}, {"crop_pos_x", 0.0}, {"crop_pos_y", 1.0}}, 1);
  auto out = p->Run();
  EXPECT_EQ(out[0].shape(0), (TensorShape{100, 200, 3}));
  kernels::DecodeParams params;
  params.roi = kernels::CropWindow{0, 275, 200, 100};
  std::vector<uint8_t> ref;
  KernelDecode(f, params, ref);
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), ref);
}

double Psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) se += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return 10 * std::log10(255.0 * 255.0 / (se / static_cast<double>(a.size()) + 1e-12));
}

TEST(ScaledDecode, DecoderFeedingAResizeDecodesAtAReducedScale) {
  // A 100x75 output from a 500x375 image: the decoder may use 1/4 scale (125x94).
  auto run = [&](bool scaled) {
    Pipeline p(Options(1));
    auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", std::vector<std::string>{ImagePath("photo_500x375.jpg")}));
    auto d = p.AddOperator(OperatorDef("decoders.image").Input(r[0]).Arg("scaled_decode", scaled))[0];
    auto s = p.AddOperator(OperatorDef("resize").Input(d).Arg("resize_x", 100.0).Arg("resize_y", 75.0))[0];
    p.SetOutputs({s});
    p.Build();
    return SampleData<uint8_t>(p.Run()[0], 0);
  };
  auto full = run(false), scaled = run(true);
  ASSERT_EQ(full.size(), scaled.size());
  EXPECT_NE(full, scaled);           // it did decode differently
  EXPECT_GT(Psnr(full, scaled), 30);  // and the result is close
}

TEST(ScaledDecode, WindowedDecodersScaleOnlyWhenAsked) {
  // image_crop's 400x300 window before a 100x75 resize: 1/2 and 1/4 keep it at or above the target,
  // but only with scaled_decode=True; by default (no argument) the window is decoded exactly.
  auto run = [&](std::optional<bool> scaled) {
    Pipeline p(Options(1));
    auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", std::vector<std::string>{ImagePath("photo_500x375.jpg")}));
    OperatorDef dec("decoders.image_crop");
    dec.Input(r[0]).Arg("crop", std::vector<double>{300, 400});
    if (scaled) dec.Arg("scaled_decode", *scaled);
    auto d = p.AddOperator(dec)[0];
    auto s = p.AddOperator(OperatorDef("resize").Input(d).Arg("resize_x", 100.0).Arg("resize_y", 75.0))[0];
    p.SetOutputs({s});
    p.Build();
    return SampleData<uint8_t>(p.Run()[0], 0);
  };
  const auto by_default = run(std::nullopt), exact = run(false), scaled = run(true);
  EXPECT_EQ(by_default, exact);
  ASSERT_EQ(exact.size(), scaled.size());
  EXPECT_NE(exact, scaled);
  // 1/4 gives the 100x75 output itself: the DCT's reduction against the resize's antialiasing
  // filter (29.0 dB on this detailed photograph).
  EXPECT_GT(Psnr(exact, scaled), 27);
}

}  // namespace
}  // namespace sluice
