// The spectrogram of one signal (DALI's fn.spectrogram): the magnitude or power of the short-time
// Fourier transform.
//
// Window w (w in [0, num_windows)) starts at sample s = w * window_step - c, where c =
// window_length / 2 when the windows are centered (padding kZero or kReflect) and 0 otherwise
// (kNone: DALI's center_windows=False). Its frame is
//   f[t] = window[t] * x[s + t],   t in [0, window_length)
// where a sample outside the signal is x's mirror image without repeating the edge (kReflect:
// x[-1] = x[1], x[n] = x[n-2], repeated for short signals; a one-sample signal mirrors onto
// itself) or 0 (kZero, and kNone for a last window that overruns a short signal, as DALI). The
// frame is placed in the middle of nfft samples (offset (nfft - window_length) / 2, zeros around:
// DALI's and librosa's placement), and bin k of window w is |FFT(frame)[k]|^power, k in
// [0, nfft / 2], power 1 or 2. Products and the transform are float32 (real_fft.h).
//
// The number of windows is DALI's: length / window_step + 1 when centered, else
// (length - window_length) / window_step + 1 (C++ division, truncating toward zero; a result
// <= 0 means the signal is too short). Layout of `out`: frequency-major (nfft/2+1 rows of
// num_windows, DALI's "ft") or time-major (num_windows rows of nfft/2+1, "tf").
// Thread-safety: reentrant given a RealFft per thread (it holds the frames); allocates only
// PocketFFT's scratch of one transform per lane_count() windows (real_fft.h).
#pragma once
#include <cstdint>

#include "kernels/audio/real_fft.h"

namespace sluice::kernels {

enum class StftPadding { kNone, kZero, kReflect };

struct StftArgs {
  int64_t nfft = 0;  // >= window_length
  int64_t window_length = 0;
  int64_t window_step = 0;
  StftPadding padding = StftPadding::kReflect;
  int power = 2;  // 1: magnitude, 2: power
  bool time_major = false;
};

int64_t StftNumWindows(int64_t length, const StftArgs& args);

// The index in [0, n) that i reads under reflection without repeating the edge (n >= 1).
inline int64_t ReflectIndex101(int64_t i, int64_t n) {
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - i;
}

// signal: `length` floats; window: args.window_length floats; fft: of size args.nfft; out:
// (nfft/2+1) * StftNumWindows(length, args) floats, which must be > 0. signal and out do not overlap.
void Spectrogram(const float* signal, int64_t length, const float* window, const StftArgs& args, RealFft& fft,
                 float* out);

}  // namespace sluice::kernels
