#include "pipeline/checkpoint.h"

#include <charconv>
#include <string_view>

#include <sluice/error.h>

namespace sluice {
namespace {

constexpr std::string_view kMagic = "sluice-checkpoint 1\n";
constexpr size_t kMaxField = size_t{1} << 30;  // a bound on any length, against garbage

[[noreturn]] void Invalid(const std::string& why) { throw Error("invalid checkpoint: " + why); }

// Reads the text as a sequence of tokens, each followed by one expected separator.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  void Expect(std::string_view literal) {
    if (s_.substr(pos_, literal.size()) != literal)
      Invalid("expected '" + std::string(literal.substr(0, literal.find('\n'))) + "' at byte " + std::to_string(pos_));
    pos_ += literal.size();
  }
  std::string_view Word() {
    const size_t end = s_.find_first_of(" \n", pos_);
    if (end == std::string_view::npos || end == pos_) Invalid("truncated at byte " + std::to_string(pos_));
    std::string_view w = s_.substr(pos_, end - pos_);
    pos_ = end;
    return w;
  }
  template <typename T>
  T Number() {
    const std::string_view w = Word();
    T v{};
    const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size()) Invalid("'" + std::string(w) + "' is not a number");
    return v;
  }
  size_t Length() {
    const auto n = Number<size_t>();
    if (n > kMaxField) Invalid("a field of " + std::to_string(n) + " bytes");
    return n;
  }
  std::string Bytes(size_t n) {
    if (s_.size() - pos_ < n) Invalid("truncated: a field of " + std::to_string(n) + " bytes runs past the end");
    std::string b(s_.substr(pos_, n));
    pos_ += n;
    return b;
  }
  bool AtEnd() const { return pos_ == s_.size(); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::string PipelineCheckpoint::Serialize() const {
  std::string out(kMagic);
  out += "iteration " + std::to_string(iteration) + "\n";
  out += "seed " + std::to_string(seed) + "\n";
  for (const auto& [name, state] : readers) {
    out += "reader " + std::to_string(name.size()) + " " + std::to_string(state.size()) + "\n";
    out += name + state + "\n";
  }
  out += "external " + std::to_string(external_data.size()) + "\n" + external_data + "\n";
  out += "end\n";
  return out;
}

PipelineCheckpoint PipelineCheckpoint::Parse(const std::string& text) {
  if (text.compare(0, kMagic.size(), kMagic) != 0) Invalid("not a Sluice checkpoint (or an unsupported version)");
  Cursor c(text);
  c.Expect(kMagic);
  PipelineCheckpoint cp;
  c.Expect("iteration ");
  cp.iteration = c.Number<int64_t>();
  if (cp.iteration < 0) Invalid("negative iteration");
  c.Expect("\n");
  c.Expect("seed ");
  cp.seed = c.Number<uint64_t>();
  c.Expect("\n");
  for (;;) {
    const std::string_view key = c.Word();
    if (key == "reader") {
      c.Expect(" ");
      const size_t name_len = c.Length();
      c.Expect(" ");
      const size_t state_len = c.Length();
      c.Expect("\n");
      std::string name = c.Bytes(name_len);
      std::string state = c.Bytes(state_len);
      c.Expect("\n");
      if (!cp.readers.emplace(std::move(name), std::move(state)).second) Invalid("a reader appears twice");
    } else if (key == "external") {
      c.Expect(" ");
      const size_t len = c.Length();
      c.Expect("\n");
      cp.external_data = c.Bytes(len);
      c.Expect("\n");
    } else if (key == "end") {
      c.Expect("\n");
      if (!c.AtEnd()) Invalid("data after 'end'");
      return cp;
    } else {
      Invalid("unknown record '" + std::string(key) + "'");
    }
  }
}

}  // namespace sluice
