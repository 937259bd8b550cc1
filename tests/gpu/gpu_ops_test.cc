// Every GPU operator against its CPU version on the same batch (real photographs and synthetic
// images of odd sizes): exact for integer outputs, <= 1 LSB for resize to uint8, 1e-5 relative
// for float outputs. Skipped without a CUDA device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "gpu_test_util.h"

namespace sluice::gputest {
namespace {

using Args = std::map<std::string, Value>;

struct Both {
  Batch cpu, gpu;
};

// ext -> op(cpu) and ext -> copy(mixed) -> op(gpu), with the same arguments. Each entry of
// `coins` adds a random.coin_flip (fixed seed) feeding that per-sample argument of both.
Both RunBoth(const std::string& op, const Args& args, const std::vector<Pipeline::ExternalSample>& samples,
             const std::vector<std::string>& coins = {}, const std::string& layout = "HWC") {
  Pipeline p(GpuOptions(static_cast<int>(samples.size())));
  auto src = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  auto dev = p.AddOperator(OperatorDef("copy", "mixed").Input(src))[0];
  OperatorDef cpu(op, "cpu"), gpu(op, "gpu");
  cpu.Input(src);
  gpu.Input(dev);
  cpu.args = gpu.args = args;
  int64_t seed = 7;
  for (const auto& arg : coins) {
    auto c = p.AddOperator(OperatorDef("random.coin_flip").Arg("seed", seed++))[0];
    cpu.ArgInput(arg, c);
    gpu.ArgInput(arg, c);
  }
  auto a = p.AddOperator(cpu)[0];
  auto b = p.AddOperator(gpu)[0];
  p.SetOutputs({a, b});
  p.Build();
  p.FeedInput("src", samples, layout);
  p.ScheduleRun();  // one batch: Run() would prefetch a second one that nothing was fed for
  auto out = p.ShareOutputs();
  EXPECT_EQ(out[1].device(), "gpu");
  return {out[0], out[1]};
}

void ExpectSameMeta(const Both& r) {
  ASSERT_EQ(r.cpu.num_samples(), r.gpu.num_samples());
  EXPECT_EQ(r.cpu.dtype(), r.gpu.dtype());
  EXPECT_EQ(r.cpu.layout(), r.gpu.layout());
  for (int i = 0; i < r.cpu.num_samples(); ++i) EXPECT_EQ(r.cpu.shape(i), r.gpu.shape(i)) << "sample " << i;
}

void ExpectBitExact(const Both& r, const std::string& what) {
  ExpectSameMeta(r);
  for (int i = 0; i < r.cpu.num_samples(); ++i) {
    const auto a = HostBytes(r.cpu, i), b = HostBytes(r.gpu, i);
    ASSERT_EQ(a.size(), b.size());
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < a.size(); ++k)
      if (a[k] != b[k] && bad++ == 0) first = k;
    EXPECT_EQ(bad, 0u) << what << ": sample " << i << " differs in " << bad << " bytes, first at " << first << " ("
                       << int(a[first]) << " vs " << int(b[first]) << ")";
  }
}

void ExpectWithinLsb(const Both& r, int lsb, const std::string& what) {
  ExpectSameMeta(r);
  for (int i = 0; i < r.cpu.num_samples(); ++i) {
    const auto a = HostBytes(r.cpu, i), b = HostBytes(r.gpu, i);
    int worst = 0;
    size_t off = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      const int d = std::abs(int(a[k]) - int(b[k]));
      if (d > 0) ++off;
      worst = std::max(worst, d);
    }
    EXPECT_LE(worst, lsb) << what << ": sample " << i;
    if (off) std::cout << "[ info ] " << what << ": sample " << i << " has " << off << " of " << a.size() << " values off by <= " << worst << "\n";
  }
}

void ExpectFloatClose(const Both& r, double rel, const std::string& what) {
  ExpectSameMeta(r);
  ASSERT_EQ(r.cpu.dtype(), DType::kFloat32);
  for (int i = 0; i < r.cpu.num_samples(); ++i) {
    const auto a = HostValues<float>(r.cpu, i), b = HostValues<float>(r.gpu, i);
    double worst = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      const double d = std::abs(double(a[k]) - double(b[k])) / std::max(1.0, std::abs(double(a[k])));
      worst = std::max(worst, d);
    }
    EXPECT_LE(worst, rel) << what << ": sample " << i;
  }
}

std::vector<Pipeline::ExternalSample> FloatSamples(const std::vector<Image>& imgs, std::vector<std::vector<float>>& store) {
  store.clear();
  std::vector<Pipeline::ExternalSample> s;
  for (const auto& im : imgs) {
    std::vector<float> f(im.px.size());
    for (size_t k = 0; k < f.size(); ++k) f[k] = float(im.px[k]) * 1.37f - 40.25f;
    store.push_back(std::move(f));
  }
  for (size_t i = 0; i < imgs.size(); ++i)
    s.push_back({store[i].data(), TensorShape{imgs[i].h, imgs[i].w, imgs[i].c}, DType::kFloat32});
  return s;
}

TEST(GpuOps, NoDeviceIsAClearError) {
  if (HaveGpu()) GTEST_SKIP() << "a CUDA device is present";
  if (!cuda::BuiltWithCuda()) GTEST_SKIP() << "built without CUDA";
  Pipeline p(GpuOptions(2));
  auto src = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  auto dev = p.AddOperator(OperatorDef("copy", "mixed").Input(src))[0];
  p.SetOutputs({dev});
  try {
    p.Build();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

// DALI scripts pass device_id=0 for CPU-only graphs: that must run on machines without a GPU
// (CUDA is initialised only for graphs with mixed/gpu operators).
TEST(GpuOps, CpuOnlyGraphWithADeviceIdNeedsNoGpu) {
  const auto imgs = TestImages();
  Pipeline p(GpuOptions(static_cast<int>(imgs.size())));
  auto src = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  auto f = p.AddOperator(OperatorDef("flip").Input(src))[0];
  p.SetOutputs({f});
  p.Build();
  p.FeedInput("src", AsSamples(imgs), "HWC");
  p.ScheduleRun();
  auto out = p.ShareOutputs();
  EXPECT_EQ(out[0].device(), "cpu");
  EXPECT_EQ(out[0].num_samples(), static_cast<int>(imgs.size()));
}

TEST(GpuOps, CopyToDeviceIsExact) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  const auto s = AsSamples(imgs);
  Pipeline p(GpuOptions(static_cast<int>(s.size())));
  auto src = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  auto dev = p.AddOperator(OperatorDef("copy", "mixed").Input(src))[0];
  p.SetOutputs({src, dev});
  p.Build();
  p.FeedInput("src", s, "HWC");
  p.ScheduleRun();
  auto out = p.ShareOutputs();
  EXPECT_EQ(out[0].device(), "cpu");
  EXPECT_EQ(out[1].device(), "gpu");
  ExpectBitExact({out[0], out[1]}, "copy");
}

TEST(GpuOps, CropMirrorNormalizeMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  const auto s = AsSamples(imgs);
  for (const char* layout : {"CHW", "HWC"}) {
    for (const char* dtype : {"float32", "float16", "uint8", "int8"}) {
      for (bool pad : {false, true}) {
        Args a{{"output_layout", std::string(layout)},
               {"dtype", std::string(dtype)},
               {"pad_output", pad},
               {"mean", std::vector<double>{123.675, 116.28, 103.53}},
               {"std", std::vector<double>{58.395, 57.12, 57.375}},
               {"crop", std::vector<double>{24, 40}},
               {"crop_pos_x", 0.3},
               {"out_of_bounds_policy", std::string("pad")},
               {"fill_values", std::vector<double>{1.5, -2.0, 300.0}}};
        if (std::string(dtype) == "uint8" || std::string(dtype) == "int8") {
          a["scale"] = 40.0;
          a["shift"] = 100.0;
        }
        const std::string what = std::string("cmn ") + layout + " " + dtype + (pad ? " pad" : "");
        auto r = RunBoth("crop_mirror_normalize", a, s, {"mirror"});
        if (std::string(dtype) == "float32") ExpectFloatClose(r, 1e-5, what);
        else ExpectBitExact(r, what);
      }
    }
  }
}

TEST(GpuOps, CropMirrorNormalizeFloatInputAndNoCrop) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  std::vector<std::vector<float>> store;
  const auto s = FloatSamples(imgs, store);
  auto r = RunBoth("crop_mirror_normalize", Args{{"mean", std::vector<double>{1.0, 2.0, 3.0}}, {"std", 3.0}}, s, {"mirror"});
  ExpectFloatClose(r, 1e-5, "cmn float in");
  auto r8 = RunBoth("crop_mirror_normalize", Args{{"dtype", std::string("uint8")}, {"output_layout", std::string("HWC")}},
                    s, {"mirror"});
  ExpectBitExact(r8, "cmn float in -> uint8 (saturating)");
}

TEST(GpuOps, FlipMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  ExpectBitExact(RunBoth("flip", {}, AsSamples(imgs), {"horizontal", "vertical"}), "flip u8");
  std::vector<std::vector<float>> store;
  ExpectBitExact(RunBoth("flip", {}, FloatSamples(imgs, store), {"horizontal", "vertical"}), "flip f32");
}

TEST(GpuOps, CropMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  const auto s = AsSamples(imgs);
  ExpectBitExact(RunBoth("crop", Args{{"crop", std::vector<double>{20, 30}}, {"crop_pos_x", 0.1},
                                      {"out_of_bounds_policy", std::string("pad")}, {"fill_values", std::vector<double>{7, 300, -5}}},
                         s),
                 "crop pad");
  ExpectBitExact(RunBoth("crop", Args{{"crop_h", 50.0}, {"crop_w", 60.0}, {"out_of_bounds_policy", std::string("trim_to_shape")}}, s),
                 "crop trim");
  std::vector<std::vector<float>> store;
  ExpectBitExact(RunBoth("crop", Args{{"crop", std::vector<double>{9, 11}}, {"crop_pos_y", 0.9},
                                      {"out_of_bounds_policy", std::string("pad")}, {"fill_values", 0.25}},
                         FloatSamples(imgs, store)),
                 "crop f32");
}

TEST(GpuOps, TransposeMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  for (const auto& perm : {std::vector<int64_t>{2, 0, 1}, std::vector<int64_t>{1, 0, 2}, std::vector<int64_t>{1, 2, 0}}) {
    ExpectBitExact(RunBoth("transpose", Args{{"perm", perm}}, AsSamples(imgs)), "transpose u8");
    std::vector<std::vector<float>> store;
    ExpectBitExact(RunBoth("transpose", Args{{"perm", perm}}, FloatSamples(imgs, store)), "transpose f32");
  }
}

TEST(GpuOps, CastMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  for (const char* t : {"float32", "float16", "int8", "int16", "uint16", "int32", "int64", "float64", "bool"})
    ExpectBitExact(RunBoth("cast", Args{{"dtype", std::string(t)}}, AsSamples(imgs)), std::string("cast u8->") + t);
  // Float sources with rounding ties, negatives, overflow and NaN.
  std::vector<float> special = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 127.5f, 128.5f, 255.5f, 256.f, -129.f, 1e10f, -1e10f,
                                std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(), 65519.f, 65520.f, 1e-8f, -0.f, 3.14159f};
  std::vector<Pipeline::ExternalSample> s{{special.data(), TensorShape{1, int64_t(special.size()), 1}, DType::kFloat32},
                                          {special.data(), TensorShape{2, 5, 1}, DType::kFloat32}};
  for (const char* t : {"uint8", "int8", "int16", "uint16", "int32", "int64", "float16", "float64", "bool"})
    ExpectBitExact(RunBoth("cast", Args{{"dtype", std::string(t)}}, s), std::string("cast f32->") + t);
}

TEST(GpuOps, PreemphasisFilterMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  // A chirp with noise (float32), and int16 PCM near full scale (saturation in int16 output).
  std::vector<float> wave(4801);
  std::vector<int16_t> pcm(wave.size());
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0.f, 0.05f);
  for (size_t t = 0; t < wave.size(); ++t) {
    wave[t] = 0.8f * std::sin(0.002f * float(t) * float(t) / 48.f) + noise(rng);
    pcm[t] = static_cast<int16_t>(std::lround(std::clamp(wave[t], -1.f, 1.f) * 32767.f));
  }
  const std::vector<Pipeline::ExternalSample> f32{{wave.data(), TensorShape{int64_t(wave.size())}, DType::kFloat32},
                                                  {wave.data(), TensorShape{1}, DType::kFloat32},
                                                  {wave.data() + 7, TensorShape{300}, DType::kFloat32}};
  const std::vector<Pipeline::ExternalSample> i16{{pcm.data(), TensorShape{int64_t(pcm.size())}, DType::kInt16},
                                                  {pcm.data() + 11, TensorShape{2}, DType::kInt16}};
  for (const char* border : {"zero", "clamp", "reflect"}) {
    ExpectBitExact(RunBoth("preemphasis_filter", Args{{"border", std::string(border)}}, f32, {}, ""),
                   std::string("preemphasis f32 ") + border);
    for (const char* t : {"float32", "int16", "float16", "float64", "uint8"})
      ExpectBitExact(RunBoth("preemphasis_filter", Args{{"border", std::string(border)}, {"dtype", std::string(t)},
                                                        {"preemph_coeff", 0.9}}, i16, {}, ""),
                     std::string("preemphasis i16->") + t + " " + border);
  }
}

TEST(GpuOps, ResizeUint8MatchesCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  const auto s = AsSamples(imgs);
  for (const char* f : {"NN", "LINEAR", "CUBIC", "LANCZOS3", "TRIANGULAR", "GAUSSIAN"}) {
    for (bool aa : {true, false}) {
      const std::string what = std::string("resize u8 ") + f + (aa ? " aa" : "");
      ExpectWithinLsb(RunBoth("resize", Args{{"resize_shorter", 50.0}, {"interp_type", std::string(f)}, {"antialias", aa}}, s), 1,
                      what + " down");
      ExpectWithinLsb(RunBoth("resize", Args{{"size", std::vector<double>{97, 411}}, {"interp_type", std::string(f)}, {"antialias", aa}}, s), 1,
                      what + " mixed");
    }
  }
  ExpectWithinLsb(RunBoth("resize", Args{{"resize_x", -64.0}, {"resize_y", 48.0}, {"roi_start", std::vector<double>{0.1, 0.2}},
                                         {"roi_end", std::vector<double>{0.9, 0.7}}, {"roi_relative", true}}, s),
                  1, "resize roi + mirror");
  ExpectWithinLsb(RunBoth("resize", Args{{"size", std::vector<double>{224, 224}}, {"min_filter", std::string("TRIANGULAR")},
                                         {"mag_filter", std::string("CUBIC")}}, s),
                  1, "resize min/mag filters");
}

TEST(GpuOps, ResizeFloatMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  for (const char* f : {"LINEAR", "CUBIC", "LANCZOS3"}) {
    ExpectFloatClose(RunBoth("resize", Args{{"resize_shorter", 60.0}, {"interp_type", std::string(f)}, {"dtype", std::string("float32")}},
                             AsSamples(imgs)),
                     1e-5, std::string("resize u8->f32 ") + f);
    std::vector<std::vector<float>> store;
    ExpectFloatClose(RunBoth("resize", Args{{"size", std::vector<double>{150, 90}}, {"interp_type", std::string(f)}},
                             FloatSamples(imgs, store)),
                     1e-5, std::string("resize f32->f32 ") + f);
    ExpectWithinLsb(RunBoth("resize", Args{{"size", std::vector<double>{150, 90}}, {"interp_type", std::string(f)}, {"dtype", std::string("uint8")}},
                            FloatSamples(imgs, store)),
                    1, std::string("resize f32->u8 ") + f);
  }
}

// The colour operators' GPU backends (kernels/color/color.cu): bit for bit the CPU operators, as
// the HostGrid.* tests check the same bodies on the host.
TEST(GpuOps, ColorOpsMatchCpu) {
  SLUICE_REQUIRE_GPU();
  const auto imgs = TestImages();
  ExpectBitExact(RunBoth("brightness_contrast", Args{{"brightness", 1.3}, {"contrast", 0.7}}, AsSamples(imgs)),
                 "brightness_contrast");
  ExpectBitExact(RunBoth("brightness", Args{{"brightness", 1.7}, {"dtype", std::string("float32")}}, AsSamples(imgs)),
                 "brightness u8->f32");
  ExpectBitExact(RunBoth("contrast", Args{{"contrast", 2.5}, {"dtype", std::string("int16")}}, AsSamples(imgs)),
                 "contrast u8->i16");
  ExpectBitExact(RunBoth("color_twist", Args{{"hue", 33.0}, {"saturation", 1.4}, {"contrast", 0.8}}, AsSamples(imgs)),
                 "color_twist");
  ExpectBitExact(RunBoth("hsv", Args{{"hue", -120.0}, {"value", 1.3}, {"dtype", std::string("float16")}},
                         AsSamples(imgs)),
                 "hsv u8->f16");
  ExpectBitExact(RunBoth("hue", Args{{"hue", 200.0}}, AsSamples(imgs)), "hue");
  ExpectBitExact(RunBoth("saturation", Args{{"saturation", 0.2}}, AsSamples(imgs)), "saturation");
  for (const char* to : {"BGR", "YCbCr", "GRAY"})
    ExpectBitExact(RunBoth("color_space_conversion", Args{{"image_type", std::string("RGB")}, {"output_type", std::string(to)}},
                           AsSamples(imgs)),
                   std::string("color_space_conversion RGB->") + to);
  ExpectBitExact(RunBoth("lookup_table", Args{{"keys", std::vector<int64_t>{0, 10, 200}},
                                              {"values", std::vector<double>{1.5, -2, 300}},
                                              {"default_value", 0.25}}, AsSamples(imgs)),
                 "lookup_table");
}

}  // namespace
}  // namespace sluice::gputest
