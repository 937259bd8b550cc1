// The plan of cast (the input's shapes and layout, the new type), shared by the CPU and GPU
// operators.
#pragma once
#include "operators/operator.h"

namespace sluice {

inline OutputDesc PlanCast(DType to, const Workspace& ws) {
  const TensorList& in = ws.Input(0);
  return {in.shapes(), to, in.layout(), in.is_contiguous()};
}

}  // namespace sluice
