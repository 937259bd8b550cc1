// Internal: Highway fast path of SeparableFilter2D for uint8 -> uint8 images whose channels are
// interleaved (HWC; C = 1 covers one plane of CHW). Same arithmetic, in the same order, as the
// generic path of convolution.cc, so the results are bit-identical: per element, the horizontal sum
// starts at 0 and adds wx[j] * in[x + j - rx] for j = 0..kx-1 (float32 multiply, then add; never
// fused), the vertical sum likewise over the rows of the horizontal result (rows outside the image
// in constant mode are skipped), then rounding to nearest even and saturation.
#pragma once
#include <cstdint>

namespace sluice::kernels::filter_detail {

// Elements (pixels x channels) per column tile; scratch sizes below are for one tile.
inline constexpr int64_t kTileElements = 1024;
// Pixels per column tile for `channels` interleaved channels (a multiple of 64).
inline int64_t SeparableTileWidth(int64_t channels) {
  const int64_t k = kTileElements / (64 * channels);
  return 64 * (k > 1 ? k : 1);
}

struct SeparableU8Args {
  const uint8_t* in;
  uint8_t* out;
  int64_t height, width, channels;
  int64_t in_row_stride, out_row_stride;  // elements between rows
  const float* wx;
  int64_t kx;
  const float* wy;
  int64_t ky;
  const int64_t* xs;     // width + kx - 1 source columns of the padded row (-1: zero)
  const int64_t* yrows;  // height + ky - 1 source rows (-1: skipped)
  // Scratch, with T = min(width, SeparableTileWidth(channels)):
  float* tmp;            // ky * T * channels (a ring of horizontally filtered tile rows)
  float* pad;            // (T + kx - 1) * channels (one padded tile row)
  float* part;           // T * channels (partial vertical sums, windows > 64)
};

void SeparableU8Interleaved(const SeparableU8Args& a);

}  // namespace sluice::kernels::filter_detail
