// Batched transpose (see transpose_cuda.h).
#include "kernels/tensor/transpose_cuda.h"

#include "kernels/cuda_common.cuh"

namespace sluice::kernels::cuda {
namespace {

constexpr int kBlock = 256;

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
