#include "operators/registry.h"

#include <mutex>

#include <sluice/error.h>

namespace sluice {

namespace {
// Registration functions queued by the registrars, in the order the linker ran them.
std::vector<std::pair<RegistrationFn, RegistrationPhase>>& Pending() {
  static std::vector<std::pair<RegistrationFn, RegistrationPhase>> pending;
  return pending;
}
}  // namespace

OperatorRegistrar::OperatorRegistrar(RegistrationFn fn, RegistrationPhase phase) { Pending().emplace_back(fn, phase); }

OperatorRegistry& OperatorRegistry::Get() {
  static OperatorRegistry* r = [] {
    auto* reg = new OperatorRegistry();
    for (RegistrationPhase phase : {RegistrationPhase::kOperators, RegistrationPhase::kBackends})
      for (const auto& [fn, p] : Pending())
        if (p == phase) fn(*reg);
    return reg;
  }();
  return *r;
}

OpSchema& OperatorRegistry::Register(OpSchema schema) {
  std::string name = schema.name();
  auto [it, inserted] = schemas_.emplace(name, std::move(schema));
  if (!inserted) throw Error("operator '" + name + "' is registered twice");
  return it->second;
}

const OpSchema* OperatorRegistry::Find(const std::string& name) const {
  auto it = schemas_.find(name);
  return it == schemas_.end() ? nullptr : &it->second;
}

OpSchema* OperatorRegistry::FindMutable(const std::string& name) {
  auto it = schemas_.find(name);
  return it == schemas_.end() ? nullptr : &it->second;
}

const OpSchema& OperatorRegistry::GetSchema(const std::string& name) const {
  if (const OpSchema* s = Find(name)) return *s;
  std::string msg = "unknown operator '" + name + "'";
  std::string hint = Suggest(name, Names());
  if (!hint.empty()) msg += " (did you mean '" + hint + "'?)";
  throw Error(msg);
}

std::vector<std::string> OperatorRegistry::Names() const {
  std::vector<std::string> out;
  for (const auto& [n, s] : schemas_) out.push_back(n);
  return out;
}

}  // namespace sluice
