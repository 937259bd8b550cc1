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
// Arithmetic: 8/16-bit integers sum their squares exactly in int64 (no reset needed); everything
// else in double, recomputed from scratch every reset_interval windows. A float32 running sum would
// drift: after a loud stretch its residue exceeds the threshold of the quiet samples that follow,
// and a 0.45 s tone burst's region ran to the end of the signal (DALI 2.4 finds the burst; checked
// against it, python/tests/test_dali_goldens_audio.py). p[i] is the sum times float(1 / window).
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
