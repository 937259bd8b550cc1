#include "operators/filter/image_geom.h"

#include <sluice/error.h>

namespace sluice {

std::string FilterImageLayout(const TensorList& in) {
  std::string layout = in.layout();
  const int nd = in.num_samples() > 0 ? in.shape(0).ndim() : 3;
  if (layout.empty()) layout = nd == 2 ? "HW" : "HWC";
  if (layout != "HWC" && layout != "CHW" && layout != "HW")
    throw Error("expected images in layout HWC, CHW or HW, got layout '" + in.layout() + "'");
  for (int i = 0; i < in.num_samples(); ++i)
    if (in.shape(i).ndim() != static_cast<int>(layout.size()))
      throw Error("expected " + layout + " images, sample " + std::to_string(i) + " has shape " +
                  in.shape(i).ToString());
  return layout;
}

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

FilterBatchTypes ReadFilterBatchTypes(const Operator& op, const TensorList& in) {
  FilterBatchTypes t;
  t.layout = FilterImageLayout(in);
  t.in_type = in.dtype();
  if (!kernels::FilterKernelSupports(t.in_type))
    throw Error("input type " + std::string(ToString(t.in_type)) + " is not supported (uint8, int16, uint16 or float32)");
  t.out_type = op.HasArg("dtype") ? op.Arg<DType>("dtype") : t.in_type;
  return t;
}

}  // namespace sluice
