// Schema introspection: ListOperators() and GetOperatorInfo(name), from which the package
// generates `fn` and `ops`; and ValidateOperator, which checks each fn/ops call where it is made.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/pipeline.h>

#include "bindings.h"

namespace sluice::python {
namespace {

std::optional<ArgType> SchemaType(const std::string& op, const std::string& arg) {
  try {
    for (const ArgumentInfo& a : GetOperatorInfo(op).arguments)
      if (a.name == arg) return a.type;
  } catch (const Error&) {  // an unknown operator: ValidateOperator says so
  }
  return std::nullopt;
}

// An empty list, tuple or array: it has no element type, so the schema's list type is used.
bool IsEmptySequence(nb::handle v) {
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr())) return nb::len(v) == 0;
  return nb::hasattr(v, "dtype") && nb::hasattr(v, "size") && nb::hasattr(v, "ndim") &&
         nb::cast<int64_t>(v.attr("ndim")) == 1 && nb::cast<int64_t>(v.attr("size")) == 0;
}

// The call as the user wrote it -> sluice::ValidateOperator, which runs exactly what
// Pipeline::AddOperator runs. `inputs` and `arg_inputs` name the edges (any names: only their
// count and arguments matter here); `args` maps argument names to Python values.
OperatorDef Validate(std::string op, std::string name, std::string device, std::vector<std::string> inputs,
                     std::map<std::string, std::string> arg_inputs, nb::dict args) {
  OperatorDef def(std::move(op), std::move(device));
  def.name = std::move(name);
  def.inputs = std::move(inputs);
  def.arg_inputs = std::move(arg_inputs);
  for (auto [key, value] : args) {
    const std::string arg = nb::cast<std::string>(key);
    try {
      def.args[arg] = ValueFromPython(value, IsEmptySequence(value) ? SchemaType(def.op, arg) : std::nullopt);
    } catch (const Error& e) {
      const std::optional<ArgType> type = SchemaType(def.op, arg);
      if (!type && arg != "name") {
        def.args[arg] = false;  // an unknown argument: ValidateOperator names it, with a suggestion
        continue;
      }
      Error::Context c;
      c.op = def.name.empty() ? def.op : def.name;
      c.argument = arg;
      // The schema's type when known ("expected float, got {1: 2}"), as CoerceValue words it.
      throw Error(type ? std::string("expected ") + ToString(*type) + ", got " + nb::cast<std::string>(nb::repr(value))
                       : e.message(),
                  c);
    }
  }
  return ValidateOperator(std::move(def));
}

OperatorDef ValidateCall(std::string op, std::string name, std::string device, std::vector<std::string> inputs,
                         std::map<std::string, std::string> arg_inputs, nb::dict args) {
  try {
    return Validate(std::move(op), std::move(name), std::move(device), std::move(inputs), std::move(arg_inputs),
                    args);
  } catch (const Error& e) {
    throw CallError(e);
  }
}

nb::dict ArgsToPython(const OperatorDef& d) {
  nb::dict out;
  for (const auto& [k, v] : d.args) out[nb::cast(k)] = ValueToPython(v);
  return out;
}

}  // namespace

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
      .def_ro("per_sample", &ArgumentInfo::per_sample)
      .def_ro("constraint", &ArgumentInfo::constraint);

  nb::class_<OperatorInfo>(m, "OperatorInfo")
      .def_ro("name", &OperatorInfo::name)
      .def_ro("doc", &OperatorInfo::doc)
      .def_ro("backends", &OperatorInfo::backends)
      .def_ro("min_inputs", &OperatorInfo::min_inputs)
      .def_ro("max_inputs", &OperatorInfo::max_inputs)
      .def_ro("input_names", &OperatorInfo::input_names)
      .def_ro("input_layouts", &OperatorInfo::input_layouts)
      .def_ro("num_outputs", &OperatorInfo::num_outputs)
      .def_ro("arguments", &OperatorInfo::arguments)
      .def_ro("is_random", &OperatorInfo::is_random)
      .def_ro("is_reader", &OperatorInfo::is_reader)
      .def_ro("deprecated_arguments", &OperatorInfo::deprecated_arguments);

  nb::class_<OperatorDef>(m, "OperatorDef",
                          "One operator call, validated and normalised by validate_operator(); "
                          "Pipeline.add_operator() adds it with the pipeline's edge names.")
      .def_ro("op", &OperatorDef::op)
      .def_ro("name", &OperatorDef::name)
      .def_ro("device", &OperatorDef::device)
      .def_ro("inputs", &OperatorDef::inputs)
      .def_ro("arg_inputs", &OperatorDef::arg_inputs)
      .def_prop_ro("args", &ArgsToPython, "The constant arguments, coerced to the schema's types.")
      .def_ro("outputs", &OperatorDef::outputs)
      .def("__repr__", [](const OperatorDef& d) {
        return "OperatorDef(" + d.op + ", name='" + d.name + "', device='" + d.device + "')";
      });

  m.def("validate_operator", &ValidateCall, nb::arg("op"), nb::arg("name"), nb::arg("device"), nb::arg("inputs"),
        nb::arg("arg_inputs"), nb::arg("args"),
        "Checks one operator call against its schema exactly as Pipeline.add_operator does (sluice::"
        "ValidateOperator) and returns it normalised as an OperatorDef; raises SluiceError naming the "
        "operator and the argument (as ArgumentError).");
  m.def("list_operators", &ListOperators);
  m.def("get_operator_info", &GetOperatorInfo, nb::arg("name"));
}

}  // namespace sluice::python
