// Device-side conversions with the CPU kernels' exact rules (cast-inl.h, dtype.cc's float16,
// crop_mirror_normalize.cc's ConvertOut), and the launch helpers shared by the .cu files.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <sluice/error.h>

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

template <typename T> inline constexpr bool kIsFloatT = std::is_floating_point_v<T> || std::is_same_v<T, Half>;
template <typename T> using WidenedT = std::conditional_t<std::is_same_v<T, Half>, float, T>;

template <typename T>
__device__ __forceinline__ WidenedT<T> Widen(T v) {
  if constexpr (std::is_same_v<T, Half>) return HalfToFloat(v);
  else return v;
}

// kernels::ConvertSaturate, on the device.
template <typename To, typename From>
__device__ __forceinline__ To ConvertSat(From from) {
  using F = WidenedT<From>;
  const F v = Widen(from);
  if constexpr (std::is_same_v<To, bool>) {
    return v != F(0);
  } else if constexpr (kIsFloatT<To>) {
    if constexpr (std::is_same_v<To, Half>) return FloatToHalf(static_cast<float>(v));
    else return static_cast<To>(v);
  } else if constexpr (kIsFloatT<From>) {
    const double d = static_cast<double>(v);
    if (d != d) return To(0);
    const double r = rint(d);
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    if (r >= hi) return std::numeric_limits<To>::max();
    if (r <= lo) return std::numeric_limits<To>::min();
    return static_cast<To>(r);
  } else if constexpr (std::is_same_v<From, bool>) {
    return To(v ? 1 : 0);
  } else {
    if constexpr (std::is_signed_v<F> && !std::is_signed_v<To>) {
      if (v < 0) return To(0);
      if (static_cast<std::make_unsigned_t<F>>(v) > std::numeric_limits<To>::max()) return std::numeric_limits<To>::max();
      return To(v);
    } else if constexpr (!std::is_signed_v<F> && std::is_signed_v<To>) {
      if (v > static_cast<std::make_unsigned_t<To>>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
      return To(v);
    } else {
      if (v > std::numeric_limits<To>::max()) return std::numeric_limits<To>::max();
      if constexpr (std::is_signed_v<F>) {
        if (v < std::numeric_limits<To>::min()) return std::numeric_limits<To>::min();
      }
      return To(v);
    }
  }
}

// crop_mirror_normalize's ConvertOut: float -> output type, integers round half to even and
// saturate, NaN -> 0.
template <typename T>
__device__ __forceinline__ T ConvertOutF(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, Half>) {
    return FloatToHalf(v);
  } else {
    constexpr float lo = float(std::numeric_limits<T>::min()), hi = float(std::numeric_limits<T>::max());
    if (!(v == v)) return T(0);
    const float r = rintf(v);
    return T(r < lo ? lo : r > hi ? hi : r);
  }
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
