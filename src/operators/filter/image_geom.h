// Image layouts of the filter operators (gaussian_blur, filter): "HWC", "CHW" and "HW" (no
// channels); an empty layout means HWC for 3-D samples and HW for 2-D ones (as DALI's channel-last
// default). Errors name the layout or the sample's shape.
#pragma once
#include <string>

#include "core/tensor_list.h"
#include "kernels/filter/convolution.h"

namespace sluice {

// The effective layout of `in` ("HWC", "CHW" or "HW"); throws sluice::Error for anything else or
// for samples whose number of dimensions does not match it.
std::string FilterImageLayout(const TensorList& in);

// The geometry of a sample of `shape` in `layout` (as FilterImageLayout returns).
kernels::ImageGeom FilterImageGeom(const TensorShape& shape, const std::string& layout);

// The sample shape of an image of geometry `g` in `layout`.
TensorShape FilterImageShape(int64_t h, int64_t w, int64_t c, const std::string& layout);

}  // namespace sluice
