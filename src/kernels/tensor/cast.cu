// Batched cast between any two DTypes (see cast_cuda.h): 10 x 10 instantiations of one small
// grid-stride kernel, selected by a constexpr dispatch over the type list.
#include "kernels/cuda_common.cuh"
#include "kernels/tensor/cast_cuda.h"

namespace sluice::kernels::cuda {
namespace {

constexpr int kBlock = 256;

template <typename To, typename From>
__global__ void CastKernel(const CastDesc* __restrict__ descs) {
  const CastDesc& d = descs[blockIdx.y];
  const auto* in = static_cast<const From*>(d.in);
  auto* out = static_cast<To*>(d.out);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = CastSat<To>(in[i]);
}

}  // namespace

void LaunchCast(const CastDesc* descs, int n, int64_t max_el, DType in_type, DType out_type, void* stream) {
  if (n <= 0 || max_el <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid = BatchGrid(max_el, n, kBlock);
  VisitDeviceType(in_type, "cast (gpu)", [&](auto in_tag) {
    VisitDeviceType(out_type, "cast (gpu)", [&](auto out_tag) {
      using From = decltype(in_tag);
      using To = decltype(out_tag);
      CastKernel<To, From><<<grid, kBlock, 0, s>>>(descs);
    });
  });
  CheckLaunch("cast");
}

}  // namespace sluice::kernels::cuda
