#include "operators/image/roi_rule.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <variant>

#include "operators/registry.h"

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
    if (colon == std::string::npos) throw Error("malformed ROI rule entry");
    const size_t n = std::strtoull(s_.c_str() + pos_, nullptr, 10);
    if (colon + 1 + n > s_.size()) throw Error("malformed ROI rule entry");
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
  if (t.empty()) throw Error("malformed ROI rule value");
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
    default: throw Error("malformed ROI rule value");
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

RoiRule::RoiRule(const std::vector<std::string>& chain, const std::string& op_name, const std::string& arg) {
  auto fail = [&](const std::string& msg) {
    Error::Context c;
    c.op = op_name;
    c.argument = arg;
    return Error(msg, c);
  };
  for (const auto& entry : chain) {
    OpSpec spec;
    try {
      spec = DecodeSpec(entry);
    } catch (const Error& e) {
      throw fail(e.message());
    }
    const OpSchema* schema = OperatorRegistry::Get().Find(spec.op);
    std::shared_ptr<const RegionMap> map = schema && schema->input_region() ? schema->input_region()(spec) : nullptr;
    if (!map) throw fail("operator '" + spec.op + "' has no input region for these arguments");
    maps_.push_back(std::move(map));
  }
}

kernels::CropWindow RoiRule::Window(int full_h, int full_w) const {
  const kernels::CropWindow whole{0, 0, full_w, full_h};
  try {
    std::vector<std::array<int, 2>> in_sizes;  // input extents of each map
    std::array<int, 2> size{full_h, full_w};
    for (const auto& m : maps_) {
      in_sizes.push_back(size);
      size = m->OutputSize(size[0], size[1]);
      if (size[0] <= 0 || size[1] <= 0) return whole;
    }
    kernels::CropWindow need{0, 0, size[1], size[0]};  // the last output is needed whole
    for (size_t k = maps_.size(); k-- > 0;) {
      need = maps_[k]->InputWindow(in_sizes[k][0], in_sizes[k][1], need);
      if (need.w <= 0 || need.h <= 0) return whole;
    }
    return kernels::ClampToImage(need, full_h, full_w);
  } catch (const Error&) {
    return whole;  // e.g. a size rule that rejects these extents: the operators will say so
  }
}

}  // namespace sluice
