// sluice::LoadOperatorLibrary (sluice/operator_library.h).
//
// An operator library links nothing of Sluice: its undefined references (Operator's methods, the
// registrar, OpSchema's builders) must resolve to the Sluice already in the process. That Sluice is
// usually inside Python's extension module, which Python opens with RTLD_LOCAL, hiding its symbols
// from later libraries; so the loader first re-opens the object that holds Sluice with RTLD_GLOBAL
// (RTLD_NOLOAD: no second copy), then opens the library. (An executable that links Sluice
// statically must export its symbols itself: -rdynamic / ENABLE_EXPORTS.)
#include <sluice/operator_library.h>

#include <dlfcn.h>

#include <map>
#include <mutex>

#include <sluice/error.h>

#include "operators/operator_library.h"
#include "operators/registry.h"

namespace sluice {
namespace {

std::mutex& LoadMutex() {
  static std::mutex mu;
  return mu;
}

// Libraries loaded so far, by path, with the operators they registered.
std::map<std::string, std::vector<std::string>>& Loaded() {
  static auto* loaded = new std::map<std::string, std::vector<std::string>>();
  return *loaded;
}

void ExposeSluiceSymbols() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ExposeSluiceSymbols), &info) == 0 || info.dli_fname == nullptr) return;
  // Raises the object that holds this function to global scope; it stays loaded (a reference is kept).
  dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

std::string LastDlError() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

}  // namespace

std::vector<std::string> LoadOperatorLibrary(const std::string& path, bool global_symbols) {
  std::lock_guard<std::mutex> lock(LoadMutex());
  if (auto it = Loaded().find(path); it != Loaded().end()) return it->second;
  const std::string what = "operator library '" + path + "'";
  ExposeSluiceSymbols();
  OperatorRegistry& registry = OperatorRegistry::Get();  // built now: the library's registrars queue as late ones
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | (global_symbols ? RTLD_GLOBAL : RTLD_LOCAL));
  if (handle == nullptr) {
    registry.DiscardLateRegistrations();
    throw Error("cannot load " + what + ": " + LastDlError());
  }
  auto refuse = [&](const std::string& why) {
    registry.DiscardLateRegistrations();  // before dlclose: they point into the library
    dlclose(handle);
    throw Error(what + " " + why);
  };
  using InterfaceFn = int (*)();
  auto interface = reinterpret_cast<InterfaceFn>(dlsym(handle, "sluice_operator_library_interface"));
  if (interface == nullptr)
    refuse("is not a Sluice operator library: it does not define SLUICE_OPERATOR_LIBRARY() "
           "(operators/operator_library.h)");
  const int theirs = interface(), ours = OperatorLibraryInterface();
  if (theirs != ours)
    refuse("was built against other Sluice headers or another configuration (interface " + std::to_string(theirs) +
           ", this Sluice's is " + std::to_string(ours) + "): rebuild it against this installation with the same "
           "compiler");
  std::vector<std::string> names;
  try {
    names = registry.RunLateRegistrations();
  } catch (const std::exception& e) {
    refuse(std::string("could not register its operators: ") + e.what());
  }
  // The library stays loaded for the life of the process: its operators may be in use anywhere.
  Loaded()[path] = names;
  return names;
}

}  // namespace sluice
