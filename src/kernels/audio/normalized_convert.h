// DALI's ConvertSatNorm from float samples in [-1, 1] to the output type: float as is, integers
// value * max(T) (32767, 2147483647), rounded to nearest even and saturated. Used wherever audio is
// computed in float and stored as integers (downmix, resampling), as DALI does.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/tensor/saturate_cast.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

template <typename Out>
inline Out ConvertNormalized(float v) {
  if constexpr (std::is_same_v<Out, float>) {
    return v;
  } else {
    return SaturateArithmetic<Out>(static_cast<double>(v) * static_cast<double>(std::numeric_limits<Out>::max()));
  }
}

// out[i] = ConvertNormalized<type>(in[i]), type kInt16, kInt32 or kFloat32; out may be in only for
// float32. Throws sluice::Error for other types.
void StoreNormalized(const float* in, int64_t n, DType type, void* out);

}  // namespace sluice::kernels
