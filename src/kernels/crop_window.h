// A rectangle in pixel coordinates; shared by the decoder (ROI decode) and random_crop_window.
#pragma once

namespace sluice::kernels {

struct CropWindow {
  int x = 0, y = 0, w = 0, h = 0;  // anchor (left, top) and extents
  bool operator==(const CropWindow&) const = default;
};

}  // namespace sluice::kernels
