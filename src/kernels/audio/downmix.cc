#include "kernels/audio/downmix.h"

#include <cstring>
#include <string>

#include <sluice/error.h>

#include "kernels/audio/normalized_convert.h"

namespace sluice::kernels {

void DownmixToMono(const float* in, int64_t frames, int channels, float* out) {
  if (frames <= 0) return;
  if (channels == 1) {
    if (in != out) std::memmove(out, in, static_cast<size_t>(frames) * sizeof(float));
    return;
  }
  const float weight = 1.0f / static_cast<float>(channels);
  for (int64_t t = 0; t < frames; ++t) {
    const float* frame = in + t * channels;
    float sum = 0.0f;
    for (int c = 0; c < channels; ++c) sum += frame[c] * weight;
    out[t] = sum;  // frame t was read: out[t] is at or below its first sample
  }
}

void StoreNormalized(const float* in, int64_t n, DType type, void* out) {
  switch (type) {
    case DType::kFloat32:
      if (in != out) std::memmove(out, in, static_cast<size_t>(n) * sizeof(float));
      return;
    case DType::kInt16:
      for (int64_t i = 0; i < n; ++i) static_cast<int16_t*>(out)[i] = ConvertNormalized<int16_t>(in[i]);
      return;
    case DType::kInt32:
      for (int64_t i = 0; i < n; ++i) static_cast<int32_t*>(out)[i] = ConvertNormalized<int32_t>(in[i]);
      return;
    default:
      throw Error("audio samples are stored as int16, int32 or float32, not " + std::string(ToString(type)));
  }
}

}  // namespace sluice::kernels
