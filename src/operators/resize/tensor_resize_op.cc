// tensor_resize (and DALI's deprecated experimental.tensor_resize, an alias in python/sluice/
// namespaces.py): resizes any axes of a tensor, no layout needed. The plan (tensor_resize_plan.h)
// applies DALI's size rules per axis and lays the tensor out as resize's kernels take it; each
// sample is then one or more calls of the image (2 groups) or volume (3 groups) resize kernel,
// so an HWC image resized along (H, W) equals resize's result bit for bit.
#include <cstring>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "kernels/tensor/cast.h"
#include "operators/resize/resampling_args.h"
#include "operators/resize/resize_types.h"
#include "operators/resize/tensor_resize_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

void CheckTensorResizeArgs(const ArgView& a) {
  if (a.Given("sizes") == a.Given("scales")) throw ArgCheckError{"sizes", "give one of sizes or scales"};
  if (a.Given("roi_start") != a.Given("roi_end"))
    throw ArgCheckError{a.Given("roi_start") ? "roi_end" : "roi_start", "roi_start and roi_end go together"};
  if (a.Given("scales") && a.Given("mode")) {
    const std::string m = a.String("mode");
    if (m == "not_smaller" || m == "not_larger")
      throw ArgCheckError{"mode", "\"" + m + "\" cannot be used with scales"};
  }
}

class TensorResizeOp : public Operator {
 public:
  explicit TensorResizeOp(const OpSpec& spec) : Operator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanTensorResize(*this, args_, ws, plan_);
    return {plan_.output};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const TensorResizeSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
    auto run = [&](const auto* src, auto* dst) {
      if (p.copy) {
        kernels::Cast(src, in.dtype(), dst, out.dtype(), size_t(in.shape(i).num_elements()));
        return;
      }
      const size_t in_block = size_t(p.in[0]) * size_t(p.in[1]) * size_t(p.groups == 3 ? p.in[2] : 1) * size_t(p.channels);
      const size_t out_block =
          size_t(p.out[0]) * size_t(p.out[1]) * size_t(p.groups == 3 ? p.out[2] : 1) * size_t(p.channels);
      kernels::ResizeParams params = args_.params;
      const int h = p.groups - 2, w = p.groups - 1;  // the last two groups are height and width
      params.roi = kernels::ResizeRoi{float(p.lo[w]), float(p.lo[h]), float(p.hi[w]), float(p.hi[h])};
      for (int64_t o = 0; o < p.outer; ++o) {
        const auto* s = src + size_t(o) * in_block;
        auto* d = dst + size_t(o) * out_block;
        if (p.groups == 2)
          kernels::Resize(s, p.in[0], p.in[1], p.channels, d, p.out[0], p.out[1], params);
        else
          kernels::ResizeVolume(s, p.in[0], p.in[1], p.in[2], p.channels, d, p.out[0], p.out[1], p.out[2], params,
                                kernels::ResizeDepthRoi{p.lo[0], p.hi[0]});
      }
    };
    VisitResizeTypes(in, out, i, run);
  }

 private:
  const TensorResizeArgs args_;
  TensorResizePlan plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterTensorResize) {
  OpSchema s("tensor_resize");
  s.Doc("Resizes any axes of a tensor (no layout needed) with resize's separable resampling, filters and "
        "antialiasing. sizes or scales give the extents of the axes chosen by axes / axis_names (default: every "
        "axis); the others keep theirs. Up to 3 groups of axes are resampled: the resized axes, unresized axes "
        "between them (one unchanged group), and more than 4 trailing elements; trailing axes of at most 4 "
        "elements are channels and leading ones are independent slices.")
      .Input("input", "Tensors of rank >= 1: uint8, int16, uint16 or float32.", ResizeInputTypes())
      .Output("output", "The resized tensors, in the input's layout.")
      .Arg("sizes", ArgType::kFloatList, std::vector<double>{},
           "Output extents of the axes (one per axis, or one for all); 0 derives the extent (see mode).", true)
      .Min(0)
      .Arg("scales", ArgType::kFloatList, std::vector<double>{},
           "Scale factors of the axes (one per axis, or one for all): the extent is size_rounding(scale * input "
           "extent).", true)
      .Min(0)
      .Arg("alignment", ArgType::kFloatList, std::vector<double>{0.5},
           "Where a rounded extent keeps the scale (subpixel_scale): the point (1 - alignment) * roi_start + "
           "alignment * roi_end stays in place; one per axis or one for all.", true)
      .Arg("axes", ArgType::kIntList, std::vector<int64_t>{},
           "Indices of the axes that sizes, scales, max_size, alignment, roi_start and roi_end refer to (negative: "
           "from the back). Default: every axis.")
      .Arg("axis_names", ArgType::kString, std::string(), "Names (layout letters) of those axes, instead of axes.")
      .Layout()
      .Exclusive({"axes", "axis_names"})
      .Arg("size_rounding", ArgType::kString, std::string("round"),
           "How scale * extent becomes an integer: \"round\" (halfway away from zero), \"truncate\" or \"ceil\".")
      .Enum({"round", "truncate", "ceil"})
      .Arg("mode", ArgType::kString, std::string("default"),
           "How missing (0) or conflicting extents are resolved, as resize's (not_larger / not_smaller: not with "
           "scales).")
      .Enum({"default", "stretch", "not_larger", "not_smaller"})
      .Arg("max_size", ArgType::kFloatList, std::vector<double>{},
           "Limit of the output extents: one per axis, or one for all.")
      .Min(0)
      .Arg("roi_start", ArgType::kFloatList, std::vector<double>{},
           "Start of the input region per axis (one per axis, or one for all).", true)
      .Arg("roi_end", ArgType::kFloatList, std::vector<double>{},
           "End of the input region per axis; below start flips that axis.", true)
      .Arg("roi_relative", ArgType::kBool, false, "roi_start / roi_end are fractions of the input extents.")
      .Arg("subpixel_scale", ArgType::kBool, true,
           "A fractional output extent keeps its scale: the region is adjusted (see alignment). False stretches the "
           "region to the rounded extent.")
      .Check(CheckTensorResizeArgs);
  AddResamplingArgs(s);
  s.Factory("cpu", MakeFactory<TensorResizeOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
