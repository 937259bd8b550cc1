// Operator libraries for sluice.plugin_manager.load_library: sluice/operator_library.h.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/operator_library.h>

#include "bindings.h"

namespace sluice::python {

void BindOperatorLibrary(nb::module_& m) {
  m.def("load_operator_library", &LoadOperatorLibrary, nb::arg("path"), nb::arg("global_symbols") = false,
        nb::call_guard<nb::gil_scoped_release>(),
        "Loads a shared library of operators (sluice/operator_library.h) and returns the names it registered.");
}

}  // namespace sluice::python
