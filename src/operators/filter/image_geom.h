// Image layouts of the filter operators (gaussian_blur, filter): "HWC", "CHW" and "HW" (no
// channels); an empty layout means HWC for 3-D samples and HW for 2-D ones (as DALI's channel-last
// default). The framework checks them (the schema declares FilterImageLayouts()); the operators
// read the one they got with Operator::InputLayout. Also their shared `dtype` argument and the
// batch's input and output types.
#pragma once
#include <string>

#include "core/tensor_list.h"
#include "kernels/filter/convolution.h"
#include "operators/operator.h"
#include "operators/schema.h"

namespace sluice {

// The layouts of the filter operators' image input.
InputLayouts FilterImageLayouts();

// The geometry of a sample of `shape` in `layout` ("HWC", "CHW" or "HW").
kernels::ImageGeom FilterImageGeom(const TensorShape& shape, const std::string& layout);

// The sample shape of an image of geometry `g` in `layout`.
TensorShape FilterImageShape(int64_t h, int64_t w, int64_t c, const std::string& layout);

// Declares the `dtype` argument of the filter operators: uint8, int16, uint16 or float32, default
// the input's.
void AddFilterOutputTypeArg(OpSchema& s);

// A batch of a filter operator: its layout (Operator::InputLayout of input 0), the input type
// (throws if the kernels do not take it) and the output type (`dtype`, default the input's).
struct FilterBatchTypes {
  std::string layout;
  DType in_type = DType::kUInt8, out_type = DType::kUInt8;
};
FilterBatchTypes ReadFilterBatchTypes(const Operator& op, const Workspace& ws);

}  // namespace sluice
