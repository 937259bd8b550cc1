#include "operators/filter/image_geom.h"

#include <sluice/error.h>

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

void AddFilterOutputTypeArg(OpSchema& s) {
  s.Arg("dtype", ArgType::kDType, std::string("uint8"),
        "Output type: uint8, int16, uint16 or float32 (default: the input's). Integer results are rounded and "
        "saturated.")
      .Enum({"uint8", "int16", "uint16", "float32"});
}

FilterBatchTypes ReadFilterBatchTypes(const Operator& op, const Workspace& ws) {
  const TensorList& in = ws.Input(0);
  FilterBatchTypes t;
  t.layout = op.InputLayout(ws, 0);
  t.in_type = in.dtype();
  if (!kernels::FilterKernelSupports(t.in_type))
    throw Error("input type " + std::string(ToString(t.in_type)) + " is not supported (uint8, int16, uint16 or float32)");
  t.out_type = op.HasArg("dtype") ? op.Arg<DType>("dtype") : t.in_type;
  return t;
}

}  // namespace sluice
