// Internal: the Highway (SIMD, dynamic dispatch) inner loop of kernels/audio/resample.h.
#pragma once
#include <cstdint>

namespace sluice::kernels::resample_detail {

// sum over k < n of x[k] * w[k]: float products and sums, accumulated in vector lanes (four
// vectors at a time), then the lanes summed; the order depends on the CPU's vector width.
float Dot(const float* x, const float* w, int64_t n);

}  // namespace sluice::kernels::resample_detail
