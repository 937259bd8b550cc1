// Internal: the Highway loops of to_decibels.cc (dynamic dispatch to the best SIMD target).
#pragma once
#include <cstdint>

namespace sluice::kernels::decibel_detail {

// out[i] = scale * log10(ratio), ratio = in[i] * inv_reference where that is > min_ratio, else
// min_ratio (so NaN gives min_ratio, as std::max(min_ratio, NaN)). Highway's Log10 (within 2 ulp
// of log10 in float32); every element goes through the same vector code, the tail included. in and
// out hold n floats and may be the same buffer.
void DecibelRow(const float* in, float* out, int64_t n, float scale, float inv_reference, float min_ratio);

// The largest of 0 and in[0..n) (NaN elements are skipped).
float MaxOrZero(const float* in, int64_t n);

}  // namespace sluice::kernels::decibel_detail
