#include "pipeline/checkpoint.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <sluice/error.h>

namespace sluice {
namespace {

constexpr std::string_view kVersionLine = "sluice-checkpoint 2";
constexpr std::string_view kAnyVersion = "sluice-checkpoint ";

[[noreturn]] void Invalid(const std::string& why) { throw Error("invalid checkpoint: " + why); }

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

bool IsKey(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!IsKeyChar(c)) return false;
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <typename T>
T Number(std::string_view key, const std::string& v, int line) {
  T x{};
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size())
    Invalid("line " + std::to_string(line) + ": '" + std::string(key) + "' must be a number, got '" + v + "'");
  return x;
}

// The text as lines (without their "\n"); the last line must be terminated too.
class Lines {
 public:
  explicit Lines(std::string_view s) : s_(s) {}
  bool Next(std::string_view* line) {
    if (pos_ == s_.size()) return false;
    const size_t end = s_.find('\n', pos_);
    if (end == std::string_view::npos) Invalid("truncated: line " + std::to_string(number_ + 1) + " has no end");
    *line = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  int number_ = 0;
};

}  // namespace

std::string EscapeCheckpointValue(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size());
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    else out += ch;
  }
  return out;
}

std::string UnescapeCheckpointValue(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) throw Error("raw control byte " + std::to_string(c) + " in a value (escape it)");
    if (c != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) throw Error("a value ends with an unfinished escape '\\'");
    switch (text[i]) {
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'x': {
        const int hi = i + 1 < text.size() ? HexDigit(text[i + 1]) : -1;
        const int lo = i + 2 < text.size() ? HexDigit(text[i + 2]) : -1;
        if (hi < 0 || lo < 0) throw Error("escape '\\x' needs two hex digits");
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        break;
      }
      default:
        throw Error("unknown escape '\\" + std::string(1, text[i]) + "'");
    }
  }
  return out;
}

std::string PipelineCheckpoint::Serialize() const {
  std::string out(kVersionLine);
  out += "\niteration=" + std::to_string(iteration) + "\nseed=" + std::to_string(seed) + "\n";
  out += "external=" + EscapeCheckpointValue(external_data) + "\n";
  for (const auto& [name, state] : operators) {
    out += '[';  // appended piecewise: GCC 12's -Wrestrict misfires on "[" + std::string
    out += EscapeCheckpointValue(name);
    out += "]\n";
    for (const auto& [key, value] : state) {
      if (!IsKey(key)) throw Error("operator '" + name + "' has a state key '" + key + "' outside [A-Za-z0-9_.-]+");
      out += key + "=" + EscapeCheckpointValue(value) + "\n";
    }
  }
  out += "end\n";
  return out;
}

PipelineCheckpoint PipelineCheckpoint::Parse(const std::string& text) {
  if (text.compare(0, kAnyVersion.size(), kAnyVersion) != 0) throw Error("not a Sluice checkpoint");
  Lines lines(text);
  std::string_view line;
  lines.Next(&line);
  if (line != kVersionLine)
    Invalid("unsupported version line '" + std::string(line.substr(0, 40)) + "' (expected '" +
            std::string(kVersionLine) + "')");
  auto unescape = [&](std::string_view v) {
    try {
      return UnescapeCheckpointValue(std::string(v));
    } catch (const Error& e) {
      Invalid("line " + std::to_string(lines.number()) + ": " + e.message());
    }
  };
  PipelineCheckpoint cp;
  // The header keys, in order.
  for (std::string_view key : {"iteration", "seed", "external"}) {
    if (!lines.Next(&line)) Invalid("truncated: key '" + std::string(key) + "' is missing");
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || line.substr(0, eq) != key)
      Invalid("line " + std::to_string(lines.number()) + ": expected key '" + std::string(key) + "', got '" +
              std::string(line.substr(0, std::min<size_t>(eq, 40))) + "'");
    const std::string value = unescape(line.substr(eq + 1));
    if (key == "iteration") {
      cp.iteration = Number<int64_t>(key, value, lines.number());
      if (cp.iteration < 0) Invalid("line " + std::to_string(lines.number()) + ": negative iteration");
    } else if (key == "seed") {
      cp.seed = Number<uint64_t>(key, value, lines.number());
    } else {
      cp.external_data = value;
    }
  }
  StateMap* section = nullptr;
  std::string section_name;
  while (lines.Next(&line)) {
    const std::string where = "line " + std::to_string(lines.number()) + ": ";
    if (line == "end") {
      if (lines.Next(&line)) Invalid("line " + std::to_string(lines.number()) + ": data after 'end'");
      return cp;
    }
    if (!line.empty() && line.front() == '[') {
      if (line.size() < 2 || line.back() != ']') Invalid(where + "a section line must end with ']'");
      section_name = unescape(line.substr(1, line.size() - 2));
      auto [it, added] = cp.operators.emplace(section_name, StateMap{});
      if (!added) Invalid(where + "operator '" + section_name + "' appears twice");
      section = &it->second;
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) Invalid(where + "expected 'key=value', '[operator]' or 'end'");
    const std::string key(line.substr(0, eq));
    if (!IsKey(key)) Invalid(where + "bad key '" + key.substr(0, 40) + "' (keys are [A-Za-z0-9_.-]+)");
    if (!section) Invalid(where + "unknown key '" + key + "' before the first operator section");
    if (!section->emplace(key, unescape(line.substr(eq + 1))).second)
      Invalid(where + "key '" + key + "' appears twice in the state of '" + section_name + "'");
  }
  Invalid("truncated: no 'end' line");
}

}  // namespace sluice
