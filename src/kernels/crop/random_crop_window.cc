#include "kernels/crop/random_crop_window.h"

#include <string>

#include "sluice/error.h"

namespace sluice::kernels {

void ValidateRandomCropParams(int height, int width, const RandomCropParams& p) {
  if (height <= 0 || width <= 0)
    throw Error("random crop: image extents must be positive, got " + std::to_string(height) + "x" + std::to_string(width));
  if (!(p.area_min > 0.f) || !(p.area_min <= p.area_max) || !(p.area_max <= 1.f))
    throw Error("random crop: random_area must satisfy 0 < min <= max <= 1");
  if (!(p.ratio_min > 0.f) || !(p.ratio_min <= p.ratio_max) || !std::isfinite(p.ratio_max))
    throw Error("random crop: random_aspect_ratio must satisfy 0 < min <= max");
  if (p.num_attempts < 0) throw Error("random crop: num_attempts must be >= 0");
}

CropWindow FallbackCropWindow(int height, int width, const RandomCropParams& p) {
  const double ratio = double(width) / double(height);
  int w = width, h = height;
  if (ratio < p.ratio_min) h = int(std::lround(width / double(p.ratio_min)));
  else if (ratio > p.ratio_max) w = int(std::lround(height * double(p.ratio_max)));
  w = std::clamp(w, 1, width);
  h = std::clamp(h, 1, height);
  return {(width - w) / 2, (height - h) / 2, w, h};
}

CropWindow RandomCropWindowFn(int height, int width, const RandomCropParams& p, const std::function<double()>& u01) {
  return RandomCropWindow(height, width, p, u01);
}

}  // namespace sluice::kernels
