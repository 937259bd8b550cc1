// Shared declarations of the Python bindings: one Bind* function per bound class (one file each),
// and the two conversions every binding needs. Bindings hold no logic: the package in
// python/sluice/ does the Python-side work; C++ does the rest.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <sluice/dtype.h>
#include <sluice/value.h>

namespace sluice::python {

namespace nb = nanobind;

void BindError(nb::module_& m);
void BindOperatorInfo(nb::module_& m);
void BindBatch(nb::module_& m);
void BindStatistics(nb::module_& m);
void BindPipeline(nb::module_& m);

// DLPack element type of a DType, and back (nullopt for types Sluice has no DType for).
nb::dlpack::dtype ToDLPack(DType t);
std::optional<DType> FromDLPack(nb::dlpack::dtype t);

// Argument values cross the boundary as (kind, value) pairs that the Python package has already
// normalised against the schema: kind is one of "bool", "int", "float", "str", "ints", "floats",
// "strs". Explicit kinds keep empty lists and int-valued floats unambiguous.
Value ValueFromPython(const std::string& kind, nb::handle value);
nb::object ValueToPython(const Value& v);

}  // namespace sluice::python
