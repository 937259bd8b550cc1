// The per-sample plan of flip (flags and output), computed in Setup by the CPU and the GPU
// operators with the same code.
#pragma once
#include <vector>

#include "operators/operator.h"

namespace sluice {

struct FlipPlan {
  std::vector<int> horizontal, vertical;  // per sample, 0 or 1
  OutputDesc output;
};
void PlanFlip(const Operator& op, const Workspace& ws, FlipPlan& plan);

}  // namespace sluice
