// What a GPU kernel body shares between nvcc and the host compiler (style.md habit 11): the
// SLUICE_HD qualifier, the grid coordinates a body reads instead of CUDA's built-ins, float16
// storage, the CPU's conversion rules, correctly rounded arithmetic that neither compiler may
// contract, the type dispatch and the batched grid. Compiles with g++ alone (no CUDA header
// outside __CUDACC__), so that the host grid runner (host_grid.h) runs every kernel body in the
// CPU-only trees; device_grid.cuh launches the same bodies on the GPU.
//
// A body is a struct with a static SLUICE_HD `Run(const GridPos&, Args...)`: one thread's work,
// grid-stride loops included. It must not touch shared memory or warp primitives directly (a
// kernel that needs them keeps them in a thin wrapper with a host equivalent).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include <sluice/dtype.h>
#include <sluice/error.h>

#include "kernels/tensor/saturate_cast.h"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#define SLUICE_HD __host__ __device__
#else
#define SLUICE_HD
#endif

namespace sluice::kernels::grid {

// dim3 without CUDA: the grid and block sizes a launcher computes for either runner.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// One thread's coordinates: what a body reads in place of gridDim / blockDim / blockIdx / threadIdx.
struct GridPos {
  Dim3 grid, block, block_idx, thread_idx;
  // The first index and the stride of a grid-stride loop along x.
  SLUICE_HD int64_t GlobalX() const { return int64_t(block_idx.x) * block.x + thread_idx.x; }
  SLUICE_HD int64_t StrideX() const { return int64_t(grid.x) * block.x; }
};

// float16 storage (bits of IEEE binary16), the same on both sides; conversions round to nearest
// even and keep a NaN's sign with the quiet bit set (sluice::float16's rules).
struct Half {
  uint16_t bits;
};

SLUICE_HD inline Half FloatToHalf(float f) {
#if defined(__CUDA_ARCH__)
  if (f != f) {
    const uint32_t x = __float_as_uint(f);
    return Half{static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7e00u)};
  }
  return Half{__half_as_ushort(__float2half_rn(f))};
#else
  return Half{float16(f).bits};
#endif
}
SLUICE_HD inline float HalfToFloat(Half h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h.bits));
#else
  float16 v;
  v.bits = h.bits;
  return static_cast<float>(v);
#endif
}

// Correctly rounded single operations: nvcc contracts a*b+c into an FMA unless told not to, the
// host compiler does not contract without an FMA target; these pin the CPU kernel's order.
SLUICE_HD inline float MulRn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SLUICE_HD inline float AddRn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
SLUICE_HD inline float SubRn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
SLUICE_HD inline float FmaRn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
SLUICE_HD inline double MulRn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SLUICE_HD inline double SubRn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

// kernels::ConvertSaturate on either side: Half widened to float / narrowed from float around
// saturate_cast.h's rules.
template <typename To, typename From>
SLUICE_HD inline To ConvertSat(From from) {
  if constexpr (std::is_same_v<From, Half>) {
    if constexpr (std::is_same_v<To, Half>) return from;
    else return ConvertSat<To>(HalfToFloat(from));
  } else if constexpr (std::is_same_v<To, Half>) {
    return FloatToHalf(SaturateArithmetic<float>(from));
  } else {
    return SaturateArithmetic<To>(from);
  }
}

// DALI's `cast`: as ConvertSat, ties away from zero (kernels::CastValue's rule).
template <typename To, typename From>
SLUICE_HD inline To CastSat(From from) {
  if constexpr (std::is_same_v<From, Half>) {
    if constexpr (std::is_same_v<To, Half>) return from;
    else return CastSat<To>(HalfToFloat(from));
  } else if constexpr (std::is_same_v<To, Half>) {
    return FloatToHalf(SaturateArithmetic<float>(from));
  } else {
    return SaturateArithmetic<To, From, Rounding::kTiesAway>(from);
  }
}

// One element of a tensor of type `t` read as float, and a float written to one with DALI's CPU
// ConvertSat (CastSat: integers rounded ties away from zero and saturated, NaN -> 0; float16
// rounded to nearest even). For bodies that take any of several types with one instantiation:
// the switch is uniform over a launch (one type per batch), so a warp never diverges on it.
SLUICE_HD inline float LoadAsFloat(const void* p, int64_t i, DType t) {
  switch (t) {
    case DType::kUInt8: return static_cast<const uint8_t*>(p)[i];
    case DType::kInt8: return static_cast<const int8_t*>(p)[i];
    case DType::kUInt16: return static_cast<const uint16_t*>(p)[i];
    case DType::kInt16: return static_cast<const int16_t*>(p)[i];
    case DType::kInt32: return static_cast<float>(static_cast<const int32_t*>(p)[i]);
    case DType::kFloat16: return HalfToFloat(static_cast<const Half*>(p)[i]);
    case DType::kFloat32: return static_cast<const float*>(p)[i];
    default: return 0.f;  // launchers accept only the types above
  }
}
SLUICE_HD inline void StoreCastFromFloat(void* p, int64_t i, DType t, float v) {
  switch (t) {
    case DType::kUInt8: static_cast<uint8_t*>(p)[i] = CastSat<uint8_t>(v); break;
    case DType::kInt8: static_cast<int8_t*>(p)[i] = CastSat<int8_t>(v); break;
    case DType::kUInt16: static_cast<uint16_t*>(p)[i] = CastSat<uint16_t>(v); break;
    case DType::kInt16: static_cast<int16_t*>(p)[i] = CastSat<int16_t>(v); break;
    case DType::kInt32: static_cast<int32_t*>(p)[i] = CastSat<int32_t>(v); break;
    case DType::kFloat16: static_cast<Half*>(p)[i] = FloatToHalf(v); break;
    case DType::kFloat32: static_cast<float*>(p)[i] = v; break;
    default: break;
  }
}
// True for the types LoadAsFloat and StoreCastFromFloat take.
inline bool FloatIoSupports(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kUInt16 || t == DType::kInt16 ||
         t == DType::kInt32 || t == DType::kFloat16 || t == DType::kFloat32;
}

// Calls fn with a value of the kernel-side type of a DType (float16 -> Half, bool as one byte);
// `what` names the caller in the error for an unknown type. Host code (launchers).
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

// Grid for a batched launch: blockIdx.y is the sample, blockIdx.x strides over its elements
// (at most 4096 blocks: the bodies' grid-stride loops cover the rest).
inline Dim3 BatchGrid(int64_t max_elements, int num_samples, int block) {
  int64_t bx = (max_elements + block - 1) / block;
  if (bx < 1) bx = 1;
  if (bx > 4096) bx = 4096;
  return Dim3{static_cast<unsigned>(bx), static_cast<unsigned>(num_samples), 1};
}

inline constexpr int kDefaultBlock = 256;

}  // namespace sluice::kernels::grid
