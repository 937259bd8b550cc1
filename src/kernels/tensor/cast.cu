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
    out[i] = ConvertSat<To>(in[i]);
}

// The device type for a DType (float16 -> Half, bool stored as one byte).
template <typename Fn>
void VisitDeviceType(DType t, Fn&& fn) {
  switch (t) {
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kInt8: return fn(int8_t{});
    case DType::kUInt16: return fn(uint16_t{});
    case DType::kInt16: return fn(int16_t{});
    case DType::kInt32: return fn(int32_t{});
    case DType::kInt64: return fn(int64_t{});
    case DType::kFloat16: return fn(Half{});
    case DType::kFloat32: return fn(float{});
    case DType::kFloat64: return fn(double{});
    case DType::kBool: return fn(bool{});
  }
  throw Error("cast (gpu): unknown type");
}

}  // namespace

void LaunchCast(const CastDesc* descs, int n, int64_t max_el, DType in_type, DType out_type, void* stream) {
  if (n <= 0 || max_el <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid = BatchGrid(max_el, n, kBlock);
  VisitDeviceType(in_type, [&](auto in_tag) {
    VisitDeviceType(out_type, [&](auto out_tag) {
      using From = decltype(in_tag);
      using To = decltype(out_tag);
      CastKernel<To, From><<<grid, kBlock, 0, s>>>(descs);
    });
  });
  CheckLaunch("cast");
}

}  // namespace sluice::kernels::cuda
