#include "operators/image/resize_size.h"

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
  const std::array<double, 2> in{in_h, in_w};
  std::array<double, 2> scale{1.0, 1.0};
  std::array<bool, 2> given{r.size[0] > 0, r.size[1] > 0};
  const bool any = given[0] || given[1];
  const bool uniform = r.mode == ResizeMode::kNotLarger || r.mode == ResizeMode::kNotSmaller ||
                       (r.mode == ResizeMode::kDefault && !(given[0] && given[1]));
  if (any) {
    double lo = 1e300, hi = 0, sum = 0;
    int n = 0;
    for (int d = 0; d < 2; ++d) {
      if (!given[static_cast<size_t>(d)]) continue;
      const double s = r.size[static_cast<size_t>(d)] / in[static_cast<size_t>(d)];
      scale[static_cast<size_t>(d)] = s;
      lo = std::min(lo, s);
      hi = std::max(hi, s);
      sum += s;
      ++n;
    }
    if (r.mode == ResizeMode::kNotLarger) scale = {lo, lo};
    else if (r.mode == ResizeMode::kNotSmaller) scale = {hi, hi};
    else if (r.mode == ResizeMode::kDefault) {
      for (int d = 0; d < 2; ++d)
        if (!given[static_cast<size_t>(d)]) scale[static_cast<size_t>(d)] = sum / n;
    }
    // stretch: missing extents keep scale 1.
  }
  for (int d = 0; d < 2; ++d) {
    const double m = r.max_size[static_cast<size_t>(d)];
    if (m <= 0) continue;
    const double cap = m / in[static_cast<size_t>(d)];
    if (in[static_cast<size_t>(d)] * scale[static_cast<size_t>(d)] > m) {
      if (uniform && any) {
        scale[0] = std::min(scale[0], cap);
        scale[1] = std::min(scale[1], cap);
      } else {
        scale[static_cast<size_t>(d)] = cap;
      }
    }
  }
  return {in[0] * scale[0], in[1] * scale[1]};
}

}  // namespace sluice
