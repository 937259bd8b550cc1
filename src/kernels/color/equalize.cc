#include "kernels/color/equalize.h"

#include <cmath>
#include <vector>

namespace sluice::kernels {

void EqualizeLut(const uint8_t* in, int64_t count, int64_t stride, uint8_t lut[256]) {
  int64_t hist[256] = {};
  for (int64_t k = 0; k < count; ++k) ++hist[in[k * stride]];
  int i = 0;
  while (i < 256 && hist[i] == 0) ++i;
  if (i == 256 || hist[i] == count) {  // empty or a single value: the identity
    for (int v = 0; v < 256; ++v) lut[v] = static_cast<uint8_t>(v);
    return;
  }
  // OpenCV's equalizeHist: a float scale, the product rounded to nearest (cvRound) and saturated.
  const float scale = 255.0f / static_cast<float>(count - hist[i]);
  for (int v = 0; v <= i; ++v) lut[v] = 0;
  int64_t sum = 0;
  for (int v = i + 1; v < 256; ++v) {
    sum += hist[v];
    const float x = std::nearbyint(static_cast<float>(sum) * scale);
    lut[v] = static_cast<uint8_t>(x < 0 ? 0 : x > 255 ? 255 : x);
  }
}

void Equalize(const uint8_t* in, uint8_t* out, int64_t pixels, int channels) {
  std::vector<uint8_t> luts(static_cast<size_t>(channels) * 256);
  for (int c = 0; c < channels; ++c) EqualizeLut(in + c, pixels, channels, &luts[static_cast<size_t>(c) * 256]);
  const int64_t n = pixels * channels;
  if (channels == 1) {
    const uint8_t* lut = luts.data();
    for (int64_t k = 0; k < n; ++k) out[k] = lut[in[k]];
    return;
  }
  for (int64_t p = 0, k = 0; p < pixels; ++p)
    for (int c = 0; c < channels; ++c, ++k) out[k] = luts[static_cast<size_t>(c) * 256 + in[k]];
}

}  // namespace sluice::kernels
