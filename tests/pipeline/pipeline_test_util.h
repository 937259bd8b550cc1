// Helpers shared by the pipeline tests: validated specs and the repository's test images.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "pipeline/graph.h"

namespace sluice::testing {

// An operator spec, validated against its schema as Pipeline::AddOperator does (outputs named).
inline OpSpec Spec(const std::string& op, const std::string& name, std::vector<std::string> inputs = {},
                   std::map<std::string, Value> args = {}, std::map<std::string, std::string> arg_inputs = {}) {
  OpSpec s;
  s.op = op;
  s.name = name;
  s.inputs = std::move(inputs);
  s.args = std::move(args);
  s.arg_inputs = std::move(arg_inputs);
  return ValidateSpec(std::move(s));
}

inline std::string TestImage(const std::string& name) {
  return std::string(SLUICE_SOURCE_DIR) + "/tests/data/images/" + name;
}

}  // namespace sluice::testing
