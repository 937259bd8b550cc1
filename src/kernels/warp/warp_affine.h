// Affine warp of an HWC image (any number of channels, rows packed) by an output -> input map,
// with DALI's conventions (dali/kernels/imgproc/warp/map_coords.h and sampler.h):
//   - output pixel (x, y) samples the input at (sx, sy) = M * (x + 0.5, y + 0.5): pixel centres are
//     at half-integer coordinates, the image spans [0, width] x [0, height];
//   - kNearest takes input pixel (floor(sx), floor(sy));
//   - kLinear blends the 2x2 pixels around (sx - 0.5, sy - 0.5) in float32 (horizontal first);
//     uint8 -> uint8 in fixed point instead (coordinates with 11 fractional bits, int16 weights,
//     as OpenCV does), within 1 of the float result and identical on every SIMD target;
//   - border: with `clamp` the coordinates of taps outside the image are clamped to the edge (DALI
//     without fill_value); otherwise such taps read `fill` (converted to the input type with
//     saturation), so linear sampling blends image and fill near the edge, as OpenCV's
//     BORDER_CONSTANT does;
//   - uint8 outputs are rounded half away from zero and saturated (DALI's ConvertSat); float
//     outputs are stored as computed.
// OpenCV equivalence: cv2.warpAffine(src, A', (w, h), flags=interp | WARP_INVERSE_MAP) with
// A' = [A | A (0.5, 0.5) + t - (0.5, 0.5)] for M = [A | t] (up to OpenCV's fixed-point coordinates).
//
// Thread-safety: reentrant, allocates nothing. `in` and `out` must not overlap; both have the same
// number of channels.
#pragma once
#include <cstdint>

#include "kernels/warp/affine_transform.h"

namespace sluice::kernels {

// A packed HWC image: element (y, x, c) is data[(y * width + x) * channels + c].
template <typename T>
struct HwcView {
  T* data = nullptr;
  int64_t height = 0, width = 0, channels = 0;
};

enum class WarpInterp : uint8_t { kNearest, kLinear };

struct WarpOptions {
  WarpInterp interp = WarpInterp::kLinear;
  bool clamp = false;  // true: replicate the edge pixels; false: `fill` outside the image
  float fill = 0;
};

// out(x, y) = in sampled at inverse_map * (x + 0.5, y + 0.5). Throws sluice::Error when the
// channel counts differ or a view is negative-sized.
void WarpAffine(HwcView<const uint8_t> in, HwcView<uint8_t> out, const Affine2D& inverse_map, const WarpOptions& opt);
void WarpAffine(HwcView<const uint8_t> in, HwcView<float> out, const Affine2D& inverse_map, const WarpOptions& opt);
void WarpAffine(HwcView<const float> in, HwcView<float> out, const Affine2D& inverse_map, const WarpOptions& opt);
void WarpAffine(HwcView<const float> in, HwcView<uint8_t> out, const Affine2D& inverse_map, const WarpOptions& opt);

}  // namespace sluice::kernels
