// Batched crop and flip (see crop_flip_cuda.h).
#include "kernels/crop/crop_flip_cuda.h"

#include "kernels/cuda_common.cuh"

namespace sluice::kernels::cuda {
namespace {

constexpr int kBlock = 256;

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

}  // namespace

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

}  // namespace sluice::kernels::cuda
