// crop_mirror_normalize 224x224x3 uint8 -> CHW float (ImageNet mean/std).
// Compare with: python3 benchmarks/cmn_numpy_reference.py
#include <benchmark/benchmark.h>

#include <random>

#include "kernels/crop_mirror_normalize/crop_mirror_normalize.h"

namespace {
using namespace sluice::kernels;

const float kMean[] = {0.485f * 255, 0.456f * 255, 0.406f * 255};
const float kStd[] = {0.229f * 255, 0.224f * 255, 0.225f * 255};

void Run(benchmark::State& st, int in_h, int in_w, bool mirror, CmnLayout layout, sluice::DType t, bool pad) {
  std::vector<uint8_t> in(size_t(in_h) * in_w * 3);
  std::mt19937 rng(1);
  for (auto& v : in) v = uint8_t(rng());
  CmnParams p;
  p.crop_w = p.crop_h = 224;
  p.crop_x = (in_w - 224) / 2;
  p.crop_y = (in_h - 224) / 2;
  p.mirror = mirror;
  p.mean = kMean;
  p.stddev = kStd;
  p.layout = layout;
  p.pad_output = pad;
  std::vector<uint8_t> out(CmnOutputElements(p, 3) * sluice::SizeOf(t));
  for (auto _ : st) {
    CropMirrorNormalize(in.data(), in_h, in_w, 3, p, t, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * 224 * 224 * 3);
}

using sluice::DType;
void BM_Cmn_224_CHW_F32(benchmark::State& st) { Run(st, 224, 224, false, CmnLayout::kCHW, DType::kFloat32, false); }
void BM_Cmn_224_CHW_F32_Mirror(benchmark::State& st) { Run(st, 224, 224, true, CmnLayout::kCHW, DType::kFloat32, false); }
void BM_Cmn_256crop224_CHW_F32(benchmark::State& st) { Run(st, 256, 256, false, CmnLayout::kCHW, DType::kFloat32, false); }
void BM_Cmn_224_HWC_F32(benchmark::State& st) { Run(st, 224, 224, false, CmnLayout::kHWC, DType::kFloat32, false); }
void BM_Cmn_224_CHW_F16(benchmark::State& st) { Run(st, 224, 224, false, CmnLayout::kCHW, DType::kFloat16, false); }
void BM_Cmn_224_HWC_Pad_U8(benchmark::State& st) { Run(st, 224, 224, false, CmnLayout::kHWC, DType::kUInt8, true); }
BENCHMARK(BM_Cmn_224_CHW_F32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cmn_224_CHW_F32_Mirror)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cmn_256crop224_CHW_F32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cmn_224_HWC_F32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cmn_224_CHW_F16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cmn_224_HWC_Pad_U8)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
