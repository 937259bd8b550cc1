// The operator registry: names -> schemas (with their factories).
#pragma once
#include <map>
#include <mutex>
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
  // to schemas the CPU operators declared). Only during registration.
  OpSchema* FindMutable(const std::string& name);
  // Throws sluice::Error "unknown operator 'x' (did you mean 'y'?)".
  const OpSchema& GetSchema(const std::string& name) const;
  std::vector<std::string> Names() const;

  // Operator libraries (api/operator_library.cc): registrars that run after the registry was built
  // (a shared object's static initialisers, during dlopen) are held back; the loader then runs them
  // (RunLateRegistrations: returns the names they registered; throws, registering nothing, when one
  // fails, e.g. a name already taken) or drops them (DiscardLateRegistrations: the library is
  // refused). Not concurrent with each other; Find/Names may run meanwhile (schemas_ is guarded and
  // its nodes never move, so a found schema stays valid).
  std::vector<std::string> RunLateRegistrations();
  void DiscardLateRegistrations();

 private:
  OperatorRegistry() = default;
  mutable std::mutex mu_;  // guards schemas_ (registration after start-up: operator libraries)
  std::map<std::string, OpSchema> schemas_;
};

// Self-registration. A file defines its operators with
//     SLUICE_REGISTER_OPERATORS(RegisterResize) { r.Register(OpSchema("resize")...); }
// and a backend that attaches factories to schemas declared elsewhere (the CUDA "gpu"/"mixed"
// implementations) with SLUICE_REGISTER_BACKENDS, which runs after every operator is registered.
// The registrars only queue the functions (at static initialisation, touching nothing else); the
// registry runs them on its first use. Adding an operator edits no central list. The libraries
// holding operators are linked whole-archive (CMakeLists.txt), so no registrar is dropped.
using RegistrationFn = void (*)(OperatorRegistry&);
enum class RegistrationPhase { kOperators, kBackends };
struct OperatorRegistrar {
  OperatorRegistrar(RegistrationFn fn, RegistrationPhase phase);
};

#define SLUICE_REGISTER_IMPL_(fn, phase)                                          \
  static void fn(::sluice::OperatorRegistry& r);                                  \
  [[maybe_unused]] static const ::sluice::OperatorRegistrar fn##_registrar_(fn, phase); \
  static void fn(::sluice::OperatorRegistry& r)
#define SLUICE_REGISTER_OPERATORS(fn) SLUICE_REGISTER_IMPL_(fn, ::sluice::RegistrationPhase::kOperators)
#define SLUICE_REGISTER_BACKENDS(fn) SLUICE_REGISTER_IMPL_(fn, ::sluice::RegistrationPhase::kBackends)

}  // namespace sluice
