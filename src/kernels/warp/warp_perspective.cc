#include "kernels/warp/warp_perspective.h"

#include <array>
#include <cmath>

#include "kernels/warp/sample2d.h"
#include "kernels/warp/sample2d_u8c3.h"
#include "sluice/error.h"

namespace sluice::kernels {

bool WarpPerspectiveSupports(DType t) {
  return t == DType::kUInt8 || t == DType::kInt16 || t == DType::kUInt16 || t == DType::kFloat32;
}

bool Invert3x3(const double* m, double* r) {
  const double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6];
  const double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
  if (det == 0 || !std::isfinite(det)) return false;
  const double k = 1.0 / det;
  r[0] = c0 * k;
  r[1] = (m[2] * m[7] - m[1] * m[8]) * k;
  r[2] = (m[1] * m[5] - m[2] * m[4]) * k;
  r[3] = c1 * k;
  r[4] = (m[0] * m[8] - m[2] * m[6]) * k;
  r[5] = (m[2] * m[3] - m[0] * m[5]) * k;
  r[6] = c2 * k;
  r[7] = (m[1] * m[6] - m[0] * m[7]) * k;
  r[8] = (m[0] * m[4] - m[1] * m[3]) * k;
  return true;
}

void WarpPerspective(const void* in, const ImageGeom& ig, void* out, const ImageGeom& og, DType type,
                     const PerspectiveParams& p) {
  std::array<double, 9> m;  // by value in the functor: not reloaded after every uint8 store
  std::copy(p.map, p.map + 9, m.begin());
  auto coord = [m](int64_t x, int64_t y, double* sx, double* sy) {
    double w = m[6] * double(x) + m[7] * double(y) + m[8];
    w = w != 0 ? 1.0 / w : 0.0;
    *sx = (m[0] * double(x) + m[1] * double(y) + m[2]) * w;
    *sy = (m[3] * double(x) + m[4] * double(y) + m[5]) * w;
  };
  if (og.height > 0 && og.width > 0 && warp_detail::SampleU8C3Applies(type, ig, og, p.interp)) {
    const auto* src = static_cast<const uint8_t*>(in);
    auto* dst = static_cast<uint8_t*>(out);
    const bool nearest = p.interp == PerspectiveInterp::kNearest;
    auto row_points = [&m, nearest](int64_t y, int64_t x_begin, int64_t n, int32_t* px, int32_t* py) {
      warp_detail::PerspectivePointsRow(m.data(), y, x_begin, n, nearest, px, py);
    };
    if (nearest)
      warp_detail::SampleU8C3<PerspectiveInterp::kNearest>(src, ig, dst, og, p.border, p.fill, row_points, coord);
    else
      warp_detail::SampleU8C3<PerspectiveInterp::kLinear>(src, ig, dst, og, p.border, p.fill, row_points, coord);
    return;
  }
  warp_detail::SampleImage(in, ig, out, og, type, p.interp, p.border, p.fill, coord);
}

}  // namespace sluice::kernels
