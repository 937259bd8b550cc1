#include "operators/filter/image_geom.h"

namespace sluice {

// HWC first: a 3-D input without a layout is channel-last.
InputLayouts FilterImageLayouts() { return InputLayouts{"HWC", "CHW", "HW"}; }

kernels::ImageGeom FilterImageGeom(const TensorShape& s, const std::string& layout) {
  if (layout == "HW") return kernels::ImageGeom::HWC(s[0], s[1], 1);
  if (layout == "CHW") return kernels::ImageGeom::CHW(s[0], s[1], s[2]);
  return kernels::ImageGeom::HWC(s[0], s[1], s[2]);
}

TensorShape FilterImageShape(int64_t h, int64_t w, int64_t c, const std::string& layout) {
  if (layout == "HW") return TensorShape{h, w};
  if (layout == "CHW") return TensorShape{c, h, w};
  return TensorShape{h, w, c};
}

}  // namespace sluice
