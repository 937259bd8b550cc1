#include "kernels/warp/affine_transform_3d.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

namespace sluice::kernels {

Affine3D Affine3D::FromRowMajor(const float* v) {
  Affine3D a;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) a.m[r][c] = v[r * 4 + c];
  return a;
}

void Affine3D::ToRowMajor(float* v) const {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) v[r * 4 + c] = static_cast<float>(m[r][c]);
}

Affine3D Embed(const Affine2D& a) {
  Affine3D o;
  for (int r = 0; r < 2; ++r) {
    o.m[r][0] = a.m[r][0];
    o.m[r][1] = a.m[r][1];
    o.m[r][3] = a.m[r][2];
  }
  return o;
}

Affine2D Project(const Affine3D& a) {
  Affine2D o;
  for (int r = 0; r < 2; ++r) {
    o.m[r][0] = a.m[r][0];
    o.m[r][1] = a.m[r][1];
    o.m[r][2] = a.m[r][3];
  }
  return o;
}

Affine3D Compose(const Affine3D& a, const Affine3D& b) {
  Affine3D o;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) o.m[r][c] = a.m[r][0] * b.m[0][c] + a.m[r][1] * b.m[1][c] + a.m[r][2] * b.m[2][c];
    o.m[r][3] += a.m[r][3];
  }
  return o;
}

bool Invert(const Affine3D& a, Affine3D* out) {
  const auto& m = a.m;
  // The adjugate of the linear part over its determinant.
  double inv[3][3];
  inv[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
  inv[0][1] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
  inv[0][2] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
  inv[1][0] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
  inv[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
  inv[1][2] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
  inv[2][0] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
  inv[2][1] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
  inv[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  const double det = m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
  if (det == 0 || !std::isfinite(det)) return false;
  Affine3D o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = inv[r][c] / det;
  for (int r = 0; r < 3; ++r) o.m[r][3] = -(o.m[r][0] * m[0][3] + o.m[r][1] * m[1][3] + o.m[r][2] * m[2][3]);
  *out = o;
  return true;
}

Affine3D Translation3D(const Vec3& t) {
  Affine3D a;
  for (int r = 0; r < 3; ++r) a.m[r][3] = t[size_t(r)];
  return a;
}

Affine3D Scaling3D(const Vec3& s) {
  Affine3D a;
  for (int r = 0; r < 3; ++r) a.m[r][r] = s[size_t(r)];
  return a;
}

bool Rotation3D(const Vec3& axis, double degrees, Affine3D* out) {
  const double len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  if (!(len > 0) || !std::isfinite(len)) return false;
  const double u[3] = {axis[0] / len, axis[1] / len, axis[2] / len};
  const double r = degrees * std::numbers::pi / 180.0, c = std::cos(r), s = std::sin(r), t = 1 - c;
  Affine3D a;
  // R = c I + s [u]x + (1 - c) u u^T
  a.m[0][0] = c + t * u[0] * u[0];
  a.m[0][1] = t * u[0] * u[1] - s * u[2];
  a.m[0][2] = t * u[0] * u[2] + s * u[1];
  a.m[1][0] = t * u[1] * u[0] + s * u[2];
  a.m[1][1] = c + t * u[1] * u[1];
  a.m[1][2] = t * u[1] * u[2] - s * u[0];
  a.m[2][0] = t * u[2] * u[0] - s * u[1];
  a.m[2][1] = t * u[2] * u[1] + s * u[0];
  a.m[2][2] = c + t * u[2] * u[2];
  *out = a;
  return true;
}

Affine3D Shear3D(const std::array<double, 6>& s) {
  Affine3D a;
  a.m[0][1] = s[0];
  a.m[0][2] = s[1];
  a.m[1][0] = s[2];
  a.m[1][2] = s[3];
  a.m[2][0] = s[4];
  a.m[2][1] = s[5];
  return a;
}

Affine3D AboutCenter3D(const Affine3D& a, const Vec3& c) {
  Affine3D o = a;
  for (int r = 0; r < 3; ++r) o.m[r][3] = c[size_t(r)] - (a.m[r][0] * c[0] + a.m[r][1] * c[1] + a.m[r][2] * c[2]);
  return o;
}

Affine3D CropTransform3D(Vec3 fs, Vec3 fe, Vec3 ts, Vec3 te, bool absolute) {
  Affine3D a;
  for (size_t d = 0; d < 3; ++d) {
    if (absolute) {
      if (fs[d] > fe[d]) std::swap(fs[d], fe[d]);
      if (ts[d] > te[d]) std::swap(ts[d], te[d]);
    }
    const double scale = (te[d] - ts[d]) / (fe[d] - fs[d]);
    a.m[d][d] = scale;
    a.m[d][3] = ts[d] - scale * fs[d];
  }
  return a;
}

std::array<int64_t, 3> RotatedCanvasSize3D(int64_t in_d, int64_t in_h, int64_t in_w, const Affine3D& rotation) {
  const double in[3] = {double(in_w), double(in_h), double(in_d)};  // (x, y, z)
  const int64_t in_i[3] = {in_w, in_h, in_d};
  int64_t out[3];
  for (int r = 0; r < 3; ++r) {
    double extent = 0;
    int dominant = r;  // the input axis contributing most to this output axis; the diagonal on ties
    for (int c = 0; c < 3; ++c) {
      const double a = std::abs(rotation.m[r][c]);
      extent += a * in[c];
      if (a > std::abs(rotation.m[r][dominant])) dominant = c;
    }
    out[r] = static_cast<int64_t>(std::ceil(extent - 1e-2));
    out[r] += (out[r] % 2) ^ (in_i[dominant] % 2);
    out[r] = std::max<int64_t>(out[r], 0);
  }
  return {out[2], out[1], out[0]};
}

bool RotateInverseMap3D(const std::array<int64_t, 3>& in_dhw, const std::array<int64_t, 3>& out_dhw, const Vec3& axis,
                        double degrees, Affine3D* out) {
  Affine3D r;
  if (!Rotation3D(axis, -degrees, &r)) return false;
  const Affine3D to_center = Translation3D({-0.5 * double(out_dhw[2]), -0.5 * double(out_dhw[1]), -0.5 * double(out_dhw[0])});
  const Affine3D from_center = Translation3D({0.5 * double(in_dhw[2]), 0.5 * double(in_dhw[1]), 0.5 * double(in_dhw[0])});
  *out = Compose(from_center, Compose(r, to_center));
  return true;
}

}  // namespace sluice::kernels
