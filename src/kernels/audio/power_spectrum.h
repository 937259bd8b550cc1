// The power (or magnitude) spectrum along one axis of a tensor (DALI's fn.power_spectrum).
//
// The tensor is viewed as (outer, n, inner), the transformed axis in the middle. Each of its
// outer * inner signals x (n samples, `inner` apart) is placed in the middle of nfft samples
// (offset (nfft - n) / 2, zeros around, as DALI) and
//   out[o, k, j] = |FFT(x)[k]|^power,   k in [0, nfft / 2]
// in float32 (real_fft.h); power is 1 (magnitude) or 2 (power). Requires 1 <= n <= nfft.
// Thread-safety: reentrant given a RealFft per thread; no allocation. in and out do not overlap.
#pragma once
#include <cstdint>

#include "kernels/audio/real_fft.h"

namespace sluice::kernels {

// in: outer * n * inner floats; fft: of size nfft; out: outer * (nfft/2+1) * inner floats.
void PowerSpectrum(const float* in, int64_t outer, int64_t n, int64_t inner, int power, RealFft& fft, float* out);

}  // namespace sluice::kernels
