// Image layouts of the filter operators (gaussian_blur, filter): "HWC", "CHW" and "HW" (no
// channels); an empty layout means HWC for 3-D samples and HW for 2-D ones (as DALI's channel-last
// default). The framework checks them (the schema declares FilterImageLayouts()); the operators
// read the one they got with Operator::InputLayout.
#pragma once
#include <string>

#include "core/tensor_list.h"
#include "kernels/filter/convolution.h"
#include "operators/schema.h"

namespace sluice {

// The layouts of the filter operators' image input.
InputLayouts FilterImageLayouts();

// The geometry of a sample of `shape` in `layout` ("HWC", "CHW" or "HW").
kernels::ImageGeom FilterImageGeom(const TensorShape& shape, const std::string& layout);

// The sample shape of an image of geometry `g` in `layout`.
TensorShape FilterImageShape(int64_t h, int64_t w, int64_t c, const std::string& layout);

}  // namespace sluice
