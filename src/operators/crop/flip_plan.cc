#include "operators/crop/flip_plan.h"

#include "operators/crop/spatial_layout.h"

namespace sluice {

void PlanFlip(const Operator& op, const Workspace& ws, FlipPlan& plan) {
  plan.horizontal = op.PerSampleArg<int>(ws, "horizontal");
  plan.vertical = op.PerSampleArg<int>(ws, "vertical");
  plan.depthwise = op.PerSampleArg<int>(ws, "depthwise");
  const TensorList& in = ws.Input(0);
  const SpatialLayout l = ResolveSpatialLayout(in, op.name());
  plan.geometry.resize(static_cast<size_t>(in.num_samples()));
  for (int i = 0; i < in.num_samples(); ++i) {
    const SpatialExtents e = ExtentsOf(l, in.shape(i));
    plan.geometry[static_cast<size_t>(i)] =
        l.channels_first ? kernels::FlipGeometry{e.channels, e.depth, e.height, e.width, 1}
                         : kernels::FlipGeometry{1, e.depth, e.height, e.width, e.channels};
  }
  plan.output = {in.shapes(), in.dtype(), l.layout, SameShapes(in.shapes())};
}

}  // namespace sluice
