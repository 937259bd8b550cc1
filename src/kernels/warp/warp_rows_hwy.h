// Internal: Highway fast paths of WarpAffine for uint8 -> uint8 RGB (3 interleaved channels).
// - WarpLinearRowU8C3 / WarpNearestRowU8C3: bit-identical to warp_affine.cc's scalar
//   RowLinear/RowNearest: the same double-precision source coordinates (multiply, then add: never
//   fused), floor, float32 weights and blend in the same order, and the same rounding (half away
//   from zero) and saturation. Linear uses it only where the fixed-point path does not apply (a
//   non-finite or huge map).
// - WarpLinearFixedRowU8C3: the fixed-point linear path (below), equal to warp_affine.cc's scalar
//   fixed-point rows (RowFixedInside) byte for byte.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::warp_detail {

// One call: output pixels [x_begin, x_end) of one output row y, sampled at
// (m00 * (x + 0.5) + bx, m10 * (x + 0.5) + by), with bx = m01 * (y + 0.5) + m02 and
// by = m11 * (y + 0.5) + m12 as warp_affine.cc computes them.
struct WarpRowU8C3 {
  const uint8_t* in;        // the input image, in_h x in_w x 3
  int64_t in_h, in_w;
  uint8_t* row;             // the output row
  int64_t x_begin, x_end;
  double m00, m10, bx, by;
  int64_t* fallback;        // out: the first output x of each group that needs the scalar path
                            // (room for (x_end - x_begin) / WarpRowGroupSize() + 1 entries)
};

// Samples every group of WarpRowGroupSize() output pixels whose 2x2 taps all lie inside the
// image (and whose 4-byte tap loads stay within the image's bytes); returns the number of other
// groups, listed in `fallback` (each starts at that x and spans WarpRowGroupSize() pixels, or up to
// x_end).
size_t WarpLinearRowU8C3(const WarpRowU8C3& a);
// The same for nearest sampling: groups whose source pixels all lie inside the image.
size_t WarpNearestRowU8C3(const WarpRowU8C3& a);
// Output pixels per group (the double lanes of the chosen target).
size_t WarpRowGroupSize();

// Fixed-point linear warp of uint8 RGB (warp_affine.cc's uint8 -> uint8 linear path): source
// coordinates in units of 2^-kWarpFracBits pixel, fx = ax[x] + bx (int32), x0 = fx >> F,
// qx = fx & (2^F - 1), the same for y; per channel h_r = p_r0 * (2^F - qx) + p_r1 * qx for the two
// tap rows, v = (h_0 * 2^F + (h_1 - h_0) * qy + 2^(2F - 1)) >> 2F. Exact integer arithmetic (at most
// 255 * 2^(2F) + 2^(2F - 1) < 2^31), so every target and the scalar code give the same bytes.
inline constexpr int kWarpFracBits = 11;

struct WarpRowFixedU8C3 {
  const uint8_t* in;  // the input image, in_h x in_w x 3 (under 2 GiB)
  int64_t in_w;
  uint8_t* row;       // output pixel x is row + 3 x
  int64_t x_begin, x_end;
  const int32_t* ax;  // per output pixel x: the column parts of fx and fy
  const int32_t* ay;
  int32_t bx, by;     // the row parts
};

// Samples output pixels [x_begin, x_begin + returned count) of the row, every one of which must have
// all four taps inside the image (0 <= x0 <= in_w - 2, 0 <= y0 <= in_h - 2); the caller samples the
// rest (fewer than a vector, or all of them on targets without this path) with the same arithmetic.
size_t WarpLinearFixedRowU8C3(const WarpRowFixedU8C3& a);

// ---- Rows from per-pixel points (warp_perspective, remap: kernels/warp/sample2d_u8c3.h) ----
// A row's input points as int32: for linear sampling in units of 2^-kWarpFracBits pixel,
// p = round_half_even(s 2^F); for nearest the pixel, p = floor(s + 0.5); kNoPoint where s is not
// finite or beyond kPointLimit pixels (linear) / 2^30 (nearest): the caller samples those itself.
inline constexpr int32_t kNoPoint = INT32_MIN;
inline constexpr double kPointLimit = 1 << 19;

// Output pixels x_begin .. x_begin + n - 1 of row y: (X, Y, W) = ((m0 x + m1 y) + m2, ...), with
// 1 / W (0 where W == 0), s = X / W in double, multiply then add (never fused), as
// warp_perspective.cc's scalar coordinates.
void PerspectivePointsRow(const double* m, int64_t y, int64_t x_begin, int64_t n, bool nearest, int32_t* px,
                          int32_t* py);
// s = map - shift for float32 maps, shift 0 or 0.5 only (exact in the arithmetic used).
void MapPointsRow(const float* mapx, const float* mapy, int64_t n, float shift, bool nearest, int32_t* px,
                  int32_t* py);

struct PointRowU8C3 {
  const uint8_t* in;       // the input image: in_h rows of in_w RGB pixels, in_row_bytes apart
  int64_t in_h, in_w, in_row_bytes;  // the image's bytes under 2 GiB
  uint8_t* row;            // output pixel x is row + 3 x
  int64_t n;               // output pixels [0, n)
  const int32_t* px;       // the points (above), n each
  const int32_t* py;
  int64_t* fallback;       // out: the first x of each group left to the caller (room for
                           // n / PointGroupSize() + 1 entries)
};

// Samples every group of PointGroupSize() pixels whose taps all lie inside the image (linear: as
// WarpRowFixedU8C3's arithmetic, byte for byte; nearest: a copy of the pixel); returns the number of
// other groups, listed in `fallback` (each spans PointGroupSize() pixels, or up to n).
size_t SampleLinearPointsU8C3(const PointRowU8C3& a);
size_t SampleNearestPointsU8C3(const PointRowU8C3& a);
size_t PointGroupSize();

}  // namespace sluice::kernels::warp_detail
