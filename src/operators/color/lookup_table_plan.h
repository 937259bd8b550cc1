// lookup_table's plan, shared by its CPU and GPU operators: the input type check and the output
// (the input's shapes and layout, the table's type). The table itself is built once from the
// constant arguments (kernels::LookupTable) by each operator's constructor.
#pragma once
#include <string>

#include "kernels/color/lookup_table.h"
#include "operators/operator.h"

namespace sluice {

inline kernels::LookupTable MakeLookupTable(const Operator& op) {
  return kernels::LookupTable(op.Arg<std::vector<int64_t>>("keys"), op.Arg<std::vector<double>>("values"),
                              op.Arg<double>("default_value"), op.Arg<DType>("dtype"));
}

inline OutputDesc PlanLookupTable(const kernels::LookupTable& table, const Workspace& ws) {
  const TensorList& in = ws.Input(0);
  if (!kernels::LookupTable::SupportsInput(in.dtype()))
    throw Error("input type " + std::string(ToString(in.dtype())) +
                " is not supported: lookup_table takes integer inputs (uint8, int8, uint16, int16, int32, int64)");
  return OutputDesc{in.shapes(), table.out_type(), in.layout(), in.is_contiguous()};
}

}  // namespace sluice
