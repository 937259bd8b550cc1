// 3-D affine transforms as DALI writes them: a 3x4 row-major matrix M acting on column vectors
// (x, y, z, 1), x along the width, y along the height, z along the depth. The builders follow
// DALI's transforms.* for three dimensions (dali/core/geom/transform.h): rotation about an axis by
// Rodrigues' formula (right-handed, the axis normalized), shear [[1, sxy, sxz], [syx, 1, syz],
// [szx, szy, 1]], a centre c making the translation c - A c. Pure functions, no allocation.
#pragma once
#include <array>

#include "kernels/warp/affine_transform.h"

namespace sluice::kernels {

struct Affine3D {
  double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};

  static Affine3D FromRowMajor(const float* v12);
  void ToRowMajor(float* v12) const;
  // Row r of M * (x, y, z, 1).
  double Apply(int r, double x, double y, double z) const { return m[r][0] * x + m[r][1] * y + m[r][2] * z + m[r][3]; }
};

using Vec3 = std::array<double, 3>;

// A 2-D transform as the 3-D one that leaves z alone, and back (the z row and column dropped).
// Composing and inverting commute with both.
Affine3D Embed(const Affine2D& a);
Affine2D Project(const Affine3D& a);

// a * b: the transform that applies b first, then a.
Affine3D Compose(const Affine3D& a, const Affine3D& b);
// The inverse; false (and `out` untouched) when the linear part is singular or not finite.
bool Invert(const Affine3D& a, Affine3D* out);

Affine3D Translation3D(const Vec3& offset);
Affine3D Scaling3D(const Vec3& scale);
// Rotation by `degrees` about `axis` (non-zero; need not be normalized). False for a zero axis.
bool Rotation3D(const Vec3& axis, double degrees, Affine3D* out);
// s = (sxy, sxz, syx, syz, szx, szy): x' = x + sxy y + sxz z, y' = syx x + y + syz z, ...
Affine3D Shear3D(const std::array<double, 6>& s);
// DALI's rotate output size for volumes (rotate_params.h, the 3-D RotatedCanvasSize): the bounding
// box of a (in_d, in_h, in_w) volume under the linear part R of `rotation`, out = ceil(|R| (w, h, d)
// - 0.01) per axis (x, y, z), each extent then made to have the parity of the input extent that
// contributes most to it (the largest |R| entry of its row; the diagonal on ties), +1 if needed.
// Returns {depth, height, width}.
std::array<int64_t, 3> RotatedCanvasSize3D(int64_t in_d, int64_t in_h, int64_t in_w, const Affine3D& rotation);
// DALI's rotate mapping for volumes (output -> input coordinates): the volume rotated by `degrees`
// about `axis` (x, y, z; right-handed, as Rotation3D) about its centre onto an (out_d, out_h, out_w)
// canvas, the centres aligned: M = T(in_size / 2) * Rotation3D(axis, -degrees) * T(-out_size / 2),
// sizes in (x, y, z) order. False for a zero axis.
bool RotateInverseMap3D(const std::array<int64_t, 3>& in_dhw, const std::array<int64_t, 3>& out_dhw, const Vec3& axis,
                        double degrees, Affine3D* out);
// The same linear part acting about `center`: translation center - A * center.
Affine3D AboutCenter3D(const Affine3D& a, const Vec3& center);
// transforms.crop in 3-D: maps from_start -> to_start and from_end -> to_end per axis;
// `absolute` first orders each start/end pair.
Affine3D CropTransform3D(Vec3 from_start, Vec3 from_end, Vec3 to_start, Vec3 to_end, bool absolute);

}  // namespace sluice::kernels
