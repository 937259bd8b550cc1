// The per-batch plan of preemphasis_filter, computed in Setup by the CPU and the GPU operators with
// the same code: each sample's coefficient, the border rule, the output type and shapes.
#pragma once
#include <vector>

#include "kernels/audio/preemphasis.h"
#include "operators/operator.h"

namespace sluice {

struct PreemphasisArgs {  // the constant arguments, read once by the constructor
  explicit PreemphasisArgs(const Operator& op);
  kernels::PreemphasisBorder border;
  DType out_type;
};

struct PreemphasisPlan {
  std::vector<float> coeff;  // per sample (preemph_coeff, constant or an argument input)
  OutputDesc output;         // the input's shapes and layout, the `dtype` type
};

void PlanPreemphasis(const Operator& op, const PreemphasisArgs& args, const Workspace& ws, PreemphasisPlan& plan);

}  // namespace sluice
