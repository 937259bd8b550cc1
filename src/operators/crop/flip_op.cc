// flip: images (HWC, CHW) and volumes (DHWC, CDHW) mirrored along width, height and depth
// (per-sample flags). A sample with no flag set is handed out as a view of its input (no copy).
#include "kernels/crop/flip.h"
#include "operators/crop/flip_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class FlipOp : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanFlip(*this, ws, plan_);
    OutputDesc out = plan_.output;
    const size_t n = out.shapes.size();
    out.sample_views.assign(n, 0);
    bool any = false;
    for (size_t k = 0; k < n; ++k) {
      out.sample_views[k] = PassThrough(k);
      any = any || out.sample_views[k];
    }
    if (any) out.contiguous = false;
    else out.sample_views.clear();
    return {std::move(out)};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const auto k = static_cast<size_t>(i);
    if (PassThrough(k)) {
      ws.Output(0).ShareSample(i, in, i);  // pass-through: a view, not a copy
      return;
    }
    kernels::FlipVolume(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), plan_.geometry[k], SizeOf(in.dtype()),
                        plan_.horizontal[k] != 0, plan_.vertical[k] != 0, plan_.depthwise[k] != 0);
  }

 private:
  // No flag that changes sample k (a depthwise flip of an image, depth 1, changes nothing).
  bool PassThrough(size_t k) const {
    return !plan_.horizontal[k] && !plan_.vertical[k] && (!plan_.depthwise[k] || plan_.geometry[k].depth <= 1);
  }
  FlipPlan plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterFlip) {
  r.Register(OpSchema("flip")
                 .Doc("Flips images horizontally and/or vertically, and volumes depthwise.")
                 .Input("images", "HWC or CHW images, DHWC or CDHW volumes, of any type (an empty layout: HWC for 3 "
                        "dimensions, DHWC for 4), or sequences of them (every frame of a sample flipped alike).")
                 .UnfoldsSequences()
                 .Output("flipped", "The flipped images.")
                 .Arg("horizontal", ArgType::kInt, int64_t{1}, "Flip horizontally (per sample: 0 or 1).", true)
                 .Range(0, 1)
                 .Arg("vertical", ArgType::kInt, int64_t{0}, "Flip vertically (per sample: 0 or 1).", true)
                 .Range(0, 1)
                 .Arg("depthwise", ArgType::kInt, int64_t{0}, "Flip along the depth axis D of volumes (per sample: 0 or 1); "
                      "no effect on images.", true)
                 .Range(0, 1)
                 .Factory("cpu", MakeFactory<FlipOp>()));
}

}  // namespace sluice
