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

// Fixed point (uint16 lanes): weights W = round(w * 2^16) (each < 2^16, non-negative). The padded
// row holds p * 2^7; a horizontal term is MulHigh(p_a * 2^7 + p_b * 2^7, W) (a mirrored pair of taps
// of a symmetric window) or MulHigh(p * 2^7, W) (any other tap), i.e. floor(W * sum / 2^9): the
// filtered row H keeps 7 fractional bits and starts at bias_x (half the truncation of its terms).
// The vertical pass does the same on H (pairs H_a + H_b, rows outside the image in constant mode are
// zero rows) from bias_y + 64, and the output is min(acc >> 7, 255). All integer and exact: the same
// bytes on every SIMD target. convolution.cc checks that no uint16 sum can wrap and that the result
// stays within 1 of the float path (SeparableU8Interleaved) before choosing this one.
struct SeparableU8FixedArgs {
  const uint8_t* in;
  uint8_t* out;
  int64_t height, width, channels;
  int64_t in_row_stride, out_row_stride;  // elements between rows
  const uint16_t* wx;
  int64_t kx;
  bool sym_x;       // wx[j] == wx[kx - 1 - j]: taps j and kx - 1 - j (j < kx / 2) are paired
  uint16_t bias_x;  // initial value of each horizontal sum
  const uint16_t* wy;
  int64_t ky;       // at most kMaxFixedTaps
  bool sym_y;
  uint16_t bias_y;  // initial value of each vertical sum (before the + 64 of the final rounding)
  const int64_t* xs;     // width + kx - 1 source columns of the padded row (-1: zero)
  const int64_t* yrows;  // height + ky - 1 source rows (-1: zero row)
  int64_t tile_w;        // pixels per column tile
  // Scratch, with T = min(width, tile_w):
  uint16_t* ring;        // ky * T * channels
  uint16_t* pad;         // (T + kx - 1) * channels
  const uint16_t* zero;  // T * channels zeros
};
inline constexpr int64_t kMaxFixedTaps = 256;

void SeparableU8FixedInterleaved(const SeparableU8FixedArgs& a);

}  // namespace sluice::kernels::filter_detail
