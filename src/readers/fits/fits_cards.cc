#include "readers/fits/fits_cards.h"

#include <charconv>
#include <cstdlib>

namespace sluice {
namespace {

// The value field of "KEY     = value / comment" (strings keep their quotes, comment removed).
std::optional<std::string_view> ValueField(std::string_view card) {
  if (card.size() < 10 || card[8] != '=' || card[9] != ' ') return std::nullopt;
  std::string_view val = card.substr(10);
  while (!val.empty() && val.front() == ' ') val.remove_prefix(1);
  if (!val.empty() && val.front() == '\'') {
    size_t i = 1;
    for (; i < val.size(); ++i) {
      if (val[i] != '\'') continue;
      if (i + 1 < val.size() && val[i + 1] == '\'') {  // '' is a quote inside the string
        ++i;
        continue;
      }
      return val.substr(0, i + 1);
    }
    return std::nullopt;  // no closing quote
  }
  const size_t slash = val.find('/');
  if (slash != std::string_view::npos) val = val.substr(0, slash);
  while (!val.empty() && val.back() == ' ') val.remove_suffix(1);
  return val;
}

}  // namespace

bool FitsCardInt(std::string_view card, int64_t* v) {
  const auto val = ValueField(card);
  if (!val || val->empty()) return false;
  std::string_view s = *val;
  if (s.front() == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool FitsCardReal(std::string_view card, double* v) {
  const auto val = ValueField(card);
  if (!val || val->empty() || val->size() > 70 || val->front() == '\'') return false;
  std::string s(*val);
  for (char& c : s) {
    if (c == 'D' || c == 'd') c = 'E';
    const bool ok = (c >= '0' && c <= '9') || c == '.' || c == 'E' || c == 'e' || c == '+' || c == '-';
    if (!ok) return false;
  }
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::optional<std::string> FitsCardString(std::string_view card) {
  const auto val = ValueField(card);
  if (!val || val->size() < 2 || val->front() != '\'') return std::nullopt;
  std::string out;
  for (size_t i = 1; i + 1 < val->size(); ++i) {
    out += (*val)[i];
    if ((*val)[i] == '\'') ++i;  // '' -> '
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::optional<bool> FitsCardLogical(std::string_view card) {
  const auto val = ValueField(card);
  if (!val || val->size() != 1) return std::nullopt;
  if ((*val)[0] == 'T') return true;
  if ((*val)[0] == 'F') return false;
  return std::nullopt;
}

bool FitsCardWellFormed(std::string_view card) {
  if (card.size() < 10 || card[8] != '=' || card[9] != ' ') return true;  // commentary, no value
  const auto val = ValueField(card);
  if (!val) return false;
  if (val->empty()) return true;  // an undefined value
  int64_t i = 0;
  double d = 0;
  return FitsCardString(card) || FitsCardLogical(card) || FitsCardInt(card, &i) || FitsCardReal(card, &d);
}

}  // namespace sluice
