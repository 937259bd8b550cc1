// JPEG decode: Sluice (libjpeg API) vs TurboJPEG tjDecompress2, full / ROI / scaled.
#include <benchmark/benchmark.h>
#include <turbojpeg.h>

#include <cstring>
#include <random>

#include "bench_kernels_common.h"
#include "kernels/crop/random_crop_window.h"
#include "kernels/decode/image_decoder.h"

namespace {
using namespace sluice::kernels;

const std::vector<uint8_t>& Jpeg() {
  static const std::vector<uint8_t> bytes = sluice::bench::ReadBenchImage();
  return bytes;
}

void BM_DecodeFull_Sluice(benchmark::State& st) {
  const auto& jpg = Jpeg();
  DecodeParams p;
  const DecodePlan plan = PlanDecode(PeekImage(jpg), p);
  std::vector<uint8_t> out(plan.size_bytes());
  for (auto _ : st) {
    DecodeImage(jpg, p, out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetLabel(std::to_string(plan.width) + "x" + std::to_string(plan.height));
}
BENCHMARK(BM_DecodeFull_Sluice)->Unit(benchmark::kMicrosecond);

// Header parse (libjpeg jpeg_read_header + EXIF scan): what the operator's setup phase pays.
void BM_PeekImage(benchmark::State& st) {
  const auto& jpg = Jpeg();
  for (auto _ : st) benchmark::DoNotOptimize(PeekImage(jpg));
}
BENCHMARK(BM_PeekImage)->Unit(benchmark::kMicrosecond);

// Decode with the ImageInfo from setup (no second header parse).
void BM_DecodeFull_SluiceWithInfo(benchmark::State& st) {
  const auto& jpg = Jpeg();
  DecodeParams p;
  const ImageInfo info = PeekImage(jpg);
  std::vector<uint8_t> out(PlanDecode(info, p).size_bytes());
  for (auto _ : st) {
    DecodeImage(jpg, info, p, out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_DecodeFull_SluiceWithInfo)->Unit(benchmark::kMicrosecond);

void TjLoop(benchmark::State& st, int num) {
  const auto& jpg = Jpeg();
  tjhandle h = tjInitDecompress();
  int w, hh, ss, cs;
  tjDecompressHeader3(h, jpg.data(), jpg.size(), &w, &hh, &ss, &cs);
  tjscalingfactor sf{num, 8};
  const int sw = TJSCALED(w, sf), sh = TJSCALED(hh, sf);
  std::vector<uint8_t> out(size_t(sw) * sh * 3);
  for (auto _ : st) {
    if (tjDecompress2(h, jpg.data(), jpg.size(), out.data(), sw, 0, sh, TJPF_RGB, 0) != 0) st.SkipWithError("tj");
    benchmark::DoNotOptimize(out.data());
  }
  tjDestroy(h);
}
void BM_DecodeFull_TjDecompress2(benchmark::State& st) { TjLoop(st, 8); }
BENCHMARK(BM_DecodeFull_TjDecompress2)->Unit(benchmark::kMicrosecond);

// Header + decode per image as a pipeline does it (handle reused, header parsed every time).
void BM_DecodeFull_TjWithHeader(benchmark::State& st) {
  const auto& jpg = Jpeg();
  tjhandle h = tjInitDecompress();
  std::vector<uint8_t> out;
  for (auto _ : st) {
    int w, hh, ss, cs;
    tjDecompressHeader3(h, jpg.data(), jpg.size(), &w, &hh, &ss, &cs);
    out.resize(size_t(w) * hh * 3);
    tjDecompress2(h, jpg.data(), jpg.size(), out.data(), w, 0, hh, TJPF_RGB, 0);
    benchmark::DoNotOptimize(out.data());
  }
  tjDestroy(h);
}
BENCHMARK(BM_DecodeFull_TjWithHeader)->Unit(benchmark::kMicrosecond);

// 64 windows drawn with DALI's default random_area / random_aspect_ratio.
std::vector<CropWindow> Windows(const ImageInfo& info) {
  std::mt19937_64 rng(123);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<CropWindow> ws;
  for (int i = 0; i < 64; ++i) ws.push_back(RandomCropWindow(info.height, info.width, RandomCropParams{}, [&] { return u(rng); }));
  return ws;
}

// Decodes the random windows in turn, at the smallest scale still >= `target` (0: full scale).
void RoiLoop(benchmark::State& st, int target) {
  const auto& jpg = Jpeg();
  const auto info = PeekImage(jpg);
  const auto ws = Windows(info);
  std::vector<uint8_t> out(size_t(info.width) * info.height * 3);
  size_t i = 0;
  for (auto _ : st) {
    DecodeParams p;
    p.roi = ws[i++ % ws.size()];
    p.target_width = p.target_height = target;
    DecodeImage(jpg, p, out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_DecodeRoi_Sluice(benchmark::State& st) { RoiLoop(st, 0); }
BENCHMARK(BM_DecodeRoi_Sluice)->Unit(benchmark::kMicrosecond);

void BM_DecodeFullThenCrop(benchmark::State& st) {
  const auto& jpg = Jpeg();
  const auto info = PeekImage(jpg);
  const auto ws = Windows(info);
  std::vector<uint8_t> full(size_t(info.width) * info.height * 3), out(full.size());
  size_t i = 0;
  for (auto _ : st) {
    DecodeImage(jpg, DecodeParams{}, full.data(), full.size());
    const CropWindow w = ws[i++ % ws.size()];
    for (int y = 0; y < w.h; ++y)
      std::memcpy(&out[size_t(y) * w.w * 3], &full[(size_t(w.y + y) * info.width + w.x) * 3], size_t(w.w) * 3);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_DecodeFullThenCrop)->Unit(benchmark::kMicrosecond);

// Decodes the image for a target size (the plan picks the scale) and labels the scale it used.
void ScaledLoop(benchmark::State& st, int target_width, int target_height) {
  const auto& jpg = Jpeg();
  DecodeParams p;
  p.target_width = target_width;
  p.target_height = target_height;
  const DecodePlan plan = PlanDecode(PeekImage(jpg), p);
  std::vector<uint8_t> out(plan.size_bytes());
  for (auto _ : st) {
    DecodeImage(jpg, p, out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetLabel("scale " + std::to_string(plan.scale_num) + "/8 -> " + std::to_string(plan.width) + "x" +
              std::to_string(plan.height));
}

// Scaled decode: target 200x150 -> scale 1/2 for a 500x375 image.
void BM_DecodeScaledHalf_Sluice(benchmark::State& st) { ScaledLoop(st, 200, 150); }
BENCHMARK(BM_DecodeScaledHalf_Sluice)->Unit(benchmark::kMicrosecond);
void BM_DecodeScaledHalf_TjDecompress2(benchmark::State& st) { TjLoop(st, 4); }
BENCHMARK(BM_DecodeScaledHalf_TjDecompress2)->Unit(benchmark::kMicrosecond);

// libjpeg-turbo at every DCT scale M/8 of the 500x375 image: which scales save time over a full
// decode, i.e. which ones the scaled-decode plan may use (see PlanDecode).
void BM_DecodeScale_TjDecompress2(benchmark::State& st) {
  TjLoop(st, static_cast<int>(st.range(0)));
  st.SetLabel("scale " + std::to_string(st.range(0)) + "/8");
}
BENCHMARK(BM_DecodeScale_TjDecompress2)->DenseRange(1, 8)->Unit(benchmark::kMicrosecond);

// ROI + scaled: random window decoded at the smallest scale still >= 112x112.
void BM_DecodeRoiScaled_Sluice(benchmark::State& st) { RoiLoop(st, 112); }
BENCHMARK(BM_DecodeRoiScaled_Sluice)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
