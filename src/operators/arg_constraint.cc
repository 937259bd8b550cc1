// Argument constraints: ranges, enumerations, list lengths and layout strings, checked where the
// user writes the call (ValidateSpec) so that operators and kernels can assume valid arguments.
#include <cmath>
#include <set>

#include <sluice/error.h>

#include "operators/schema.h"

namespace sluice {
namespace {

std::string Num(double x) { return ValueToString(Value(x)); }

std::string Quoted(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", '" : "'") + v[i] + "'";
  return out;
}

std::string RangeText(const ArgConstraint& c) {
  if (c.lo && c.hi) return "in " + std::string(c.lo_open ? "(" : "[") + Num(*c.lo) + ", " + Num(*c.hi) + (c.hi_open ? ")" : "]");
  if (c.lo) return std::string(c.lo_open ? "> " : ">= ") + Num(*c.lo);
  if (c.hi) return std::string(c.hi_open ? "< " : "<= ") + Num(*c.hi);
  return "";
}

void CheckString(const ArgConstraint& c, const std::string& s) {
  if (!c.choices.empty()) {
    for (const auto& x : c.choices)
      if (x == s) return;
    std::string msg = "expected one of " + Quoted(c.choices) + ", got '" + s + "'";
    const std::string hint = Suggest(s, c.choices);
    if (!hint.empty()) msg += " (did you mean '" + hint + "'?)";
    throw Error(msg);
  }
  if (c.layout) {
    // Letters, each once. Upper case names image and video axes (HWC, FCHW); DALI's audio layouts
    // are lower case ("t", "ft": time and frequency), and 'f' is not 'F' (frames).
    std::set<char> seen;
    for (char ch : s)
      if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) || !seen.insert(ch).second)
        throw Error("expected a layout of distinct letters (e.g. 'HWC', 'ft'), got '" + s + "'");
  }
}

void CheckCount(const ArgConstraint& c, size_t n) {
  if (c.counts.empty()) return;
  for (int k : c.counts)
    if (static_cast<size_t>(k) == n) return;
  std::string allowed;
  for (size_t i = 0; i < c.counts.size(); ++i) allowed += (i ? " or " : "") + std::to_string(c.counts[i]);
  throw Error("expected " + allowed + " value(s), got " + std::to_string(n));
}

}  // namespace

std::string ArgSchema::ConstraintText() const {
  const ArgConstraint& c = constraint;
  std::string out = RangeText(c);
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (!c.choices.empty()) add("one of " + Quoted(c.choices));
  if (c.layout) add("a layout string");
  if (!c.counts.empty()) {
    std::string n;
    for (size_t i = 0; i < c.counts.size(); ++i) n += (i ? " or " : "") + std::to_string(c.counts[i]);
    add(n + " value(s)");
  }
  return out;
}

void CheckArgNumber(const ArgSchema& a, double x) {
  const ArgConstraint& c = a.constraint;
  const bool ok = !std::isnan(x) && (!c.lo || (c.lo_open ? x > *c.lo : x >= *c.lo)) &&
                  (!c.hi || (c.hi_open ? x < *c.hi : x <= *c.hi));
  if (!ok) throw Error("expected a value " + RangeText(c) + ", got " + Num(x));
}

Value CheckArgValue(const ArgSchema& a, const Value& given) {
  const ArgConstraint& c = a.constraint;
  Value v = given;
  // DALI's integer enums: an integer names choices[i].
  if (c.int_aliases && a.type == ArgType::kString) {
    if (const auto* i = std::get_if<int64_t>(&given)) {
      if (*i < 0 || *i >= static_cast<int64_t>(c.choices.size()))
        throw Error("expected one of " + Quoted(c.choices) + " or an integer 0.." + std::to_string(c.choices.size() - 1) +
                    ", got " + std::to_string(*i));
      v = c.choices[static_cast<size_t>(*i)];
    }
  }
  // DALI's bool-or-string enums (enable_frame_num: False/"none", True/"scalar", "sequence"): a string
  // argument whose choices begin "none", "scalar" takes a bool for those two.
  if (a.type == ArgType::kString && c.choices.size() >= 2 && c.choices[0] == "none" && c.choices[1] == "scalar")
    if (const auto* b = std::get_if<bool>(&given)) v = c.choices[*b ? 1 : 0];
  v = CoerceValue(v, a.type);
  if (c.empty()) return v;
  std::visit([&](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
      CheckArgNumber(a, static_cast<double>(x));
    } else if constexpr (std::is_same_v<T, std::string>) {
      CheckString(c, x);
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>) {
      CheckCount(c, x.size());
      for (auto e : x) CheckArgNumber(a, static_cast<double>(e));
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      CheckCount(c, x.size());
      for (const auto& e : x) CheckString(c, e);
    }
  }, v);
  return v;
}

bool ArgView::Given(const std::string& name) const {
  return spec_.args.count(name) > 0 || spec_.arg_inputs.count(name) > 0;
}

const Value* ArgView::Get(const std::string& name) const {
  if (spec_.arg_inputs.count(name)) return nullptr;
  if (auto it = spec_.args.find(name); it != spec_.args.end()) return &it->second;
  const ArgSchema* a = schema_.FindArg(name);
  return a && a->default_value ? &*a->default_value : nullptr;
}

std::vector<double> ArgView::Numbers(const std::string& name) const {
  const Value* v = Get(name);
  if (!v) return {};
  if (const auto* i = std::get_if<int64_t>(v)) return {static_cast<double>(*i)};
  if (const auto* d = std::get_if<double>(v)) return {*d};
  if (const auto* l = std::get_if<std::vector<int64_t>>(v)) return {l->begin(), l->end()};
  if (const auto* l = std::get_if<std::vector<double>>(v)) return *l;
  return {};
}

std::string ArgView::String(const std::string& name) const {
  const Value* v = Get(name);
  const auto* s = v ? std::get_if<std::string>(v) : nullptr;
  return s ? *s : std::string();
}

}  // namespace sluice
