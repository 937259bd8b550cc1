#include "operators/registry.h"

#include "operators/operator_library.h"

#include <atomic>
#include <mutex>

#include <sluice/error.h>

namespace sluice {

namespace {
using PendingList = std::vector<std::pair<RegistrationFn, RegistrationPhase>>;
// Registration functions queued by the registrars, in the order the linker ran them.
PendingList& Pending() {
  static PendingList pending;
  return pending;
}
// Those queued after the registry was built (an operator library being loaded), and the lock they
// take: a library's initialisers run on the loading thread while pipelines may look up schemas.
std::mutex& LateMutex() {
  static std::mutex mu;
  return mu;
}
PendingList& Late() {
  static PendingList late;
  return late;
}
std::atomic<bool>& Built() {
  static std::atomic<bool> built{false};
  return built;
}
}  // namespace

OperatorRegistrar::OperatorRegistrar(RegistrationFn fn, RegistrationPhase phase) {
  if (!Built().load(std::memory_order_acquire)) {
    Pending().emplace_back(fn, phase);  // static initialisation of the host: single-threaded
    return;
  }
  std::lock_guard<std::mutex> lock(LateMutex());
  Late().emplace_back(fn, phase);
}

std::vector<std::string> OperatorRegistry::RunLateRegistrations() {
  PendingList late;
  {
    std::lock_guard<std::mutex> lock(LateMutex());
    late.swap(Late());
  }
  // Run against a scratch registry first, so that a failing library registers nothing.
  OperatorRegistry scratch;
  for (RegistrationPhase phase : {RegistrationPhase::kOperators, RegistrationPhase::kBackends})
    for (const auto& [fn, p] : late)
      if (p == phase) fn(scratch);
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, schema] : scratch.schemas_)
    if (schemas_.count(name)) throw Error("operator '" + name + "' is already registered");
  for (auto& [name, schema] : scratch.schemas_) {
    names.push_back(name);
    schemas_.emplace(name, std::move(schema));
  }
  return names;
}

void OperatorRegistry::DiscardLateRegistrations() {
  std::lock_guard<std::mutex> lock(LateMutex());
  Late().clear();
}


OperatorRegistry& OperatorRegistry::Get() {
  static OperatorRegistry* r = [] {
    auto* reg = new OperatorRegistry();
    for (RegistrationPhase phase : {RegistrationPhase::kOperators, RegistrationPhase::kBackends})
      for (const auto& [fn, p] : Pending())
        if (p == phase) fn(*reg);
    Built().store(true, std::memory_order_release);
    return reg;
  }();
  return *r;
}

OpSchema& OperatorRegistry::Register(OpSchema schema) {
  std::string name = schema.name();
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = schemas_.emplace(name, std::move(schema));
  if (!inserted) throw Error("operator '" + name + "' is registered twice");
  return it->second;
}

const OpSchema* OperatorRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = schemas_.find(name);
  return it == schemas_.end() ? nullptr : &it->second;
}

OpSchema* OperatorRegistry::FindMutable(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [n, s] : schemas_) out.push_back(n);
  return out;
}

int OperatorLibraryInterface() { return detail::InterfaceFingerprint(); }

}  // namespace sluice
