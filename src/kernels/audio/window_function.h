// Window functions for the short-time Fourier transform (spectrogram.h).
//
// HannWindow is DALI's (dali/kernels/signal/window/window_functions.h), which samples the Hann
// curve at the middle of each of the n sample intervals:
//   w[t] = 0.5 * (1 - cos(2 * pi * (t + 0.5) / n)),   t in [0, n)
// (librosa's and SciPy's periodic Hann, 0.5 * (1 - cos(2 * pi * t / n)), is the same curve shifted
// by half a sample). Computed in double, rounded once to float. n <= 0 writes nothing.
// Thread-safety: reentrant, no allocation; `out` holds n floats.
#pragma once
#include <cstdint>

namespace sluice::kernels {

void HannWindow(float* out, int64_t n);

}  // namespace sluice::kernels
