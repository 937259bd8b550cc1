// Argument values between Python and sluice::Value (see bindings.h for the (kind, value) form).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/error.h>

#include "bindings.h"

namespace sluice::python {

Value ValueFromPython(const std::string& kind, nb::handle v) {
  if (kind == "bool") return nb::cast<bool>(v);
  if (kind == "int") return nb::cast<int64_t>(v);
  if (kind == "float") return nb::cast<double>(v);
  if (kind == "str") return nb::cast<std::string>(v);
  if (kind == "ints") return nb::cast<std::vector<int64_t>>(v);
  if (kind == "floats") return nb::cast<std::vector<double>>(v);
  if (kind == "strs") return nb::cast<std::vector<std::string>>(v);
  throw Error("internal: unknown argument kind '" + kind + "'");
}

nb::object ValueToPython(const Value& v) {
  return std::visit([](const auto& x) -> nb::object { return nb::cast(x); }, v);
}

}  // namespace sluice::python
