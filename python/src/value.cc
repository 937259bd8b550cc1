// Argument values between Python and sluice::Value, by the Python value's type (the schema then
// coerces or rejects it, in C++, exactly as for the C++ API).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/error.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bindings.h"

namespace sluice::python {
namespace {

std::string TypeName(nb::handle v) { return nb::cast<std::string>(nb::type_name(v.type())); }

[[noreturn]] void Unsupported(nb::handle v) {
  throw Error("expected a bool, int, float, str, a list of ints, floats or strs, or a NumPy array or scalar, got " +
              nb::cast<std::string>(nb::repr(v)) + " (a " + TypeName(v) + ")");
}

// NumPy scalars and arrays (anything with a dtype and tolist()) become the equivalent Python values.
bool IsArrayLike(nb::handle v) { return nb::hasattr(v, "dtype") && nb::hasattr(v, "tolist"); }

// An array's elements as Python values: a 0-d array or NumPy scalar gives a scalar, any other array
// a flat list in C order. DALI takes N-d arrays where an argument is a tensor (multi_paste's
// in_anchors as [K, 2], ...); Sluice's list arguments hold that tensor's elements flat.
nb::object ArrayToPython(nb::handle v) {
  if (nb::hasattr(v, "ndim") && nb::hasattr(v, "reshape") && nb::cast<int64_t>(v.attr("ndim")) >= 2)
    return v.attr("reshape")(-1).attr("tolist")();
  return v.attr("tolist")();
}

// A scalar: bool, int (as int64), float, str; NumPy scalars and 0-d arrays likewise.
std::optional<Value> ScalarFromPython(nb::handle v) {
  PyObject* p = v.ptr();
  if (PyBool_Check(p)) return Value(p == Py_True);
  if (PyLong_Check(p)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) throw Error("integer " + nb::cast<std::string>(nb::repr(v)) + " does not fit in 64 bits");
    return Value(static_cast<int64_t>(x));
  }
  if (PyFloat_Check(p)) return Value(PyFloat_AsDouble(p));
  if (PyUnicode_Check(p)) return Value(nb::cast<std::string>(v));
  return std::nullopt;
}

Value ListFromPython(nb::handle seq, nb::handle original, std::optional<ArgType> empty_as) {
  std::vector<Value> items;
  for (nb::handle item : seq) {
    nb::object x = nb::borrow(item);
    if (!ScalarFromPython(x) && IsArrayLike(x)) x = ArrayToPython(x);  // a NumPy scalar or 0-d array
    std::optional<Value> s = ScalarFromPython(x);
    if (!s) Unsupported(original);
    items.push_back(std::move(*s));
  }
  if (items.empty()) {
    if (empty_as == ArgType::kFloatList) return std::vector<double>{};
    if (empty_as == ArgType::kStringList) return std::vector<std::string>{};
    return std::vector<int64_t>{};
  }
  bool any_str = false, any_float = false, any_number = false;
  for (const Value& s : items) {
    any_str |= std::holds_alternative<std::string>(s);
    any_float |= std::holds_alternative<double>(s);
    any_number |= !std::holds_alternative<std::string>(s);
  }
  if (any_str && any_number) Unsupported(original);
  if (any_str) {
    std::vector<std::string> out;
    for (Value& s : items) out.push_back(std::move(std::get<std::string>(s)));
    return out;
  }
  auto as_int = [](const Value& s) {
    if (const bool* b = std::get_if<bool>(&s)) return int64_t{*b};
    return std::get<int64_t>(s);
  };
  if (any_float) {
    std::vector<double> out;
    for (const Value& s : items)
      out.push_back(std::holds_alternative<double>(s) ? std::get<double>(s) : static_cast<double>(as_int(s)));
    return out;
  }
  std::vector<int64_t> out;
  for (const Value& s : items) out.push_back(as_int(s));
  return out;
}

}  // namespace

Value ValueFromPython(nb::handle v, std::optional<ArgType> empty_list_as) {
  if (std::optional<Value> s = ScalarFromPython(v)) return *s;
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr())) return ListFromPython(v, v, empty_list_as);
  if (IsArrayLike(v)) {
    nb::object py = ArrayToPython(v);  // a 0-d array or NumPy scalar: a scalar; else a flat list
    if (std::optional<Value> s = ScalarFromPython(py)) return *s;
    if (PyList_Check(py.ptr())) return ListFromPython(py, v, empty_list_as);
  }
  Unsupported(v);
}

nb::object ValueToPython(const Value& v) {
  return std::visit([](const auto& x) -> nb::object { return nb::cast(x); }, v);
}

}  // namespace sluice::python
