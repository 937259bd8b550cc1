// Batched separable resize (see resize_cuda.h): a horizontal pass over the input rows that the
// vertical filter needs, into an intermediate, then the vertical pass; the same order, the same
// accumulation order and the same rounding as the CPU kernel (resize_hwy.cc).
#include "kernels/cuda_common.cuh"
#include "kernels/resize/resize_cuda.h"

namespace sluice::kernels::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kFixedBits = 22;
constexpr int32_t kRound = 1 << (kFixedBits - 1);

template <typename TAcc> __device__ __forceinline__ TAcc Init() {
  if constexpr (std::is_same_v<TAcc, int32_t>) return kRound;
  else return 0.f;
}
// acc + v * w. Float: fused, as the CPU kernel's Add(acc, Mul(v, w)) is compiled for its AVX2 and
// AVX-512 targets (GCC contracts it to vfmadd); the taps are summed in the same order.
__device__ __forceinline__ int32_t Mac(int32_t acc, int32_t v, int32_t w) { return acc + v * w; }
__device__ __forceinline__ float Mac(float acc, float v, float w) { return __fmaf_rn(v, w, acc); }

template <typename TAcc, typename TOut>
__device__ __forceinline__ TOut Store(TAcc acc) {
  if constexpr (std::is_same_v<TAcc, int32_t>) {
    const int32_t v = acc >> kFixedBits;
    return TOut(v < 0 ? 0 : v > 255 ? 255 : v);
  } else if constexpr (std::is_same_v<TOut, uint8_t>) {
    const float r = rintf(acc);
    return TOut(r < 0.f ? 0 : r > 255.f ? 255 : int(r));
  } else {
    return TOut(acc);
  }
}

template <typename TIn, typename TAcc, typename TMid>
__global__ void HorzKernel(const ResizeSampleDesc* __restrict__ descs) {
  const ResizeSampleDesc& d = descs[blockIdx.y];
  const int C = d.channels;
  const int64_t ne = int64_t(d.out_w) * C, total = ne * d.mid_rows;
  const auto* in = static_cast<const TIn*>(d.in);
  auto* mid = static_cast<TMid*>(d.mid);
  const auto* coef = static_cast<const TAcc*>(d.x_coef);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / ne, e = i - r * ne;
    const int x = int(e / C), c = int(e - int64_t(x) * C);
    const TIn* src = in + (d.first_row + r) * d.in_pitch + int64_t(d.x_start[x]) * C + c;
    const TAcc* w = coef + int64_t(x) * d.xt;
    TAcc acc = Init<TAcc>();
    for (int k = 0; k < d.xt; ++k) acc = Mac(acc, TAcc(src[int64_t(k) * C]), w[k]);
    mid[i] = Store<TAcc, TMid>(acc);
  }
}

template <typename TMid, typename TAcc, typename TOut>
__global__ void VertKernel(const ResizeSampleDesc* __restrict__ descs) {
  const ResizeSampleDesc& d = descs[blockIdx.y];
  const int64_t ne = int64_t(d.out_w) * d.channels, total = ne * d.out_h;
  const auto* mid = static_cast<const TMid*>(d.mid);
  auto* out = static_cast<TOut*>(d.out);
  const auto* coef = static_cast<const TAcc*>(d.y_coef);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t y = i / ne, e = i - y * ne;
    const TMid* src = mid + int64_t(d.y_start[y]) * ne + e;
    const TAcc* w = coef + y * d.yt;
    TAcc acc = Init<TAcc>();
    for (int k = 0; k < d.yt; ++k) acc = Mac(acc, TAcc(src[int64_t(k) * ne]), w[k]);
    out[i] = Store<TAcc, TOut>(acc);
  }
}

template <typename TIn, typename TAcc, typename TMid, typename TOut>
void Run(const ResizeSampleDesc* descs, int n, int64_t max_mid, int64_t max_out, cudaStream_t s) {
  HorzKernel<TIn, TAcc, TMid><<<BatchGrid(max_mid, n, kBlock), kBlock, 0, s>>>(descs);
  VertKernel<TMid, TAcc, TOut><<<BatchGrid(max_out, n, kBlock), kBlock, 0, s>>>(descs);
}

}  // namespace

void LaunchResize(const ResizeSampleDesc* descs, int n, int64_t max_mid, int64_t max_out, DType in_type,
                  DType out_type, void* stream) {
  if (n <= 0 || max_out <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const bool in_u8 = in_type == DType::kUInt8, out_u8 = out_type == DType::kUInt8;
  if ((!in_u8 && in_type != DType::kFloat32) || (!out_u8 && out_type != DType::kFloat32))
    throw Error("resize (gpu): supports uint8 and float32 input and output, got " + std::string(ToString(in_type)) +
                " -> " + std::string(ToString(out_type)));
  if (in_u8 && out_u8) Run<uint8_t, int32_t, uint8_t, uint8_t>(descs, n, max_mid, max_out, s);
  else if (in_u8) Run<uint8_t, float, float, float>(descs, n, max_mid, max_out, s);
  else if (out_u8) Run<float, float, float, uint8_t>(descs, n, max_mid, max_out, s);
  else Run<float, float, float, float>(descs, n, max_mid, max_out, s);
  CheckLaunch("resize");
}

}  // namespace sluice::kernels::cuda
