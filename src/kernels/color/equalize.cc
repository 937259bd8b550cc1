#include "kernels/color/equalize.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/tensor/byte_table.h"

namespace sluice::kernels {
namespace {

// OpenCV's equalizeHist table from a histogram of `count` values: a float scale, the product
// rounded to nearest (cvRound) and saturated.
void LutFromHistogram(const int64_t hist[256], int64_t count, uint8_t lut[256]) {
  int i = 0;
  while (i < 256 && hist[i] == 0) ++i;
  if (i == 256 || hist[i] == count) {  // empty or a single value: the identity
    for (int v = 0; v < 256; ++v) lut[v] = static_cast<uint8_t>(v);
    return;
  }
  const float scale = 255.0f / static_cast<float>(count - hist[i]);
  for (int v = 0; v <= i; ++v) lut[v] = 0;
  int64_t sum = 0;
  for (int v = i + 1; v < 256; ++v) {
    sum += hist[v];
    const float x = std::nearbyint(static_cast<float>(sum) * scale);
    lut[v] = static_cast<uint8_t>(x < 0 ? 0 : x > 255 ? 255 : x);
  }
}

// The histograms of C interleaved channels in one pass. Two sets of counters alternate by pixel,
// so that runs of equal values (flat image regions) do not make each increment wait for the last.
template <int C>
void Histograms(const uint8_t* in, int64_t pixels, int64_t (*hist)[256]) {
  std::vector<uint32_t> counts(size_t(2) * C * 256, 0);
  uint32_t* h0 = counts.data();
  uint32_t* h1 = h0 + C * 256;
  int64_t p = 0;
  for (; p + 2 <= pixels; p += 2, in += 2 * C)
    for (int c = 0; c < C; ++c) {
      ++h0[c * 256 + in[c]];
      ++h1[c * 256 + in[C + c]];
    }
  for (; p < pixels; ++p, in += C)
    for (int c = 0; c < C; ++c) ++h0[c * 256 + in[c]];
  for (int c = 0; c < C; ++c)
    for (int v = 0; v < 256; ++v) hist[c][v] = int64_t{h0[c * 256 + v]} + h1[c * 256 + v];
}

template <int C>
void EqualizeFixed(const uint8_t* in, uint8_t* out, int64_t pixels) {
  int64_t hist[C][256];
  Histograms<C>(in, pixels, hist);
  uint8_t lut[C][256];
  for (int c = 0; c < C; ++c) LutFromHistogram(hist[c], pixels, lut[c]);
  MapBytesInterleaved(in, &lut[0][0], C, out, static_cast<size_t>(pixels * C));
}

}  // namespace

void EqualizeLut(const uint8_t* in, int64_t count, int64_t stride, uint8_t lut[256]) {
  int64_t hist[256] = {};
  for (int64_t k = 0; k < count; ++k) ++hist[in[k * stride]];
  LutFromHistogram(hist, count, lut);
}

void Equalize(const uint8_t* in, uint8_t* out, int64_t pixels, int channels) {
  // The one-pass histograms count in 32 bits.
  if (pixels < (int64_t{1} << 31)) {
    switch (channels) {
      case 1: EqualizeFixed<1>(in, out, pixels); return;
      case 3: EqualizeFixed<3>(in, out, pixels); return;
      case 4: EqualizeFixed<4>(in, out, pixels); return;
      default: break;
    }
  }
  std::vector<uint8_t> luts(static_cast<size_t>(channels) * 256);
  for (int c = 0; c < channels; ++c) EqualizeLut(in + c, pixels, channels, &luts[static_cast<size_t>(c) * 256]);
  MapBytesInterleaved(in, luts.data(), channels, out, static_cast<size_t>(pixels * channels));
}

}  // namespace sluice::kernels
