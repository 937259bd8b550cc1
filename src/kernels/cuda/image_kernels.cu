// Batched CUDA kernels: crop_mirror_normalize, crop/flip, transpose (see image_kernels.h).
#include "kernels/cuda/device_convert.cuh"
#include "kernels/cuda/image_kernels.h"

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
          v[c] = ConvertOutF<TOut>(f);
        } else {
          v[c] = ConvertOutF<TOut>(d.fill[c]);
        }
      }
    }
    if (Co > C) v[C] = ConvertOutF<TOut>(0.f);
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

// ---- crop / flip: one thread per output element ----
template <typename T>
__global__ void CropFlipKernel(const CropFlipDesc* __restrict__ descs) {
  const CropFlipDesc& d = descs[blockIdx.y];
  const int64_t inner = d.inner;
  const int64_t row = d.out_w * inner, plane = d.out_h * row, total = d.outer * plane;
  const auto* in = static_cast<const T*>(d.in);
  auto* out = static_cast<T*>(d.out);
  const T* fill = reinterpret_cast<const T*>(d.fill);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = i / plane;
    int64_t r = i - o * plane;
    const int64_t y = r / row;
    r -= y * row;
    const int64_t x = r / inner, c = r - x * inner;
    const int64_t sy = d.y0 + (d.vflip ? d.out_h - 1 - y : y);
    const int64_t sx = d.x0 + (d.hflip ? d.out_w - 1 - x : x);
    T v;
    if (sy >= 0 && sy < d.in_h && sx >= 0 && sx < d.in_w) {
      v = in[((o * d.in_h + sy) * d.in_w + sx) * inner + c];
    } else if (d.has_fill) {
      v = fill[c];
    } else {
      v = T(0);
    }
    out[i] = v;
  }
}

// ---- transpose: one thread per output element ----
template <typename T>
__global__ void TransposeKernel(const TransposeDesc* __restrict__ descs) {
  const TransposeDesc& d = descs[blockIdx.y];
  int64_t total = 1;
  for (int k = 0; k < d.ndim; ++k) total *= d.out_shape[k];
  const auto* in = static_cast<const T*>(d.in);
  auto* out = static_cast<T*>(d.out);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, src = 0;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int64_t e = d.out_shape[k];
      const int64_t q = rem / e;
      src += (rem - q * e) * d.in_stride[k];
      rem = q;
    }
    out[i] = in[src];
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

void LaunchCropFlip(const CropFlipDesc* descs, int n, int64_t max_el, size_t elem_size, void* stream) {
  if (n <= 0 || max_el <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid = BatchGrid(max_el, n, kBlock);
  switch (elem_size) {
    case 1: CropFlipKernel<uint8_t><<<grid, kBlock, 0, s>>>(descs); break;
    case 2: CropFlipKernel<uint16_t><<<grid, kBlock, 0, s>>>(descs); break;
    case 4: CropFlipKernel<uint32_t><<<grid, kBlock, 0, s>>>(descs); break;
    case 8: CropFlipKernel<uint64_t><<<grid, kBlock, 0, s>>>(descs); break;
    default: throw Error("crop/flip (gpu): unsupported element size " + std::to_string(elem_size));
  }
  CheckLaunch("crop/flip");
}

void LaunchTranspose(const TransposeDesc* descs, int n, int64_t max_el, size_t elem_size, void* stream) {
  if (n <= 0 || max_el <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid = BatchGrid(max_el, n, kBlock);
  switch (elem_size) {
    case 1: TransposeKernel<uint8_t><<<grid, kBlock, 0, s>>>(descs); break;
    case 2: TransposeKernel<uint16_t><<<grid, kBlock, 0, s>>>(descs); break;
    case 4: TransposeKernel<uint32_t><<<grid, kBlock, 0, s>>>(descs); break;
    case 8: TransposeKernel<uint64_t><<<grid, kBlock, 0, s>>>(descs); break;
    default: throw Error("transpose (gpu): unsupported element size " + std::to_string(elem_size));
  }
  CheckLaunch("transpose");
}

}  // namespace sluice::kernels::cuda
