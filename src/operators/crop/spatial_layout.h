// Images and volumes as flip, crop and resize take them: HWC, CHW, DHWC or CDHW, read from the
// input's layout (an empty layout: HWC for 3 dimensions, DHWC for 4, as DALI's defaults).
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor_list.h"

namespace sluice {

struct SpatialLayout {
  std::string layout;           // one of HWC, CHW, DHWC, CDHW
  bool channels_first = false;  // CHW, CDHW
  bool volume = false;          // DHWC, CDHW
  int ndim() const { return static_cast<int>(layout.size()); }
};

// The extents of one sample; depth is 1 for an image.
struct SpatialExtents {
  int64_t depth = 1, height = 0, width = 0, channels = 0;
};

// The layout of a batch (the input's layout, or the default for its samples' number of dimensions).
// Throws an Error naming `op_name` for any other layout, or a sample whose number of dimensions
// does not match it.
SpatialLayout ResolveSpatialLayout(const TensorList& in, const std::string& op_name);

SpatialExtents ExtentsOf(const SpatialLayout& l, const TensorShape& s);

// The sample shape of `l` with these extents (depth ignored for an image).
TensorShape ShapeOf(const SpatialLayout& l, const SpatialExtents& e);

}  // namespace sluice
