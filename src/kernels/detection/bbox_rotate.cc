#include "kernels/detection/bbox_rotate.h"

#include <algorithm>
#include <cmath>

namespace sluice::kernels {

std::vector<int32_t> RotateBoxes(const float* in, int64_t n, const BoxRotateParams& p, float* out) {
  std::vector<int32_t> kept;
  const double rad = static_cast<double>(p.degrees) * M_PI / 180.0;
  const float c = static_cast<float>(std::cos(rad)), s = static_cast<float>(std::sin(rad));
  for (int64_t i = 0; i < n; ++i) {
    const float* b = in + 4 * i;
    float l = b[0], t = b[1], r = p.ltrb ? b[2] : b[0] + b[2], bo = p.ltrb ? b[3] : b[1] + b[3];
    // Pixels, centred on the image's centre.
    const float sx = p.normalized ? p.in_w : 1.f, sy = p.normalized ? p.in_h : 1.f;
    const float ox = 0.5f * p.in_w, oy = 0.5f * p.in_h;
    l = l * sx - ox, r = r * sx - ox, t = t * sy - oy, bo = bo * sy - oy;
    const float old_w = r - l, old_h = bo - t;
    const float xs[4] = {l, r, l, r}, ys[4] = {t, t, bo, bo};
    float nl = INFINITY, nt = INFINITY, nr = -INFINITY, nb = -INFINITY;
    for (int k = 0; k < 4; ++k) {
      const float x = xs[k] * c + ys[k] * s + 0.5f * p.out_w;
      const float y = -xs[k] * s + ys[k] * c + 0.5f * p.out_h;
      nl = std::min(nl, x), nr = std::max(nr, x), nt = std::min(nt, y), nb = std::max(nb, y);
    }
    if (p.mode != BoxRotateMode::kExpand) {
      const float new_w = nr - nl, new_h = nb - nt;
      const bool swapped = (old_w < old_h) != (new_w < new_h);
      float dw = 0.5f * (new_w - (swapped ? old_h : old_w)), dh = 0.5f * (new_h - (swapped ? old_w : old_h));
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
