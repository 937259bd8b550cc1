// Shared declarations of the Python bindings: one Bind* function per bound class (one file each),
// and the two conversions every binding needs. Bindings hold no logic: the package in
// python/sluice/ does the Python-side work; C++ does the rest.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <sluice/dtype.h>
#include <sluice/error.h>
#include <sluice/value.h>

#include <optional>

namespace sluice::python {

namespace nb = nanobind;

// A sluice::Error about an operator call, raised where the call is made (validate_operator): Python
// gets sluice.ArgumentError (a SluiceError and a TypeError) rather than SluiceError.
struct CallError : Error {
  explicit CallError(const Error& e) : Error(e) {}
};

void BindError(nb::module_& m);
void BindOperatorInfo(nb::module_& m);
void BindBatch(nb::module_& m);
void BindStatistics(nb::module_& m);
void BindPipelineOptions(nb::module_& m);
void BindPipeline(nb::module_& m);
void BindWdsIndex(nb::module_& m);
void BindTfRecordIndex(nb::module_& m);
void BindStorage(nb::module_& m);
void BindOperatorLibrary(nb::module_& m);
// python_function (python_function_op.cc): the table of callables its `function` argument names.
void BindPythonFunction(nb::module_& m);

// True on a thread that is inside a python_function call (where a Pipeline must not be destroyed
// in place: its destructor would join the thread).
bool InPythonFunctionCall();

// DLPack element type of a DType, and back (nullopt for types Sluice has no DType for).
nb::dlpack::dtype ToDLPack(DType t);
std::optional<DType> FromDLPack(nb::dlpack::dtype t);

// An argument value from Python, by its Python type: bool, int (int64), float (double), str; a list or
// tuple of ints, of floats (or ints and floats), of strs; NumPy scalars, 0-d and 1-D arrays likewise.
// The schema then coerces or rejects it (ValidateOperator), as for any C++ caller. An empty list
// has no element type: it becomes the list type `empty_list_as` names (default: a list of ints).
// Throws sluice::Error (without context) for other values.
Value ValueFromPython(nb::handle value, std::optional<ArgType> empty_list_as = std::nullopt);
nb::object ValueToPython(const Value& v);

}  // namespace sluice::python
