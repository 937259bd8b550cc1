// nvJPEG in the mixed decoders (operators/gpu/nvjpeg_*.h, mixed_image_decoder.cc).
//   Without a GPU: the library is found and has the header's major version; opening a decoder
//   fails with a sluice::Error.
//   With a GPU: every backend's pixels against Sluice's host decoder on real photographs at every
//   chroma subsampling (same extents; mean |diff| <= 1.0; max |diff| <= kMaxDiff, the IDCT and
//   chroma-upsampling tolerance), ROI decode, the routing of each file (printed), the pipeline with
//   on_error="replace", and device memory over 10 epochs.
#include <turbojpeg.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "gpu_test_util.h"
#ifdef SLUICE_WITH_NVJPEG
#include "operators/decode/nvjpeg_decoder.h"
#include "operators/decode/nvjpeg_route.h"
#endif

namespace sluice::gputest {
namespace {

#ifdef SLUICE_WITH_NVJPEG

// nvJPEG's IDCT and chroma upsampling are not libjpeg-turbo's ISLOW IDCT and fancy upsampling:
// most pixels agree within 1, a few at sharp chroma edges by more.
constexpr int kMaxDiff = 12;
constexpr double kMaxMeanDiff = 1.0;

TEST(Nvjpeg, LibraryIsFoundWithTheHeadersVersion) {
  const gpu::NvjpegLoad& load = gpu::LoadNvjpeg();
  if (std::string(SLUICE_NVJPEG_LIBRARY_DIR).empty() && !load.library)
    GTEST_SKIP() << "no libnvjpeg beside the header at configure time: " << load.error;
  ASSERT_NE(load.library, nullptr) << load.error;
  EXPECT_EQ(load.library->major, NVJPEG_VER_MAJOR);
  EXPECT_FALSE(load.library->path.empty());
  std::cout << "[ info ] nvJPEG " << load.library->major << "." << load.library->minor << "." << load.library->patch
            << " from " << load.library->path << "\n";
}

TEST(Nvjpeg, WithoutAGpuOpeningTheDecoderIsAnError) {
  if (HaveGpu()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_THROW(gpu::NvjpegDecoder(gpu::NvjpegOptions{}, 2), Error);
}

std::vector<uint8_t> Reencode(const Image& im, int subsamp, int flags = 0) {
  tjhandle c = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  EXPECT_EQ(tjCompress2(c, im.px.data(), im.w, 0, im.h, TJPF_RGB, &buf, &size, subsamp, 90, flags), 0);
  std::vector<uint8_t> out(buf, buf + size);
  tjFree(buf);
  tjDestroy(c);
  return out;
}

struct Named {
  std::string name;
  std::vector<uint8_t> bytes;
};

// The repository's JPEGs and the photograph re-encoded at every subsampling TurboJPEG writes.
std::vector<Named> Jpegs() {
  std::vector<Named> v;
  for (const char* f : {"photo_500x375.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "gray.jpg"})
    v.push_back({f, ReadFile(DataPath(f))});
  const Image photo = DecodeFile("photo_500x375.jpg");
  const std::pair<int, const char*> subs[] = {{TJSAMP_444, "444"}, {TJSAMP_422, "422"}, {TJSAMP_420, "420"},
                                              {TJSAMP_440, "440"}, {TJSAMP_411, "411"}, {TJSAMP_GRAY, "gray"}};
  for (const auto& [s, n] : subs) v.push_back({std::string("photo re-encoded ") + n, Reencode(photo, s)});
  v.push_back({"photo re-encoded 420 progressive", Reencode(photo, TJSAMP_420, TJFLAG_PROGRESSIVE)});
  return v;
}

struct Diff {
  double mean = 0;
  int max = 0;
};

Diff Compare(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  Diff d;
  if (a.size() != b.size() || a.empty()) return {1e9, 255};
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int e = std::abs(int(a[i]) - int(b[i]));
    sum += e;
    d.max = std::max(d.max, e);
  }
  d.mean = sum / double(a.size());
  return d;
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) { EXPECT_EQ(cudaMalloc(&p_, std::max<size_t>(n, 1)), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(p_); }
  uint8_t* get() { return static_cast<uint8_t*>(p_); }
  std::vector<uint8_t> Host() {
    std::vector<uint8_t> v(n_);
    EXPECT_EQ(cudaMemcpy(v.data(), p_, n_, cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
  }

 private:
  void* p_ = nullptr;
  size_t n_;
};

// Host reference of `bytes` (RGB or gray), optionally of a window.
std::vector<uint8_t> HostDecode(const std::vector<uint8_t>& bytes, kernels::OutputColor color,
                                std::optional<kernels::CropWindow> roi, kernels::DecodePlan* plan) {
  kernels::DecodeParams p;
  p.output_type = color;
  p.roi = roi;
  *plan = kernels::PlanDecode(kernels::PeekImage(bytes), p);
  std::vector<uint8_t> out(plan->size_bytes());
  kernels::DecodeImage(bytes, p, out.data(), out.size());
  return out;
}

TEST(Nvjpeg, EveryBackendMatchesTheHostDecoder) {
  SLUICE_REQUIRE_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  gpu::NvjpegDecoder dec(gpu::NvjpegOptions{}, 1);
  std::cout << "[ info ] " << dec.description() << "\n";
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const Named& f : Jpegs()) {
    for (const bool gray_out : {false, true}) {
      for (const bool with_roi : {false, true}) {
        const auto color = gray_out ? kernels::OutputColor::kGray : kernels::OutputColor::kRGB;
        const kernels::ImageInfo info = kernels::PeekImage(f.bytes);
        std::optional<kernels::CropWindow> roi;
        if (with_roi) roi = kernels::CropWindow{info.width / 5, info.height / 7, info.width / 2, info.height / 3};
        kernels::DecodePlan plan;
        const std::vector<uint8_t> ref = HostDecode(f.bytes, color, roi, &plan);
        gpu::NvjpegTarget t{f.bytes.data(), f.bytes.size(), nullptr, plan.width, plan.height, plan.channels, roi};
        const nvjpegOutputFormat_t fmt = gpu::NvjpegFormat(plan.channels, false);
        const std::string what = f.name + (gray_out ? ", GRAY" : ", RGB") + (with_roi ? ", ROI" : "");
        for (const bool gpu_huffman : {false, true}) {
          DeviceBuffer out(plan.size_bytes());
          t.out = out.get();
          dec.BeginBatch(stream);
          const std::string err = dec.DecodeHybrid(0, t, fmt, gpu_huffman);
          dec.JoinInto(stream);
          ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
          ASSERT_EQ(err, "") << what;
          const Diff d = Compare(out.Host(), ref);
          std::cout << "[ info ] " << (gpu_huffman ? "gpu_hybrid" : "hybrid    ") << " " << what << ": mean |diff| "
                    << d.mean << ", max " << d.max << "\n";
          EXPECT_LE(d.mean, kMaxMeanDiff) << what;
          EXPECT_LE(d.max, kMaxDiff) << what;
        }
        if (dec.hardware() && dec.HardwareSupports(0, t, fmt)) {
          DeviceBuffer out(plan.size_bytes());
          t.out = out.get();
          ASSERT_EQ(dec.DecodeHardware({t}, fmt, stream), "") << what;
          ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
          const Diff d = Compare(out.Host(), ref);
          std::cout << "[ info ] hardware   " << what << ": mean |diff| " << d.mean << ", max " << d.max << "\n";
          EXPECT_LE(d.mean, kMaxMeanDiff) << what;
          EXPECT_LE(d.max, kMaxDiff) << what;
        } else {
          std::cout << "[ info ] hardware   " << what << ": not taken by the JPEG engines\n";
        }
      }
    }
  }
  cudaStreamDestroy(stream);
}

TEST(Nvjpeg, TruncatedJpegFailsInsteadOfDecodingGrey) {
  SLUICE_REQUIRE_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  gpu::NvjpegDecoder dec(gpu::NvjpegOptions{}, 1);
  std::vector<uint8_t> bytes = ReadFile(DataPath("photo_500x375.jpg"));
  bytes.resize(bytes.size() / 2);
  DeviceBuffer out(500 * 375 * 3);
  gpu::NvjpegTarget t{bytes.data(), bytes.size(), out.get(), 500, 375, 3, std::nullopt};
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  dec.BeginBatch(stream);
  const std::string err = dec.DecodeHybrid(0, t, NVJPEG_OUTPUT_RGBI, false);
  dec.JoinInto(stream);
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  std::cout << "[ info ] truncated JPEG: " << (err.empty() ? "decoded (nvJPEG tolerated it)" : err) << "\n";
  EXPECT_NE(err, "");
}

// readers.file -> decoder (cpu | mixed with nvJPEG), same seed.
std::vector<std::vector<Batch>> RunCpuAndNvjpeg(const std::string& decoder, const std::vector<std::string>& files,
                                               int batch, int iters, double hw_load, const std::string& on_error) {
  Pipeline p(GpuOptions(batch, 2));
  auto r = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("files", files));
  auto cpu = p.AddOperator(OperatorDef(decoder, "cpu").Input(r[0]).Arg("seed", int64_t{7}).Arg("on_error", on_error))[0];
  auto gpu = p.AddOperator(OperatorDef(decoder, "mixed")
                               .Input(r[0])
                               .Arg("seed", int64_t{7})
                               .Arg("on_error", on_error)
                               .Arg("hw_decoder_load", hw_load))[0];
  p.SetOutputs({cpu, gpu});
  p.Build();
  std::vector<std::vector<Batch>> all;
  for (int i = 0; i < iters; ++i) all.push_back(p.Run());
  return all;
}

TEST(Nvjpeg, MixedDecodersMatchTheCpuDecoders) {
  SLUICE_REQUIRE_GPU();
  std::vector<std::string> files;
  for (const char* n : {"photo_500x375.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "gray.jpg",
                        "cmyk.jpg", "orient_3.jpg", "orient_6.jpg", "gray.png", "rgb24.bmp"})
    files.push_back(DataPath(n));
  for (const char* d : {"decoders.image", "decoders.image_random_crop", "decoders.image_crop"}) {
    for (const double load : {0.0, 0.65, 1.0}) {
      const auto out = RunCpuAndNvjpeg(d, files, 4, 3, load, "raise");
      for (const auto& b : out) {
        ASSERT_EQ(b[1].device(), "gpu");
        for (int i = 0; i < b[0].num_samples(); ++i) {
          const std::string what = std::string(d) + " hw_decoder_load " + std::to_string(load) + " " + b[0].source(i).ToString();
          ASSERT_EQ(b[0].shape(i), b[1].shape(i)) << what;
          const Diff diff = Compare(HostBytes(b[0], i), HostBytes(b[1], i));
          EXPECT_LE(diff.mean, kMaxMeanDiff) << what;
          EXPECT_LE(diff.max, kMaxDiff) << what;
        }
      }
    }
  }
}

TEST(Nvjpeg, OnErrorReplaceNamesTheFileAsOnTheCpu) {
  SLUICE_REQUIRE_GPU();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sluice_nvjpeg_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<uint8_t> bad = ReadFile(DataPath("photo_500x375.jpg"));
  bad.resize(bad.size() / 3);
  const std::string bad_path = (dir / "truncated.jpg").string();
  {
    std::ofstream f(bad_path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
  }
  const std::vector<std::string> files = {DataPath("photo_500x375.jpg"), bad_path, DataPath("s420.jpg"), DataPath("s444.jpg")};
  Pipeline p(GpuOptions(4, 2));
  auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", files));
  auto gpu = p.AddOperator(OperatorDef("decoders.image", "mixed").Input(r[0]).Arg("on_error", std::string("replace")))[0];
  p.SetOutputs({gpu});
  p.Build();
  auto b = p.Run();
  EXPECT_EQ(b[0].num_samples(), 4);
  const auto log = p.GetErrorLog();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].source.find("truncated.jpg"), std::string::npos) << log[0].source;
  std::filesystem::remove_all(dir);
}

TEST(Nvjpeg, DeviceMemoryIsFlatOverTenEpochs) {
  SLUICE_REQUIRE_GPU();
  std::vector<std::string> files;
  for (const char* n : {"photo_500x375.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "gray.jpg", "cmyk.jpg"})
    files.push_back(DataPath(n));
  Pipeline p(GpuOptions(4, 2));
  auto r = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("files", files).Arg("random_shuffle", true));
  auto e = p.AddOperator(OperatorDef("decoders.image_random_crop", "mixed").Input(r[0]))[0];
  e = p.AddOperator(OperatorDef("resize", "gpu").Input(e).Arg("resize_x", 64.0).Arg("resize_y", 64.0))[0];
  p.SetOutputs({e});
  p.Build();
  const int iters = static_cast<int>((p.EpochSize("Reader") + 3) / 4);
  auto run_epoch = [&] {
    for (int i = 0; i < iters; ++i) p.Run();
  };
  for (int ep = 0; ep < 3; ++ep) run_epoch();
  size_t free0 = 0, free1 = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
  for (int ep = 0; ep < 10; ++ep) run_epoch();
  ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
  std::cout << "[ info ] cudaMemGetInfo free over 10 epochs with nvJPEG: " << free0 << " -> " << free1 << "\n";
  EXPECT_GE(free1 + (16u << 20), free0);
}

#endif  // SLUICE_WITH_NVJPEG

}  // namespace
}  // namespace sluice::gputest
