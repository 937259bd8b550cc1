// Schema introspection: ListOperators() and GetOperatorInfo(name), from which the package
// generates `fn` and `ops`.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/pipeline.h>

#include "bindings.h"

namespace sluice::python {

void BindOperatorInfo(nb::module_& m) {
  nb::class_<ArgumentInfo>(m, "ArgumentInfo")
      .def_ro("name", &ArgumentInfo::name)
      .def_prop_ro("type", [](const ArgumentInfo& a) { return std::string(ToString(a.type)); })
      .def_prop_ro("kind", [](const ArgumentInfo& a) { return static_cast<int>(a.type); })
      .def_ro("required", &ArgumentInfo::required)
      .def_prop_ro("default", [](const ArgumentInfo& a) -> nb::object {
        return a.default_value ? ValueToPython(*a.default_value) : nb::none();
      })
      .def_ro("doc", &ArgumentInfo::doc)
      .def_ro("per_sample", &ArgumentInfo::per_sample);

  nb::class_<OperatorInfo>(m, "OperatorInfo")
      .def_ro("name", &OperatorInfo::name)
      .def_ro("doc", &OperatorInfo::doc)
      .def_ro("backends", &OperatorInfo::backends)
      .def_ro("min_inputs", &OperatorInfo::min_inputs)
      .def_ro("max_inputs", &OperatorInfo::max_inputs)
      .def_ro("input_names", &OperatorInfo::input_names)
      .def_ro("num_outputs", &OperatorInfo::num_outputs)
      .def_ro("arguments", &OperatorInfo::arguments)
      .def_ro("is_random", &OperatorInfo::is_random)
      .def_ro("is_reader", &OperatorInfo::is_reader);

  m.def("list_operators", &ListOperators);
  m.def("get_operator_info", &GetOperatorInfo, nb::arg("name"));
}

}  // namespace sluice::python
