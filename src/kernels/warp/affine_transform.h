// 2-D affine transforms as DALI writes them: a 2x3 row-major matrix M acting on column vectors
// (x, y, 1), x along the width and y along the height:
//   x' = m[0][0] * x + m[0][1] * y + m[0][2],   y' = m[1][0] * x + m[1][1] * y + m[1][2].
// The builders follow DALI's transforms.* operators (dali/core/geom/transform.h and
// dali/operators/geometry/affine_transforms): rotation by `degrees` is [[c, -s], [s, c]], shear is
// [[1, sx], [sy, 1]], a centre c makes M's translation column c - A c. Pure functions, no allocation.
#pragma once
#include <array>
#include <cstdint>

namespace sluice::kernels {

struct Affine2D {
  double m[2][3] = {{1, 0, 0}, {0, 1, 0}};

  static Affine2D FromRowMajor(const float* v6);  // (m00, m01, m02, m10, m11, m12)
  void ToRowMajor(float* v6) const;
  // The point M * (x, y).
  double X(double x, double y) const { return m[0][0] * x + m[0][1] * y + m[0][2]; }
  double Y(double x, double y) const { return m[1][0] * x + m[1][1] * y + m[1][2]; }
};

// a * b: the transform that applies b first, then a.
Affine2D Compose(const Affine2D& a, const Affine2D& b);
// The inverse; false (and `out` untouched) when the linear part is singular or not finite.
bool Invert(const Affine2D& a, Affine2D* out);

Affine2D Translation(double dx, double dy);
Affine2D Scaling(double sx, double sy);
// DALI's rotation2D(deg2rad(degrees)): [[cos, -sin, 0], [sin, cos, 0]].
Affine2D Rotation(double degrees);
// [[1, shear_x, 0], [shear_y, 1, 0]] (shear_x: x offset per unit of y).
Affine2D Shear(double shear_x, double shear_y);
// Makes `a` act about `center`: the same linear part, translation center - A * center
// (DALI's `center` argument of transforms.rotation/shear; scale's centre is the same formula).
Affine2D AboutCenter(const Affine2D& a, double cx, double cy);
// DALI's transforms.crop for one axis pair: maps from_start -> to_start and from_end -> to_end
// per axis (scale = to_extent / from_extent); `absolute` first orders each start/end pair.
Affine2D CropTransform(std::array<double, 2> from_start, std::array<double, 2> from_end,
                       std::array<double, 2> to_start, std::array<double, 2> to_end, bool absolute);

// DALI's rotate output size (rotate_params.h, RotatedCanvasSize): the bounding box of an in_h x in_w
// image rotated by `degrees`, ceil(|cos| w + |sin| h - 0.01) x ceil(|cos| h + |sin| w - 0.01), each
// extent then made to have the parity of the input extent it mostly comes from (+1 if needed), to
// reduce blur. Returns {height, width}.
std::array<int64_t, 2> RotatedCanvasSize(int64_t in_h, int64_t in_w, double degrees);

// DALI's rotate mapping (output -> input coordinates) for an image rotated counter-clockwise by
// `degrees` (top-left origin, y down) about its centre onto an out_h x out_w canvas, the centres
// aligned: M = T(in_size / 2) * Rotation(degrees) * T(-out_size / 2).
Affine2D RotateInverseMap(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, double degrees);

}  // namespace sluice::kernels
