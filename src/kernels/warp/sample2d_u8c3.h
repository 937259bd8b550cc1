// Internal: the fast path of sample2d.h for uint8 RGB (HWC, 3 interleaved channels), nearest and
// linear, any border mode: warp_perspective.cc and remap.cc give each output row's input points as
// int32 (warp_rows_hwy.h: PerspectivePointsRow, MapPointsRow), and each row is split into the groups
// of pixels whose taps all lie inside the image (Highway: gathers, fixed-point blend or copy) and
// the rest, sampled here one pixel at a time:
//   - a tap inside: the same fixed-point arithmetic in scalar code;
//   - with a constant border, a point whose taps all lie outside: the fill;
//   - otherwise (a border tap, or no int32 point): sample2d.h's PointSampler at the double point.
// Linear: coordinates rounded to 2^-11 pixel and an exact integer blend (warp_rows_hwy.h's
// WarpRowFixedU8C3), within 1 of sample2d.h's float32 result (the coordinates move by at most
// 2^-12 pixel, the interpolant by at most 255 * 2 * 2^-12 = 0.125). Nearest: the same pixel as
// sample2d.h (floor(s + 0.5) from the same double or float point).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/warp/sample2d.h"
#include "kernels/warp/warp_rows_hwy.h"

namespace sluice::kernels::warp_detail {

// Whether SampleU8C3 applies: uint8 RGB with packed pixels, nearest or linear, 32-bit byte offsets.
inline bool SampleU8C3Applies(DType type, const ImageGeom& ig, const ImageGeom& og, PerspectiveInterp interp) {
  if (type != DType::kUInt8 || interp == PerspectiveInterp::kCubic) return false;
  if (ig.channels != 3 || og.channels != 3 || ig.stride_c != 1 || ig.stride_x != 3 || og.stride_c != 1 ||
      og.stride_x != 3)
    return false;
  if (ig.height <= 0 || ig.width <= 0 || ig.stride_y < 3 * ig.width) return false;
  return ig.width < (int64_t{1} << 19) && ig.height < (int64_t{1} << 19) &&
         (ig.height - 1) * ig.stride_y + 3 * ig.width < (int64_t{1} << 31) - 64;
}

// row_points(y, x_begin, n, px, py) writes the points of output pixels x_begin .. x_begin + n - 1 of
// row y (warp_rows_hwy.h's int32 points for kInterp); coord(x, y, &sx, &sy) gives one pixel's
// double point, as for SampleImage.
template <PerspectiveInterp kInterp, typename RowPointsFn, typename CoordFn>
void SampleU8C3(const uint8_t* in, const ImageGeom& ig, uint8_t* out, const ImageGeom& og, BorderMode border,
                const std::vector<float>& fill_in, const RowPointsFn& row_points, const CoordFn& coord) {
  static_assert(kInterp != PerspectiveInterp::kCubic);
  constexpr bool kLinear = kInterp == PerspectiveInterp::kLinear;
  constexpr int kF = kWarpFracBits;
  constexpr int32_t kOne = 1 << kF;
  const PointSampler<uint8_t, kInterp, 3> slow(in, ig, og, border, fill_in);
  const uint8_t fill[3] = {slow.Fill(0), slow.Fill(1), slow.Fill(2)};
  const bool constant = border == BorderMode::kConstant;
  const int64_t H = ig.height, W = ig.width, isy = ig.stride_y;
  const auto group = static_cast<int64_t>(PointGroupSize());
  constexpr int64_t kChunk = 512;  // output pixels per call: the points stay in L1
  alignas(64) int32_t px[kChunk], py[kChunk];
  int64_t fallback[kChunk + 1];
  // One pixel outside the vector groups.
  auto pixel = [&](int64_t x, int64_t y, int32_t fx, int32_t fy, uint8_t* o) {
    if (fx != kNoPoint) {
      if constexpr (kLinear) {
        const int64_t x0 = fx >> kF, y0 = fy >> kF;
        if (x0 >= 0 && y0 >= 0 && x0 + 1 < W && y0 + 1 < H) {
          const int32_t qx = fx & (kOne - 1), qy = fy & (kOne - 1), wx = kOne - qx;
          const uint8_t* a = in + y0 * isy + x0 * 3;
          const uint8_t* b = a + isy;
          for (int c = 0; c < 3; ++c) {
            const int32_t h0 = a[c] * wx + a[c + 3] * qx, h1 = b[c] * wx + b[c + 3] * qx;
            o[c] = static_cast<uint8_t>(((h0 << kF) + (h1 - h0) * qy + (1 << (2 * kF - 1))) >> (2 * kF));
          }
          return;
        }
        if (constant && (x0 < -1 || y0 < -1 || x0 >= W || y0 >= H)) {
          std::memcpy(o, fill, 3);
          return;
        }
      } else {
        if (fx >= 0 && fy >= 0 && fx < W && fy < H) {
          std::memcpy(o, in + fy * isy + fx * 3, 3);
          return;
        }
        if (constant) {
          std::memcpy(o, fill, 3);
          return;
        }
      }
    }
    double sx, sy;
    coord(x, y, &sx, &sy);
    slow.Pixel(sx, sy, o);
  };
  // Row by row (tiles of 256 or 512 columns by 8 or 32 rows, as OpenCV's remap, measured 15-30%
  // slower here on a rotation and a swirl at 1920x1080).
  for (int64_t y = 0; y < og.height; ++y) {
    uint8_t* row = out + y * og.stride_y;
    for (int64_t xs = 0; xs < og.width; xs += kChunk) {
      const int64_t n = std::min(kChunk, og.width - xs);
      row_points(y, xs, n, px, py);
      const PointRowU8C3 args{in, H, W, isy, row + 3 * xs, n, px, py, fallback};
      const size_t pending = kLinear ? SampleLinearPointsU8C3(args) : SampleNearestPointsU8C3(args);
      for (size_t k = 0; k < pending; ++k)
        for (int64_t x = fallback[k], e = std::min(x + group, n); x < e; ++x)
          pixel(xs + x, y, px[x], py[x], row + 3 * (xs + x));
    }
  }
}

}  // namespace sluice::kernels::warp_detail
