#include "kernels/warp/affine_transform.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

namespace sluice::kernels {

Affine2D Affine2D::FromRowMajor(const float* v) {
  Affine2D a;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) a.m[r][c] = v[r * 3 + c];
  return a;
}

void Affine2D::ToRowMajor(float* v) const {
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) v[r * 3 + c] = static_cast<float>(m[r][c]);
}

Affine2D Compose(const Affine2D& a, const Affine2D& b) {
  Affine2D o;
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) o.m[r][c] = a.m[r][0] * b.m[0][c] + a.m[r][1] * b.m[1][c];
    o.m[r][2] += a.m[r][2];
  }
  return o;
}

bool Invert(const Affine2D& a, Affine2D* out) {
  const double det = a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0];
  if (det == 0 || !std::isfinite(det)) return false;
  Affine2D o;
  o.m[0][0] = a.m[1][1] / det;
  o.m[0][1] = -a.m[0][1] / det;
  o.m[1][0] = -a.m[1][0] / det;
  o.m[1][1] = a.m[0][0] / det;
  o.m[0][2] = -(o.m[0][0] * a.m[0][2] + o.m[0][1] * a.m[1][2]);
  o.m[1][2] = -(o.m[1][0] * a.m[0][2] + o.m[1][1] * a.m[1][2]);
  *out = o;
  return true;
}

Affine2D Translation(double dx, double dy) {
  Affine2D a;
  a.m[0][2] = dx;
  a.m[1][2] = dy;
  return a;
}

Affine2D Scaling(double sx, double sy) {
  Affine2D a;
  a.m[0][0] = sx;
  a.m[1][1] = sy;
  return a;
}

Affine2D Rotation(double degrees) {
  const double r = degrees * std::numbers::pi / 180.0;
  const double c = std::cos(r), s = std::sin(r);
  Affine2D a;
  a.m[0][0] = c;
  a.m[0][1] = -s;
  a.m[1][0] = s;
  a.m[1][1] = c;
  return a;
}

Affine2D Shear(double shear_x, double shear_y) {
  Affine2D a;
  a.m[0][1] = shear_x;
  a.m[1][0] = shear_y;
  return a;
}

Affine2D AboutCenter(const Affine2D& a, double cx, double cy) {
  Affine2D o = a;
  o.m[0][2] = cx - (a.m[0][0] * cx + a.m[0][1] * cy);
  o.m[1][2] = cy - (a.m[1][0] * cx + a.m[1][1] * cy);
  return o;
}

Affine2D CropTransform(std::array<double, 2> from_start, std::array<double, 2> from_end,
                       std::array<double, 2> to_start, std::array<double, 2> to_end, bool absolute) {
  Affine2D a;
  for (int d = 0; d < 2; ++d) {
    if (absolute) {
      if (from_start[d] > from_end[d]) std::swap(from_start[d], from_end[d]);
      if (to_start[d] > to_end[d]) std::swap(to_start[d], to_end[d]);
    }
    const double scale = (to_end[d] - to_start[d]) / (from_end[d] - from_start[d]);
    a.m[d][d] = scale;
    a.m[d][2] = to_start[d] - scale * from_start[d];
  }
  return a;
}

std::array<int64_t, 2> RotatedCanvasSize(int64_t in_h, int64_t in_w, double degrees) {
  const double r = degrees * std::numbers::pi / 180.0;
  const double eps = 1e-2;
  const double ac = std::abs(std::cos(r)), as = std::abs(std::sin(r));
  const auto w = static_cast<double>(in_w), h = static_cast<double>(in_h);
  auto out_w = static_cast<int64_t>(std::ceil(ac * w + as * h - eps));
  auto out_h = static_cast<int64_t>(std::ceil(ac * h + as * w - eps));
  // Within 45 degrees of upright the width comes mostly from the input width; beyond, from its height.
  const int64_t parity_w = (as <= ac ? in_w : in_h) % 2, parity_h = (as <= ac ? in_h : in_w) % 2;
  out_w += (out_w % 2) ^ parity_w;
  out_h += (out_h % 2) ^ parity_h;
  return {std::max<int64_t>(out_h, 0), std::max<int64_t>(out_w, 0)};
}

Affine2D RotateInverseMap(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, double degrees) {
  const Affine2D to_center = Translation(-0.5 * static_cast<double>(out_w), -0.5 * static_cast<double>(out_h));
  const Affine2D from_center = Translation(0.5 * static_cast<double>(in_w), 0.5 * static_cast<double>(in_h));
  return Compose(from_center, Compose(Rotation(degrees), to_center));
}

}  // namespace sluice::kernels
