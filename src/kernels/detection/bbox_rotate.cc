#include "kernels/detection/bbox_rotate.h"

#include <algorithm>
#include <cmath>

namespace sluice::kernels {

std::vector<int32_t> RotateBoxes(const float* in, int64_t n, const BoxRotateParams& p, float* out) {
  // Every step in float and in DALI's order (bbox_rotate.cc's RotateBoxesKernel), so that boxes on
  // the remove_threshold boundary and the coordinates' last bits agree: the angle converted to
  // radians in float, std::cos / std::sin of that float; normalized coordinates centred as
  // (c - 0.5) * extent, pixel ones as c - extent / 2.
  std::vector<int32_t> kept;
  const float rad = p.degrees * static_cast<float>(M_PI / 180.0);
  const float c = std::cos(rad), s = std::sin(rad);
  const float half_in_w = p.in_w / 2, half_in_h = p.in_h / 2, half_out_w = p.out_w / 2, half_out_h = p.out_h / 2;
  auto centre_x = [&](float v) { return p.normalized ? (v - 0.5f) * p.in_w : v - half_in_w; };
  auto centre_y = [&](float v) { return p.normalized ? (v - 0.5f) * p.in_h : v - half_in_h; };
  for (int64_t i = 0; i < n; ++i) {
    const float* b = in + 4 * i;
    const float r_in = p.ltrb ? b[2] : b[0] + b[2], b_in = p.ltrb ? b[3] : b[1] + b[3];
    const float l = centre_x(b[0]), r = centre_x(r_in), t = centre_y(b[1]), bo = centre_y(b_in);
    const float old_w = r - l, old_h = bo - t;
    const float xs[4] = {l, r, l, r}, ys[4] = {t, t, bo, bo};
    float nl = INFINITY, nt = INFINITY, nr = -INFINITY, nb = -INFINITY;
    for (int k = 0; k < 4; ++k) {
      const float x = (xs[k] * c + ys[k] * s) + half_out_w;
      const float y = (-xs[k] * s + ys[k] * c) + half_out_h;
      nl = std::min(nl, x), nr = std::max(nr, x), nt = std::min(nt, y), nb = std::max(nb, y);
    }
    if (p.mode != BoxRotateMode::kExpand) {
      const float new_w = nr - nl, new_h = nb - nt;
      const bool swapped = (old_w < old_h) != (new_w < new_h);
      float dw = (new_w - (swapped ? old_h : old_w)) * 0.5f, dh = (new_h - (swapped ? old_w : old_h)) * 0.5f;
      if (p.mode == BoxRotateMode::kHalfway) dw *= 0.5f, dh *= 0.5f;
      nl += dw, nr -= dw, nt += dh, nb -= dh;
    }
    const float area = (nr - nl) * (nb - nt);
    nl = std::clamp(nl, 0.f, p.out_w), nr = std::clamp(nr, 0.f, p.out_w);
    nt = std::clamp(nt, 0.f, p.out_h), nb = std::clamp(nb, 0.f, p.out_h);
    const float remain = (nr - nl) * (nb - nt) / area;
    if (!(remain >= p.remove_threshold)) continue;
    float* o = out + 4 * kept.size();
    if (!p.ltrb) nr -= nl, nb -= nt;
    const float fx = p.normalized ? 1.f / p.out_w : 1.f, fy = p.normalized ? 1.f / p.out_h : 1.f;
    o[0] = nl * fx, o[1] = nt * fy, o[2] = nr * fx, o[3] = nb * fy;
    kept.push_back(static_cast<int32_t>(i));
  }
  return kept;
}

}  // namespace sluice::kernels
