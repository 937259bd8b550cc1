#include "operators/op_spec_encoding.h"

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <variant>

#include <sluice/error.h>

namespace sluice {
namespace {

// Tokens are "<length>:<bytes>", so any bytes survive.
void PutToken(std::string& out, const std::string& s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

std::string Hex(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", d);
  return buf;
}

class TokenReader {
 public:
  explicit TokenReader(const std::string& s) : s_(s) {}
  bool done() const { return pos_ >= s_.size(); }
  std::string Next() {
    const size_t colon = s_.find(':', pos_);
    if (colon == std::string::npos) throw Error("malformed encoded operator spec");
    const size_t n = std::strtoull(s_.c_str() + pos_, nullptr, 10);
    if (colon + 1 + n > s_.size()) throw Error("malformed encoded operator spec");
    std::string t = s_.substr(colon + 1, n);
    pos_ = colon + 1 + n;
    return t;
  }

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

std::string EncodeValue(const Value& v) {
  std::string out;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) out = x ? "b1" : "b0";
        else if constexpr (std::is_same_v<T, int64_t>) out = "i" + std::to_string(x);
        else if constexpr (std::is_same_v<T, double>) out = "d" + Hex(x);
        else if constexpr (std::is_same_v<T, std::string>) out = "s" + x;
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) { out = "I"; for (auto e : x) PutToken(out, std::to_string(e)); }
        else if constexpr (std::is_same_v<T, std::vector<double>>) { out = "D"; for (auto e : x) PutToken(out, Hex(e)); }
        else { out = "S"; for (const auto& e : x) PutToken(out, e); }
      },
      v);
  return out;
}

Value DecodeValue(const std::string& t) {
  if (t.empty()) throw Error("malformed encoded argument value");
  const std::string body = t.substr(1);
  auto list = [&](auto parse) {
    std::vector<decltype(parse(std::string()))> v;
    TokenReader r(body);
    while (!r.done()) v.push_back(parse(r.Next()));
    return v;
  };
  auto to_int = [](const std::string& s) { return static_cast<int64_t>(std::strtoll(s.c_str(), nullptr, 10)); };
  auto to_double = [](const std::string& s) { return std::strtod(s.c_str(), nullptr); };
  switch (t[0]) {
    case 'b': return body == "1";
    case 'i': return to_int(body);
    case 'd': return to_double(body);
    case 's': return body;
    case 'I': return list(to_int);
    case 'D': return list(to_double);
    case 'S': return list([](const std::string& s) { return s; });
    default: throw Error("malformed encoded argument value");
  }
}

}  // namespace

std::string EncodeSpec(const OpSpec& spec) {
  std::string out;
  PutToken(out, spec.op);
  for (const auto& [name, value] : spec.args) {
    PutToken(out, name);
    PutToken(out, EncodeValue(value));
  }
  return out;
}

OpSpec DecodeSpec(const std::string& text) {
  OpSpec spec;
  TokenReader r(text);
  spec.op = r.Next();
  spec.name = spec.op;
  while (!r.done()) {
    std::string name = r.Next();
    spec.args[name] = DecodeValue(r.Next());
  }
  return spec;
}

}  // namespace sluice
