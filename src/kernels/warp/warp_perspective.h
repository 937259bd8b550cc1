// Perspective warp of 2-D images by an output -> input homography, as DALI 2.4's CPU
// experimental.warp_perspective computes it (checked against it on a photograph):
//   - `map` (3x3, row-major) takes output pixel (x, y) to the input point (X / W, Y / W) with
//     (X, Y, W) = map * (x, y, 1), in OpenCV's convention (pixel centres at integer coordinates;
//     the operator folds DALI's pixel_origin="corner" into the matrix); W == 0 maps to (0, 0) as in
//     OpenCV; coordinates in double;
//   - nearest: the input pixel at floor(sx + 0.5), floor(sy + 0.5);
//   - linear: the 2x2 pixels from floor(s), weights the fractions; cubic: the 4x4 pixels from
//     floor(s) - 1 with Keys' weights, a = -0.75 (OpenCV's INTER_CUBIC); float32 sums; uint8 RGB
//     (HWC, packed pixels) linear in fixed point instead, within 1 of the float32 result (SIMD,
//     kernels/warp/sample2d_u8c3.h), and nearest by the same path with the same pixels;
//   - taps outside the image follow the border mode (kConstant: fill[c], one per channel);
//   - integer outputs round to nearest even and saturate.
// DALI's and OpenCV's results differ from these by at most a few levels at a few pixels (their
// fixed-point coordinates and weights), see the tests.
// Types (input = output): uint8, int16, uint16, float32. Images are views (ImageGeom): HWC, CHW, HW.
// Thread-safety: reentrant, allocates only the fill per channel. `in` and `out` must not overlap.
#pragma once
#include <vector>

#include "kernels/filter/convolution.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

enum class PerspectiveInterp { kNearest, kLinear, kCubic };

struct PerspectiveParams {
  double map[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // output pixel -> input point
  PerspectiveInterp interp = PerspectiveInterp::kLinear;
  BorderMode border = BorderMode::kConstant;
  std::vector<float> fill;  // per channel (kConstant); empty: 0
};

bool WarpPerspectiveSupports(DType t);

void WarpPerspective(const void* in, const ImageGeom& in_geom, void* out, const ImageGeom& out_geom, DType type,
                     const PerspectiveParams& p);

// Inverts a 3x3 matrix (row-major); false if it is singular.
bool Invert3x3(const double* m, double* inv);

}  // namespace sluice::kernels
