// What every .cu file of the kernel families shares: float16 storage on the device, the CPU's
// conversion rules on the device (kernels/tensor/saturate_cast.h, dtype.cc's float16), and the
// batched-launch helpers. Device code only (included by .cu files).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include <sluice/dtype.h>
#include <sluice/error.h>

#include "kernels/tensor/saturate_cast.h"

namespace sluice::kernels::cuda {

// float16 storage on the device (bits of IEEE binary16), like sluice::float16.
struct Half {
  uint16_t bits;
};

__device__ __forceinline__ Half FloatToHalf(float f) {
  if (f != f) {  // NaN: the CPU conversion keeps the sign and sets the quiet bit
    const uint32_t x = __float_as_uint(f);
    return Half{static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7e00u)};
  }
  return Half{__half_as_ushort(__float2half_rn(f))};
}
__device__ __forceinline__ float HalfToFloat(Half h) { return __half2float(__ushort_as_half(h.bits)); }

// kernels::ConvertSaturate, on the device: Half widened to float / narrowed from float around the
// host's own rules (kernels/tensor/saturate_cast.h).
template <typename To, typename From>
__device__ __forceinline__ To ConvertSat(From from) {
  if constexpr (std::is_same_v<From, Half>) return ConvertSat<To>(HalfToFloat(from));
  else if constexpr (std::is_same_v<To, Half>) return FloatToHalf(SaturateArithmetic<float>(from));
  else return SaturateArithmetic<To>(from);
}

// DALI's `cast` on the device: as ConvertSat, ties away from zero (kernels::CastValue's rule).
template <typename To, typename From>
__device__ __forceinline__ To CastSat(From from) {
  if constexpr (std::is_same_v<From, Half>) return CastSat<To>(HalfToFloat(from));
  else if constexpr (std::is_same_v<To, Half>) return FloatToHalf(SaturateArithmetic<float>(from));
  else return SaturateArithmetic<To, From, Rounding::kTiesAway>(from);
}

// Calls fn with a value of the device type of a DType (float16 -> Half, bool stored as one byte);
// `what` names the caller in the error for an unknown type.
template <typename Fn>
void VisitDeviceType(DType t, const char* what, Fn&& fn) {
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
    case DType::kUInt32: return fn(uint32_t{});
    case DType::kUInt64: return fn(uint64_t{});
  }
  throw Error(std::string(what) + ": unknown type");
}

// Grid for a batched launch: blockIdx.y is the sample, blockIdx.x strides over its elements.
inline dim3 BatchGrid(int64_t max_elements, int num_samples, int block) {
  int64_t bx = (max_elements + block - 1) / block;
  if (bx < 1) bx = 1;
  if (bx > 4096) bx = 4096;  // grid-stride loops cover the rest
  return dim3(static_cast<unsigned>(bx), static_cast<unsigned>(num_samples), 1);
}

inline void CheckLaunch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw Error(std::string(what) + ": kernel launch failed: " + cudaGetErrorString(e));
}

}  // namespace sluice::kernels::cuda
