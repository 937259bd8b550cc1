// The per-sample plan of flip (flags, geometry and output), computed in Setup by the CPU and the
// GPU operators with the same code.
#pragma once
#include <vector>

#include "kernels/crop/flip.h"
#include "operators/operator.h"

namespace sluice {

struct FlipPlan {
  std::vector<int> horizontal, vertical, depthwise;  // per sample, 0 or 1
  std::vector<kernels::FlipGeometry> geometry;       // per sample (HWC, CHW, DHWC or CDHW)
  OutputDesc output;
};
void PlanFlip(const Operator& op, const Workspace& ws, FlipPlan& plan);

}  // namespace sluice
