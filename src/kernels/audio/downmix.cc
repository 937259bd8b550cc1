#include "kernels/audio/downmix.h"

#include <cstring>

#include <sluice/error.h>

#include "kernels/tensor/saturate_cast.h"

namespace sluice::kernels {
namespace {

template <typename T>
void DownmixTyped(const T* in, int64_t frames, int channels, T* out) {
  for (int64_t t = 0; t < frames; ++t) {
    const T* frame = in + t * channels;
    double sum = 0;
    for (int c = 0; c < channels; ++c) sum += static_cast<double>(frame[c]);
    // Reads of frame t are done before out[t] (at or below frame t's first sample) is written.
    out[t] = SaturateArithmetic<T>(sum / channels);
  }
}

}  // namespace

void DownmixToMono(const void* in, DType type, int64_t frames, int channels, void* out) {
  if (frames <= 0) return;
  if (channels == 1) {
    if (in != out) std::memmove(out, in, static_cast<size_t>(frames) * SizeOf(type));
    return;
  }
  switch (type) {
    case DType::kInt16: return DownmixTyped(static_cast<const int16_t*>(in), frames, channels, static_cast<int16_t*>(out));
    case DType::kInt32: return DownmixTyped(static_cast<const int32_t*>(in), frames, channels, static_cast<int32_t*>(out));
    case DType::kFloat32: return DownmixTyped(static_cast<const float*>(in), frames, channels, static_cast<float*>(out));
    default: throw Error("downmixing takes int16, int32 or float32 samples, not " + std::string(ToString(type)));
  }
}

}  // namespace sluice::kernels
