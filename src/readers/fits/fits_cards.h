// The header cards of one FITS HDU as Sluice reads them before (or instead of) CFITSIO: a map from
// keyword to its 80-character card, and the parsers of a card's value (FITS standard 4.0, section
// 4.2: integers, reals, logicals, quoted strings). A value that is not of the asked type is "absent"
// (false, nullopt): the caller decides whether that is an error.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

using FitsCards = std::map<std::string, std::string_view, std::less<>>;

bool FitsCardInt(std::string_view card, int64_t* v);
bool FitsCardReal(std::string_view card, double* v);  // an integer or a real (E or D exponent)
std::optional<std::string> FitsCardString(std::string_view card);  // unquoted, trailing blanks removed
std::optional<bool> FitsCardLogical(std::string_view card);
// True when the card has a value of any of the four kinds, or none (a commentary card).
bool FitsCardWellFormed(std::string_view card);

}  // namespace sluice
