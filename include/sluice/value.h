// Argument values passed to operators. Part of the stable public API.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace sluice {

// An operator argument. Integers convert to floats, scalars to one-element lists, and strings
// name dtypes and enumerations ("float", "CHW", "RGB") where the schema expects them.
using Value = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                           std::vector<std::string>>;

enum class ArgType { kBool, kInt, kFloat, kString, kIntList, kFloatList, kStringList, kDType };
const char* ToString(ArgType t);
std::string ValueToString(const Value& v);

}  // namespace sluice
