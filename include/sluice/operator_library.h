// Operator libraries: shared objects of operators written outside Sluice (built against its
// installed headers with find_package(Sluice)'s sluice::operator_library target; writing one:
// docs/custom-operators.md) and loaded at run time, after which their operators are used like the
// built-in ones (pipelines, the schemas, sluice.fn / sluice.ops). Part of the public API.
#pragma once
#include <string>
#include <vector>

namespace sluice {

// Loads the library at `path` and registers its operators; returns their names (a library loaded
// before: the names it registered then). Load libraries before building the pipelines that use
// them, one at a time. Throws sluice::Error naming the path when the file cannot be loaded (the
// dynamic loader's message), is not an operator library (no SLUICE_OPERATOR_LIBRARY()), was built
// against other Sluice headers or another configuration, or registers a name already taken; a
// refused library registers nothing.
// With global_symbols the library's own symbols are made visible to libraries loaded after it
// (RTLD_GLOBAL: one library of operators using another's).
std::vector<std::string> LoadOperatorLibrary(const std::string& path, bool global_symbols = false);

}  // namespace sluice
