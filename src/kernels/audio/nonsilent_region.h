// Leading and trailing silence detection in one signal (DALI's fn.nonsilent_region).
//
// The short-term power is the moving mean of the squared signal over `window` samples,
//   p[i] = (x[i]^2 + ... + x[i + window - 1]^2) / window,   i in [0, n - window]
// (window = min(window_length, n)), kept as a running sum that is recomputed from scratch every
// reset_interval windows (-1: never; 0: at every window). Sample i is silent when
// 10 * log10(p[i] / reference) < cutoff_db, i.e. p[i] < reference * 10^(cutoff_db / 10), with the
// given reference power or, with reference_max, the largest p. The region runs from the first
// window that is not silent to the end of the last one: begin = first such i, length = last - first
// + window. Every window silent: {0, 0}. An all-zero signal with reference_max has reference 0 and
// no silent window: {0, n} (as DALI). An empty signal: {0, 0}.
// Arithmetic (DALI's, except 32/64-bit integers): 8/16-bit integers sum their squares exactly in
// int64 (no reset needed); float32 and float64 in float32 with the resets; 32/64-bit integers in
// double with the resets (DALI: float32, never reset). p[i] is the sum times float(1 / window).
// Thread-safety: reentrant, no allocation; `scratch` holds n floats (the p values).
#pragma once
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels {

struct NonsilentRegionArgs {
  float cutoff_db = -60.0f;
  bool reference_max = true;
  float reference_power = 0.0f;  // > 0 when !reference_max
  int64_t window_length = 2048;  // >= 1
  int64_t reset_interval = 8192;
};

struct NonsilentRegion {
  int64_t begin = 0;
  int64_t length = 0;
};

// The moving mean square above: out[i] for i in [0, n - window], window in [1, n].
void MovingMeanSquare(const void* in, DType type, int64_t n, int64_t window, int64_t reset_interval, float* out);

NonsilentRegion FindNonsilentRegion(const void* signal, DType type, int64_t n, const NonsilentRegionArgs& args,
                                    float* scratch);

}  // namespace sluice::kernels
