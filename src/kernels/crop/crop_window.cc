#include "kernels/crop/crop_window.h"

#include <algorithm>
#include <string>

#include "sluice/error.h"

namespace sluice::kernels {

CropWindow ClampToImage(const CropWindow& w, int in_h, int in_w) {
  const int x0 = std::max(0, w.x), y0 = std::max(0, w.y);
  const int x1 = std::min(in_w, w.x + w.w), y1 = std::min(in_h, w.y + w.h);
  return {x0, y0, std::max(0, x1 - x0), std::max(0, y1 - y0)};
}

CropWindow ApplyOutOfBoundsPolicy(const CropWindow& w, int in_h, int in_w, OutOfBoundsPolicy policy) {
  if (policy == OutOfBoundsPolicy::kPad || InsideImage(w, in_h, in_w)) return w;
  if (policy == OutOfBoundsPolicy::kTrim) return ClampToImage(w, in_h, in_w);
  throw Error("the crop window (x " + std::to_string(w.x) + ", y " + std::to_string(w.y) + ", " + std::to_string(w.w) +
              "x" + std::to_string(w.h) + ") is outside the " + std::to_string(in_w) + "x" + std::to_string(in_h) +
              " image (out_of_bounds_policy=\"error\"; use \"pad\" or \"trim_to_shape\")");
}

}  // namespace sluice::kernels
