// The random-resized-crop window (decoders.image_random_crop, random_resized_crop), as torchvision's
// RandomResizedCrop.get_params draws it (python/tests/test_crop_pad_ops.py checks the distribution
// with KS tests). DALI's current generator differs in its corner cases: it also rejects windows whose
// rounded aspect ratio leaves the range, its fallback is capped at the largest allowed area and placed
// at random, and it skips the attempts for images too elongated for any window.
//   area fraction ~ U[area_min, area_max], aspect ratio w/h ~ log-uniform[ratio_min, ratio_max],
//   A = fraction * H * W, w = round(sqrt(A * r)), h = round(sqrt(A / r)), both >= 1;
//   accepted when w <= W and h <= H, up to num_attempts tries; otherwise the whole image clamped to
//   the ratio range (largest centred window whose ratio is clamped into [ratio_min, ratio_max]);
//   anchor x ~ uniform integer in [0, W - w], y in [0, H - h].
//
// Randomness comes from the caller, so the engine's deterministic per-sample RNG plugs in: `u01` is
// any callable returning a double uniformly distributed in [0, 1). Two draws per attempt (area,
// ratio) plus two for the accepted window's anchor (x, then y), so sequences are reproducible.
// Reentrant; no allocation.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>

#include "kernels/crop/crop_window.h"

namespace sluice::kernels {

struct RandomCropParams {
  float area_min = 0.08f, area_max = 1.0f;
  float ratio_min = 3.0f / 4.0f, ratio_max = 4.0f / 3.0f;
  int num_attempts = 10;
};

// Throws sluice::Error for non-positive extents or invalid ranges.
void ValidateRandomCropParams(int height, int width, const RandomCropParams& p);

// The deterministic fallback window (whole image clamped to the ratio range, centred).
CropWindow FallbackCropWindow(int height, int width, const RandomCropParams& p);

template <typename U01>
CropWindow RandomCropWindow(int height, int width, const RandomCropParams& p, U01&& u01) {
  ValidateRandomCropParams(height, width, p);
  const double log_lo = std::log(double(p.ratio_min)), log_hi = std::log(double(p.ratio_max));
  const double total = double(height) * double(width);
  auto anchor = [&](int extent, int size) {
    const int n = extent - size + 1;
    return std::min(int(double(u01()) * n), n - 1);
  };
  for (int i = 0; i < p.num_attempts; ++i) {
    const double frac = p.area_min + (double(p.area_max) - p.area_min) * double(u01());
    const double ratio = std::exp(log_lo + (log_hi - log_lo) * double(u01()));
    const double area = frac * total;
    const int w = std::max(1, int(std::lround(std::sqrt(area * ratio))));
    const int h = std::max(1, int(std::lround(std::sqrt(area / ratio))));
    if (w <= width && h <= height) {
      const int x = anchor(width, w);
      const int y = anchor(height, h);
      return {x, y, w, h};
    }
  }
  return FallbackCropWindow(height, width, p);
}

// Non-template convenience for callers holding a type-erased source.
CropWindow RandomCropWindowFn(int height, int width, const RandomCropParams& p, const std::function<double()>& u01);

}  // namespace sluice::kernels
