#include "operators/image/flip_plan.h"

#include "operators/image/hwc_image.h"

namespace sluice {

void PlanFlip(const Operator& op, const Workspace& ws, FlipPlan& plan) {
  plan.horizontal = op.PerSampleArg<int>(ws, "horizontal");
  plan.vertical = op.PerSampleArg<int>(ws, "vertical");
  const TensorList& in = ws.Input(0);
  for (int i = 0; i < in.num_samples(); ++i) RequireHwc(in.shape(i));
  plan.output = {in.shapes(), in.dtype(), ImageLayout(in), SameShapes(in.shapes())};
}

}  // namespace sluice
