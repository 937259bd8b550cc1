#include "readers/numpy/npy_header.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <sluice/error.h>

namespace sluice {
namespace {

[[noreturn]] void Fail(const std::string& file, const std::string& why) {
  throw Error("invalid .npy header in '" + file + "': " + why);
}

// A tiny reader of the Python literal NumPy writes: a dict of str keys to str, bool and tuple of
// int values.
class Lexer {
 public:
  Lexer(std::string_view s, const std::string& file) : s_(s), file_(file) {}
  void SkipSpace() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
  }
  bool Peek(char c) {
    SkipSpace();
    return p_ < s_.size() && s_[p_] == c;
  }
  void Expect(char c, const char* what) {
    if (!Peek(c)) Fail(file_, std::string("expected ") + what + " at byte " + std::to_string(p_) + " of the dict");
    ++p_;
  }
  std::string String() {
    SkipSpace();
    if (p_ >= s_.size() || (s_[p_] != '\'' && s_[p_] != '"'))
      Fail(file_, "expected a quoted string at byte " + std::to_string(p_) + " of the dict");
    const char q = s_[p_++];
    std::string out;
    while (p_ < s_.size() && s_[p_] != q) {
      if (s_[p_] == '\\') Fail(file_, "escape sequences in strings are not supported");
      out.push_back(s_[p_++]);
    }
    if (p_ >= s_.size()) Fail(file_, "unterminated string");
    ++p_;
    return out;
  }
  bool Bool() {
    SkipSpace();
    if (s_.substr(p_, 4) == "True") { p_ += 4; return true; }
    if (s_.substr(p_, 5) == "False") { p_ += 5; return false; }
    Fail(file_, "'fortran_order' must be True or False");
  }
  int64_t Int() {
    SkipSpace();
    if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9')
      Fail(file_, "expected a non-negative integer in 'shape' at byte " + std::to_string(p_) + " of the dict");
    int64_t v = 0;
    while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
      const int d = s_[p_++] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - d) / 10) Fail(file_, "a dimension in 'shape' is too large");
      v = v * 10 + d;
    }
    if (p_ < s_.size() && s_[p_] == 'L') ++p_;  // Python 2's long suffix
    return v;
  }
  std::vector<int64_t> Tuple() {
    Expect('(', "'(' (the shape tuple)");
    std::vector<int64_t> dims;
    bool comma = true;
    while (!Peek(')')) {
      if (!comma) Fail(file_, "expected ',' or ')' in 'shape'");
      dims.push_back(Int());
      if (dims.size() > 64) Fail(file_, "'shape' has more than 64 dimensions");
      comma = Peek(',');
      if (comma) ++p_;
    }
    ++p_;
    if (dims.size() == 1 && !comma) {}  // "(3)" is accepted as (3,)
    return dims;
  }
  bool AtEnd() {
    SkipSpace();
    return p_ >= s_.size();
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
  const std::string& file_;
};

DType ParseDescr(const std::string& d, const std::string& file) {
  if (d.size() < 3) Fail(file, "unsupported dtype '" + d + "' (expected e.g. '<f4')");
  const char order = d[0];
  const std::string t = d.substr(1);
  struct Known {
    const char* code;
    DType type;
  };
  static const Known kKnown[] = {{"u1", DType::kUInt8},   {"i1", DType::kInt8},    {"u2", DType::kUInt16},
                                 {"i2", DType::kInt16},   {"i4", DType::kInt32},   {"i8", DType::kInt64},
                                 {"f2", DType::kFloat16}, {"f4", DType::kFloat32}, {"f8", DType::kFloat64},
                                 {"b1", DType::kBool}};
  for (const Known& k : kKnown) {
    if (t != k.code) continue;
    if (order == '>' && SizeOf(k.type) > 1)
      Fail(file, "big-endian data ('descr' '" + d + "') is not supported; save it little-endian (arr.astype('<" + t + "'))");
    if (order != '<' && order != '|' && order != '=' && order != '>')
      Fail(file, "bad byte order '" + std::string(1, order) + "' in 'descr' '" + d + "'");
    return k.type;
  }
  Fail(file, "unsupported dtype '" + d +
                 "' (Sluice reads uint8, int8, uint16, int16, int32, int64, float16, float32, float64 and bool)");
}

uint32_t LE(std::string_view b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + static_cast<size_t>(i)]);
  return v;
}

}  // namespace

int64_t NpyHeader::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == 0) return 0;
    n *= d;  // bounded by the parser
  }
  return n;
}

int64_t NpyHeaderSize(std::string_view b, const std::string& file) {
  static constexpr char kMagic[] = "\x93NUMPY";
  if (b.size() < 8 || std::memcmp(b.data(), kMagic, 6) != 0) Fail(file, "not a .npy file (bad magic)");
  const int major = static_cast<uint8_t>(b[6]), minor = static_cast<uint8_t>(b[7]);
  if (major < 1 || major > 3 || minor != 0)
    Fail(file, "unsupported format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (1.0, 2.0 and 3.0 are supported)");
  const int len_bytes = major == 1 ? 2 : 4;
  if (b.size() < static_cast<size_t>(8 + len_bytes)) Fail(file, "truncated header (file too short)");
  const int64_t len = LE(b, 8, len_bytes);
  const int64_t total = 8 + len_bytes + len;
  if (total > kMaxNpyHeaderBytes) Fail(file, "header length " + std::to_string(len) + " is too large");
  return total;
}

NpyHeader ParseNpyHeader(std::string_view b, const std::string& file) {
  const int64_t total = NpyHeaderSize(b, file);
  if (static_cast<int64_t>(b.size()) < total)
    Fail(file, "truncated header (" + std::to_string(b.size()) + " of " + std::to_string(total) + " bytes)");
  NpyHeader h;
  h.version_major = static_cast<uint8_t>(b[6]);
  h.version_minor = 0;
  h.data_offset = total;
  const size_t start = h.version_major == 1 ? 10 : 12;
  Lexer lx(b.substr(start, static_cast<size_t>(total) - start), file);
  bool has_descr = false, has_fortran = false, has_shape = false;
  lx.Expect('{', "'{'");
  bool comma = true;
  while (!lx.Peek('}')) {
    if (!comma) Fail(file, "expected ',' or '}' in the dict");
    const std::string key = lx.String();
    lx.Expect(':', "':'");
    if (key == "descr") {
      if (has_descr) Fail(file, "duplicate key 'descr'");
      has_descr = true;
      if (lx.Peek('[')) Fail(file, "structured dtypes ('descr' is a list) are not supported");
      h.dtype = ParseDescr(lx.String(), file);
    } else if (key == "fortran_order") {
      if (has_fortran) Fail(file, "duplicate key 'fortran_order'");
      has_fortran = true;
      h.fortran_order = lx.Bool();
    } else if (key == "shape") {
      if (has_shape) Fail(file, "duplicate key 'shape'");
      has_shape = true;
      h.shape = lx.Tuple();
    } else {
      Fail(file, "unexpected key '" + key + "' in the dict");
    }
    comma = lx.Peek(',');
    if (comma) lx.Expect(',', "','");
  }
  lx.Expect('}', "'}'");
  if (!lx.AtEnd()) Fail(file, "unexpected bytes after the dict");
  if (!has_descr) Fail(file, "missing key 'descr'");
  if (!has_fortran) Fail(file, "missing key 'fortran_order'");
  if (!has_shape) Fail(file, "missing key 'shape'");
  // The array's size in bytes must fit in int64, and so must its strides: the product of the
  // non-zero dimensions is bounded even when a zero dimension makes the array empty.
  const int64_t limit = std::numeric_limits<int64_t>::max() / 8;
  int64_t n = 1;
  for (int64_t d : h.shape) {
    if (d == 0) continue;
    if (n > limit / d) Fail(file, "the array is too large (its shape's product overflows)");
    n *= d;
  }
  return h;
}

NpyHeader ReadNpyHeader(const ByteSource& file) {
  // Most headers (NumPy pads them to 64 bytes; 128 is usual) fit in the first read.
  std::string buf(static_cast<size_t>(std::min<int64_t>(256, file.size())), '\0');
  file.ReadAt(0, buf.size(), buf.data());
  const int64_t total = std::min(NpyHeaderSize(buf, file.name()), file.size());
  if (static_cast<int64_t>(buf.size()) < total) {
    const size_t had = buf.size();
    buf.resize(static_cast<size_t>(total));
    file.ReadAt(static_cast<int64_t>(had), buf.size() - had, buf.data() + had);
  }
  return ParseNpyHeader(buf, file.name());  // a header longer than the file: "truncated header"
}

}  // namespace sluice
