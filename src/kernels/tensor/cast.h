// Element type conversion between any two DTypes (DALI `cast`):
//   - integer targets saturate; from floating point they round to nearest, ties away from zero
//     (DALI's CPU cast: 0.5 -> 1, -2.5 -> -3); NaN -> 0;
//   - bool targets are (v != 0); bool sources are 0/1;
//   - float16 goes through float (round to nearest even).
// Thread-safety: reentrant, no allocation. in holds n elements of in_type, out n of out_type;
// in and out may be the same buffer only when the two types have the same size.
#pragma once
#include <cstddef>
#include <type_traits>

#include "kernels/tensor/saturate_cast.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

void Cast(const void* in, DType in_type, void* out, DType out_type, size_t n);

// One value, the same rules (for operators that convert scalars, e.g. fill values, and for kernels'
// scalar tails). float16 goes through float; the rest is SaturateArithmetic, shared with the GPU.
template <typename To, typename From>
inline To ConvertSaturate(From v) {
  if constexpr (std::is_same_v<From, float16>) return ConvertSaturate<To>(static_cast<float>(v));
  else if constexpr (std::is_same_v<To, float16>) return float16(SaturateArithmetic<float>(v));
  else return SaturateArithmetic<To>(v);
}

// DALI's `cast` of one value: as ConvertSaturate, but ties away from zero (Cast's rule, and the GPU
// cast's, grid/host_device.h's CastSat).
template <typename To, typename From>
inline To CastValue(From v) {
  if constexpr (std::is_same_v<From, float16>) return CastValue<To>(static_cast<float>(v));
  else if constexpr (std::is_same_v<To, float16>) return float16(SaturateArithmetic<float>(v));
  else return SaturateArithmetic<To, From, Rounding::kTiesAway>(v);
}

}  // namespace sluice::kernels
