// color_space_conversion's plan, shared by its CPU and GPU operators: the colour spaces (parsed
// once from the constant arguments), the type and channel checks, and the output (the input's
// shapes with the output colour space's channels, the input's type and layout).
#pragma once
#include <string>
#include <vector>

#include "kernels/color/color_space.h"
#include "operators/operator.h"

namespace sluice {

struct ColorSpaces {
  explicit ColorSpaces(const Operator& op)
      : from(*kernels::ParseColorSpace(op.Arg<std::string>("image_type"))),
        to(*kernels::ParseColorSpace(op.Arg<std::string>("output_type"))) {}
  kernels::ColorSpace from, to;
};

inline OutputDesc PlanColorSpace(const Operator& op, const ColorSpaces& cs, const Workspace& ws) {
  const TensorList& in = ws.Input(0);
  const DType type = in.dtype();
  if (!kernels::ColorSpaceKernelSupports(type))
    throw Error("input type " + std::string(ToString(type)) + " is not supported (uint8 or float32)");
  const int cin = kernels::ColorSpaceChannels(cs.from), cout = kernels::ColorSpaceChannels(cs.to);
  std::vector<TensorShape> shapes;
  for (int i = 0; i < in.num_samples(); ++i) {
    const TensorShape& s = in.shape(i);
    if (s[s.ndim() - 1] != cin)
      op.ThrowArgError("image_type", "is " + std::string(kernels::ColorSpaceName(cs.from)) + " (" +
                                         std::to_string(cin) + " channel" + (cin == 1 ? "" : "s") + "), but sample " +
                                         std::to_string(i) + " has shape " + s.ToString());
    auto dims = s.dims();
    std::vector<int64_t> out_dims(dims.begin(), dims.end());
    out_dims.back() = cout;
    shapes.emplace_back(out_dims);
  }
  return OutputDesc{shapes, type, op.InputLayout(ws, 0), in.is_contiguous()};
}

}  // namespace sluice
