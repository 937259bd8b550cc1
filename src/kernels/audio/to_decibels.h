// Conversion to decibels (DALI's fn.to_decibels):
//   out[i] = multiplier * log10(max(min_ratio, in[i] / reference))
// where min_ratio = 10^(cutoff_db / multiplier) (the smallest positive float where that is 0,
// as DALI), and reference is the given one or, with reference_max, the largest element of the
// signal or 0, whichever is larger (DALI's per-sample maximum). A reference of 0 (an all-zero or
// all-negative signal with reference_max) gives cutoff_db everywhere (DALI: x * (1/0) is NaN or
// infinite, and the max with min_ratio keeps min_ratio -- for x > 0 there is no such signal).
// Float32 arithmetic: the ratio is in[i] * (1 / reference), then log10 (Highway's, within 2 ulp;
// NaN input gives cutoff_db).
// Thread-safety: reentrant, no allocation; in and out hold n floats and may be the same buffer.
#pragma once
#include <cstdint>

namespace sluice::kernels {

struct ToDecibelsArgs {
  float multiplier = 10.0f;
  float reference = 1.0f;  // used when !reference_max; nonzero
  bool reference_max = true;
  float cutoff_db = -200.0f;
};

float DecibelMinRatio(float multiplier, float cutoff_db);

void ToDecibels(const float* in, float* out, int64_t n, const ToDecibelsArgs& args);

}  // namespace sluice::kernels
