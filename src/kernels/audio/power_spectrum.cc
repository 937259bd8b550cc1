#include "kernels/audio/power_spectrum.h"

#include <algorithm>

namespace sluice::kernels {

void PowerSpectrum(const float* in, int64_t outer, int64_t n, int64_t inner, int power, RealFft& fft, float* out) {
  const int64_t nfft = fft.size();
  const int64_t bins = fft.num_bins();
  const int64_t offset = (nfft - n) / 2;
  float* frame = fft.frame();
  std::fill(frame, frame + offset, 0.0f);
  std::fill(frame + offset + n, frame + nfft, 0.0f);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      const float* x = in + o * n * inner + j;
      for (int64_t t = 0; t < n; ++t) frame[offset + t] = x[t * inner];
      fft.Spectrum(frame, power, out + o * bins * inner + j, inner);
    }
  }
}

}  // namespace sluice::kernels
