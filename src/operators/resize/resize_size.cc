#include "operators/resize/resize_size.h"

#include <algorithm>
#include <cmath>

namespace sluice {

std::optional<ResizeMode> ParseResizeMode(const std::string& s) {
  if (s == "default") return ResizeMode::kDefault;
  if (s == "stretch") return ResizeMode::kStretch;
  if (s == "not_larger") return ResizeMode::kNotLarger;
  if (s == "not_smaller") return ResizeMode::kNotSmaller;
  return std::nullopt;
}

std::array<int, 2> ResizeOutputSize(double in_h, double in_w, const ResizeRequest& r) {
  const std::array<double, 2> real = ResizeOutputExtents(in_h, in_w, r);
  return {std::max(1, static_cast<int>(std::lround(real[0]))), std::max(1, static_cast<int>(std::lround(real[1])))};
}

std::array<double, 2> ResizeOutputExtents(double in_h, double in_w, const ResizeRequest& r) {
  const std::vector<double> e = ResizeOutputExtentsN({in_h, in_w}, {r.size[0], r.size[1]}, r.mode,
                                                     {r.max_size[0], r.max_size[1]});
  return {e[0], e[1]};
}

std::vector<double> ResizeOutputExtentsN(const std::vector<double>& in, const std::vector<double>& size, ResizeMode mode,
                                         const std::vector<double>& max_size) {
  const size_t nd = in.size();
  std::vector<double> scale(nd, 1.0);
  std::vector<bool> given(nd);
  bool any = false;
  for (size_t d = 0; d < nd; ++d) {
    given[d] = size[d] > 0;
    any = any || given[d];
  }
  // DALI's AdjustOutputSize (dali/operators/image/resize/resize_attr_base.cc): with no extent
  // given the input's size is kept and max_size is not applied; only not_larger and not_smaller
  // keep one scale for every axis (max_size lowers it); default and stretch cap each axis on its
  // own, so a derived extent is capped without touching the given ones.
  if (!any) return in;
  const bool uniform = mode == ResizeMode::kNotLarger || mode == ResizeMode::kNotSmaller;
  double lo = 1e300, hi = 0, product = 1;
  int n = 0;
  for (size_t d = 0; d < nd; ++d) {
    if (!given[d]) continue;
    const double s = size[d] / in[d];
    scale[d] = s;
    lo = std::min(lo, s);
    hi = std::max(hi, s);
    product *= s;
    ++n;
  }
  if (mode == ResizeMode::kNotLarger) std::fill(scale.begin(), scale.end(), lo);
  else if (mode == ResizeMode::kNotSmaller) std::fill(scale.begin(), scale.end(), hi);
  else if (mode == ResizeMode::kDefault) {
    const double mean = n == 1 ? product : std::pow(product, 1.0 / n);
    for (size_t d = 0; d < nd; ++d)
      if (!given[d]) scale[d] = mean;
  }
  // stretch: missing extents keep scale 1.
  if (uniform) {
    for (size_t d = 0; d < nd; ++d)
      if (max_size[d] > 0)
        for (double& s : scale) s = std::min(s, max_size[d] / in[d]);
  }
  std::vector<double> out(nd);
  for (size_t d = 0; d < nd; ++d) {
    out[d] = in[d] * scale[d];
    if (!uniform && max_size[d] > 0 && out[d] > max_size[d]) out[d] = max_size[d];  // this axis only
  }
  return out;
}

void KeepSubpixelScale(double& lo, double& hi, double exact, int rounded, double alignment) {
  if (exact < 0.5 || exact == rounded) return;
  // Written so that alignment 0.5 computes centre +- 0.5 * extent * ratio exactly as before.
  const double c = (1 - alignment) * lo + alignment * hi, extent = hi - lo, ratio = rounded / exact;
  lo = c - alignment * extent * ratio;
  hi = c + (1 - alignment) * extent * ratio;
}

}  // namespace sluice
