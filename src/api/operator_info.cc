#include <sluice/pipeline.h>

#include "operators/registry.h"
#include "pipeline/graph.h"

namespace sluice {

std::vector<std::string> ListOperators() { return OperatorRegistry::Get().Names(); }

OperatorInfo GetOperatorInfo(const std::string& name) {
  const OpSchema& s = OperatorRegistry::Get().GetSchema(name);
  OperatorInfo info;
  info.name = s.name();
  info.doc = s.FullDoc();
  info.backends = s.backends();
  info.min_inputs = s.min_inputs();
  info.max_inputs = s.max_inputs();
  for (const auto& in : s.inputs()) {
    info.input_names.push_back(in.name);
    info.input_layouts.push_back(in.layouts.declared() ? in.layouts.DocText() : std::string());
  }
  info.num_outputs = s.output_docs().empty() ? -1 : static_cast<int>(s.output_docs().size());
  for (const auto& a : s.args())
    info.arguments.push_back({a.name, a.type, a.required(), a.default_value, a.doc, a.per_sample, a.ConstraintText()});
  info.is_random = s.is_random();
  info.is_reader = s.is_reader();
  info.deprecated_arguments = s.deprecated_args();
  return info;
}

OperatorDef ValidateOperator(OperatorDef def) {
  OpSpec spec;
  spec.op = std::move(def.op);
  spec.name = def.name.empty() ? spec.op : std::move(def.name);
  spec.device = std::move(def.device);
  spec.inputs = std::move(def.inputs);
  spec.arg_inputs = std::move(def.arg_inputs);
  spec.args = std::move(def.args);
  spec.outputs = std::move(def.outputs);
  spec = ValidateSpec(std::move(spec), MissingBackend::kDeferToBuild);  // the pipeline's Build names them all
  OperatorDef out(spec.op, spec.device);
  out.name = std::move(spec.name);
  out.inputs = std::move(spec.inputs);
  out.arg_inputs = std::move(spec.arg_inputs);
  out.args = std::move(spec.args);
  out.outputs = std::move(spec.outputs);
  return out;
}

}  // namespace sluice
