#include "kernels/audio/spectrogram.h"

#include <algorithm>
#include <cstring>

namespace sluice::kernels {

int64_t StftNumWindows(int64_t length, const StftArgs& args) {
  if (args.padding == StftPadding::kNone) length -= args.window_length;
  return length / args.window_step + 1;
}

namespace {

// frame[t] = window[t] * x[start + t] for t in [0, window_length), with DALI's rule for samples
// outside the signal.
void ExtractFrame(const float* x, int64_t length, const float* window, int64_t window_length, int64_t start,
                  StftPadding padding, float* frame) {
  if (start >= 0 && start + window_length <= length) {
    for (int64_t t = 0; t < window_length; ++t) frame[t] = window[t] * x[start + t];
    return;
  }
  for (int64_t t = 0; t < window_length; ++t) {
    int64_t i = start + t;
    if (padding == StftPadding::kReflect && length > 0) i = ReflectIndex101(i, length);
    frame[t] = i >= 0 && i < length ? window[t] * x[i] : 0.0f;
  }
}

}  // namespace

void Spectrogram(const float* signal, int64_t length, const float* window, const StftArgs& args, RealFft& fft,
                 float* out) {
  const int64_t windows = StftNumWindows(length, args);
  const int64_t bins = args.nfft / 2 + 1;
  const int64_t offset = (args.nfft - args.window_length) / 2;
  const int64_t center = args.padding == StftPadding::kNone ? 0 : args.window_length / 2;
  float* frame = fft.frame();
  // The zeros around the window (frame() may hold another user's samples there).
  std::fill(frame, frame + offset, 0.0f);
  std::fill(frame + offset + args.window_length, frame + args.nfft, 0.0f);
  for (int64_t w = 0; w < windows; ++w) {
    ExtractFrame(signal, length, window, args.window_length, w * args.window_step - center, args.padding,
                 frame + offset);
    if (args.time_major)
      fft.Spectrum(frame, args.power, out + w * bins, 1);
    else
      fft.Spectrum(frame, args.power, out + w, windows);
  }
}

}  // namespace sluice::kernels
