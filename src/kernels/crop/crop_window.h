// A rectangle in pixel coordinates and what to do with the part of it outside the image; shared
// by crop, crop_mirror_normalize, the decoders (ROI decode) and random_crop_window, on both backends.
#pragma once
#include <cstdint>

namespace sluice::kernels {

struct CropWindow {
  int x = 0, y = 0, w = 0, h = 0;  // anchor (left, top) and extents
  bool operator==(const CropWindow&) const = default;
};

// DALI's out_of_bounds_policy.
enum class OutOfBoundsPolicy : uint8_t {
  kError,  // a window not inside the image is an error
  kPad,    // keep the window; pixels outside the image take the fill value
  kTrim,   // trim_to_shape: keep the part inside the image (possibly empty)
};

// True if every pixel of `w` lies in an in_h x in_w image.
inline bool InsideImage(const CropWindow& w, int in_h, int in_w) {
  return w.x >= 0 && w.y >= 0 && w.x + w.w <= in_w && w.y + w.h <= in_h;
}

// The part of `w` inside an in_h x in_w image (zero extents when they do not meet).
CropWindow ClampToImage(const CropWindow& w, int in_h, int in_w);

// The window after `policy`: unchanged if inside or kPad, clamped for kTrim; kError throws
// sluice::Error naming the window and the image.
CropWindow ApplyOutOfBoundsPolicy(const CropWindow& w, int in_h, int in_w, OutOfBoundsPolicy policy);

}  // namespace sluice::kernels
