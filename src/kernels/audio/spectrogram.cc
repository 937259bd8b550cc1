#include "kernels/audio/spectrogram.h"

#include <algorithm>
#include <cstring>

namespace sluice::kernels {

int64_t StftNumWindows(int64_t length, const StftArgs& args) {
  if (args.padding == StftPadding::kNone) length -= args.window_length;
  return length / args.window_step + 1;
}

namespace {

// frame[t * stride] = window[t] * x[start + t] for t in [0, window_length), with DALI's rule for
// samples outside the signal.
void ExtractFrame(const float* x, int64_t length, const float* window, int64_t window_length, int64_t start,
                  StftPadding padding, float* frame, int64_t stride) {
  if (start >= 0 && start + window_length <= length) {
    for (int64_t t = 0; t < window_length; ++t) frame[t * stride] = window[t] * x[start + t];
    return;
  }
  for (int64_t t = 0; t < window_length; ++t) {
    int64_t i = start + t;
    if (padding == StftPadding::kReflect && length > 0) i = ReflectIndex101(i, length);
    frame[t * stride] = i >= 0 && i < length ? window[t] * x[i] : 0.0f;
  }
}

}  // namespace

void Spectrogram(const float* signal, int64_t length, const float* window, const StftArgs& args, RealFft& fft,
                 float* out) {
  const int64_t windows = StftNumWindows(length, args);
  const int64_t bins = args.nfft / 2 + 1;
  const int64_t offset = (args.nfft - args.window_length) / 2;
  const int64_t center = args.padding == StftPadding::kNone ? 0 : args.window_length / 2;
  // lane_count() windows per transform, interleaved in fft.lanes(). The transform runs in place,
  // so the zeros around the windows are written again for every group.
  const int lanes = RealFft::lane_count();
  float* buffer = fft.lanes();
  const int64_t bin_stride = args.time_major ? 1 : windows;
  const int64_t window_stride = args.time_major ? bins : 1;
  for (int64_t w0 = 0; w0 < windows; w0 += lanes) {
    const int frames = static_cast<int>(std::min<int64_t>(lanes, windows - w0));
    std::fill(buffer, buffer + offset * lanes, 0.0f);
    std::fill(buffer + (offset + args.window_length) * lanes, buffer + args.nfft * lanes, 0.0f);
    for (int j = 0; j < frames; ++j)
      ExtractFrame(signal, length, window, args.window_length, (w0 + j) * args.window_step - center, args.padding,
                   buffer + offset * lanes + j, lanes);
    for (int j = frames; j < lanes; ++j)  // unused lanes of the last group: zeros, not the last output
      for (int64_t t = 0; t < args.window_length; ++t) buffer[(offset + t) * lanes + j] = 0.0f;
    fft.SpectrumOfLanes(frames, args.power, out + w0 * window_stride, bin_stride, window_stride);
  }
}

}  // namespace sluice::kernels
