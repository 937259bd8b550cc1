// Writing an operator library: a shared object of operators built outside Sluice against its
// installed headers (find_package(Sluice): the sluice::operator_library target) and loaded at run
// time (C++: sluice::LoadOperatorLibrary, <sluice/operator_library.h>; Python:
// sluice.plugin_manager.load_library, DALI's name). docs/custom-operators.md walks through one.
//
// A library includes this header, says what it is once with SLUICE_OPERATOR_LIBRARY(), and
// registers its operators as Sluice's own do (SLUICE_REGISTER_OPERATORS, operators/registry.h):
//
//   #include <operators/operator_library.h>
//   SLUICE_OPERATOR_LIBRARY()
//   class Invert : public sluice::Operator { ... };
//   SLUICE_REGISTER_OPERATORS(RegisterInvert) { r.Register(sluice::OpSchema("custom.invert")...); }
//
// The library links nothing of Sluice: its references to Sluice's functions are resolved against
// the process's Sluice when it is loaded (the loader makes Sluice's symbols visible to it first).
// So it must be built with the same compiler family, C++ library ABI and Sluice headers as that
// Sluice: the loader compares the fingerprint below and refuses a library built otherwise.
#pragma once
#include <cstddef>

#include "core/tensor_list.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/schema.h"
#include "operators/workspace.h"

namespace sluice {

// Bumped when a shared type changes in a way sizes alone would not show (a virtual function added
// or reordered, a member's meaning changed).
inline constexpr int kOperatorLibraryInterfaceVersion = 1;

namespace detail {
// The interface's fingerprint as this translation unit sees it: the version, the layouts the
// library and the host share, the C++ library's string ABI and whether CUDA is on.
constexpr int InterfaceFingerprint() {
  size_t h = static_cast<size_t>(kOperatorLibraryInterfaceVersion);
  for (size_t v : {sizeof(Operator), sizeof(OpSchema), sizeof(Workspace), sizeof(TensorList), sizeof(OpSpec),
                   sizeof(OutputDesc), sizeof(std::string), alignof(std::max_align_t)})
    h = h * 1000003u + v;
#if defined(_GLIBCXX_USE_CXX11_ABI)
  h = h * 31u + static_cast<size_t>(_GLIBCXX_USE_CXX11_ABI);
#endif
#if defined(SLUICE_WITH_CUDA)
  h = h * 31u + 7u;
#endif
  return static_cast<int>(h & 0x7fffffff);
}
}  // namespace detail

// The host's fingerprint (the loader compares a library's with it).
int OperatorLibraryInterface();

}  // namespace sluice

// Marks the shared object as an operator library (once per library, at namespace scope).
#define SLUICE_OPERATOR_LIBRARY()                                                                \
  extern "C" __attribute__((visibility("default"))) int sluice_operator_library_interface() {  \
    return ::sluice::detail::InterfaceFingerprint();                                             \
  }
