// Resize 500x375 -> 224x224 (HWC uint8 RGB), the benchmark behind the "as fast as Pillow" goal.
// Compare with: python3 benchmarks/resize_pillow_reference.py
#include <benchmark/benchmark.h>

#include <type_traits>

#include "bench_kernels_common.h"
#include "kernels/decode/image_decoder.h"
#include "kernels/resize/resize.h"

namespace {
using namespace sluice::kernels;

struct Src {
  int h, w;
  std::vector<uint8_t> px;
};
const Src& Source() {
  static const Src s = [] {
    auto jpg = sluice::bench::ReadBenchImage();
    auto plan = PlanDecode(PeekImage(jpg), DecodeParams{});
    Src s{plan.height, plan.width, std::vector<uint8_t>(plan.size_bytes())};
    DecodeImage(jpg, DecodeParams{}, s.px.data(), s.px.size());
    return s;
  }();
  return s;
}

void Run(benchmark::State& st, ResizeFilter f, bool antialias, int out_h, int out_w) {
  const Src& s = Source();
  ResizeParams p;
  p.min_filter = p.mag_filter = f;
  p.antialias = antialias;
  std::vector<uint8_t> out(size_t(out_h) * out_w * 3);
  for (auto _ : st) {
    Resize(s.px.data(), s.h, s.w, 3, out.data(), out_h, out_w, p);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetLabel(std::to_string(s.w) + "x" + std::to_string(s.h) + " -> " + std::to_string(out_w) + "x" + std::to_string(out_h));
}

void BM_Resize_LinearAntialias(benchmark::State& st) { Run(st, ResizeFilter::kLinear, true, 224, 224); }
void BM_Resize_Triangular(benchmark::State& st) { Run(st, ResizeFilter::kTriangular, false, 224, 224); }
void BM_Resize_LinearNoAntialias(benchmark::State& st) { Run(st, ResizeFilter::kLinear, false, 224, 224); }
void BM_Resize_Cubic(benchmark::State& st) { Run(st, ResizeFilter::kCubic, true, 224, 224); }
void BM_Resize_Lanczos3(benchmark::State& st) { Run(st, ResizeFilter::kLanczos3, true, 224, 224); }
void BM_Resize_Nearest(benchmark::State& st) { Run(st, ResizeFilter::kNearest, true, 224, 224); }
void BM_Resize_LinearUpscale(benchmark::State& st) { Run(st, ResizeFilter::kLinear, true, 750, 1000); }
BENCHMARK(BM_Resize_LinearAntialias)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Resize_Triangular)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Resize_LinearNoAntialias)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Resize_Cubic)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Resize_Lanczos3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Resize_Nearest)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Resize_LinearUpscale)->Unit(benchmark::kMicrosecond);

void BM_Resize_FloatOut_LinearAntialias(benchmark::State& st) {
  const Src& s = Source();
  std::vector<float> out(size_t(224) * 224 * 3);
  for (auto _ : st) {
    Resize(s.px.data(), s.h, s.w, 3, out.data(), 224, 224, ResizeParams{});
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_Resize_FloatOut_LinearAntialias)->Unit(benchmark::kMicrosecond);

// DALI's 16-bit types (the float path with a rounded, saturated 16-bit output): the same image,
// its values scaled to the type's range.
template <typename T>
void RunWide(benchmark::State& st) {
  const Src& s = Source();
  std::vector<T> in(s.px.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = T(int(s.px[i]) * 257 + (std::is_signed_v<T> ? -32768 : 0));
  std::vector<T> out(size_t(224) * 224 * 3);
  for (auto _ : st) {
    Resize(in.data(), s.h, s.w, 3, out.data(), 224, 224, ResizeParams{});
    benchmark::DoNotOptimize(out.data());
  }
}
void BM_Resize_Int16_LinearAntialias(benchmark::State& st) { RunWide<int16_t>(st); }
void BM_Resize_Uint16_LinearAntialias(benchmark::State& st) { RunWide<uint16_t>(st); }
BENCHMARK(BM_Resize_Int16_LinearAntialias)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Resize_Uint16_LinearAntialias)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
