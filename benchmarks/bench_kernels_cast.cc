// float32 -> uint8 `cast` of a 224x224x3 image: the vectorized path (kernels/tensor/cast_hwy.cc)
// against the scalar rule it replaces (CastValue per element: roundf, a libm call), side by side.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kernels/tensor/cast.h"

namespace {
using namespace sluice::kernels;
constexpr size_t kN = 224 * 224 * 3;

std::vector<float> Input() {
  std::vector<float> in(kN);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-20.f, 280.f);
  for (auto& v : in) v = u(rng);
  return in;
}

void BM_Cast_F32_U8_Vector(benchmark::State& st) {
  const auto in = Input();
  std::vector<uint8_t> out(kN);
  for (auto _ : st) {
    Cast(in.data(), sluice::DType::kFloat32, out.data(), sluice::DType::kUInt8, kN);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * kN);
}

void BM_Cast_F32_U8_ScalarRule(benchmark::State& st) {
  const auto in = Input();
  std::vector<uint8_t> out(kN);
  for (auto _ : st) {
    for (size_t i = 0; i < kN; ++i) out[i] = CastValue<uint8_t>(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * kN);
}

BENCHMARK(BM_Cast_F32_U8_Vector)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cast_F32_U8_ScalarRule)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
