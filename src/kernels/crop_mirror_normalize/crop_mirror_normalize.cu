// Batched crop_mirror_normalize (see crop_mirror_normalize_cuda.h).
#include "kernels/crop_mirror_normalize/crop_mirror_normalize_cuda.h"

#include "kernels/cuda_common.cuh"

namespace sluice::kernels::cuda {
namespace {

constexpr int kBlock = 256;

// ---- crop_mirror_normalize: one thread per output pixel, all channels ----
template <typename TIn, typename TOut, bool kChw>
__global__ void CmnKernel(const CmnSampleDesc* __restrict__ descs) {
  const CmnSampleDesc& d = descs[blockIdx.y];
  const int64_t npix = int64_t(d.out_w) * d.out_h;
  const auto* in = static_cast<const TIn*>(d.in);
  auto* out = static_cast<TOut*>(d.out);
  const int C = d.channels, Co = d.out_channels;
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < npix; p += int64_t(gridDim.x) * blockDim.x) {
    const int y = int(p / d.out_w), x = int(p - int64_t(y) * d.out_w);
    const int sy = d.crop_y + y;
    const int sx = d.mirror ? d.crop_x + d.out_w - 1 - x : d.crop_x + x;
    const bool inside = sy >= 0 && sy < d.in_h && sx >= 0 && sx < d.in_w;
    TOut v[5];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (c < C) {
        if (inside) {
          const float s = float(in[(int64_t(sy) * d.in_w + sx) * C + c]);
          const float f = d.fma ? __fmaf_rn(s, d.a[c], d.b[c]) : __fadd_rn(__fmul_rn(s, d.a[c]), d.b[c]);
          v[c] = ConvertSat<TOut>(f);
        } else {
          v[c] = ConvertSat<TOut>(d.fill[c]);
        }
      }
    }
    if (Co > C) v[C] = ConvertSat<TOut>(0.f);
    if constexpr (kChw) {
      for (int c = 0; c < Co; ++c) out[int64_t(c) * npix + p] = v[c];
    } else {
      for (int c = 0; c < Co; ++c) out[p * Co + c] = v[c];
    }
  }
}

template <typename TIn, typename TOut>
void LaunchCmnT(const CmnSampleDesc* descs, int n, int64_t max_px, bool chw, cudaStream_t s) {
  const dim3 grid = BatchGrid(max_px, n, kBlock);
  if (chw) CmnKernel<TIn, TOut, true><<<grid, kBlock, 0, s>>>(descs);
  else CmnKernel<TIn, TOut, false><<<grid, kBlock, 0, s>>>(descs);
}

template <typename TIn>
void LaunchCmnIn(const CmnSampleDesc* descs, int n, int64_t max_px, DType out_type, bool chw, cudaStream_t s) {
  switch (out_type) {
    case DType::kFloat32: return LaunchCmnT<TIn, float>(descs, n, max_px, chw, s);
    case DType::kFloat16: return LaunchCmnT<TIn, Half>(descs, n, max_px, chw, s);
    case DType::kUInt8: return LaunchCmnT<TIn, uint8_t>(descs, n, max_px, chw, s);
    case DType::kInt8: return LaunchCmnT<TIn, int8_t>(descs, n, max_px, chw, s);
    default: throw Error("crop_mirror_normalize (gpu): unsupported output type " + std::string(ToString(out_type)));
  }
}

}  // namespace

void LaunchCropMirrorNormalize(const CmnSampleDesc* descs, int n, int64_t max_px, DType in_type, DType out_type,
                               bool chw, void* stream) {
  if (n <= 0 || max_px <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  if (in_type == DType::kUInt8) LaunchCmnIn<uint8_t>(descs, n, max_px, out_type, chw, s);
  else if (in_type == DType::kFloat32) LaunchCmnIn<float>(descs, n, max_px, out_type, chw, s);
  else throw Error("crop_mirror_normalize (gpu): unsupported input type " + std::string(ToString(in_type)));
  CheckLaunch("crop_mirror_normalize");
}

}  // namespace sluice::kernels::cuda
