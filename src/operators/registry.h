// The operator registry: names -> schemas (with their factories).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "operators/schema.h"

namespace sluice {

class OperatorRegistry {
 public:
  // The process-wide registry, with every built-in operator registered on first use.
  static OperatorRegistry& Get();

  // Adds a schema; throws if the name is taken. Returns it so factories can be attached.
  OpSchema& Register(OpSchema schema);
  // nullptr when unknown.
  const OpSchema* Find(const std::string& name) const;
  // For backends registered after the schema (the CUDA backend attaches "gpu"/"mixed" factories
  // to schemas the CPU operators declared). Only during RegisterAllOperators.
  OpSchema* FindMutable(const std::string& name);
  // Throws sluice::Error "unknown operator 'x' (did you mean 'y'?)".
  const OpSchema& GetSchema(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  OperatorRegistry() = default;
  std::map<std::string, OpSchema> schemas_;
};

// Registration functions, one per operator family; register_all.cc calls each once. An explicit
// list rather than static initializers so that linking the static library keeps every operator.
void RegisterAllOperators(OperatorRegistry& r);

}  // namespace sluice
