// Protocol Buffers' wire format, read by hand (no protobuf dependency): the bounded cursor that
// Sluice's small message decoders (tf_example.h, caffe_proto.h) walk fields with, the loop over
// one field's occurrences, and repeated scalar fields (packed or not).
//
// Every read is bounded by the view's end; malformed input (a truncated varint or field, an
// unsupported wire type, a length past the end, field number 0) throws sluice::Error
// "malformed <message>: <what> (at byte N of the record data)". Positions are absolute within the
// outermost buffer, so the byte named is the one to look at in the record.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sluice/error.h>

namespace sluice {

[[noreturn]] inline void ProtoMalformed(const char* message, const std::string& what, size_t at) {
  throw Error(std::string("malformed ") + message + ": " + what + " (at byte " + std::to_string(at) +
              " of the record data)");
}

struct ProtoReader {
  const uint8_t* base;
  size_t pos, end;
  const char* message;  // names the message type in errors ("tf.train.Example", "caffe.Datum")

  [[noreturn]] void Malformed(const std::string& what, size_t at) const { ProtoMalformed(message, what, at); }
  bool done() const { return pos >= end; }
  uint64_t Varint() {
    uint64_t v = 0;
    const size_t start = pos;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos >= end) Malformed("truncated varint", start);
      const uint8_t b = base[pos++];
      if (shift == 63 && b > 1) Malformed("varint longer than 64 bits", start);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    Malformed("varint longer than 10 bytes", start);
  }
  // A length-delimited field's body.
  ProtoReader Sub() {
    const size_t at = pos;
    const uint64_t len = Varint();
    if (len > end - pos) Malformed("length-delimited field of " + std::to_string(len) + " bytes runs past its end", at);
    ProtoReader r{base, pos, pos + static_cast<size_t>(len), message};
    pos += static_cast<size_t>(len);
    return r;
  }
  uint32_t Fixed32() {
    if (end - pos < 4) Malformed("truncated 32-bit field", pos);
    uint32_t v;
    std::memcpy(&v, base + pos, 4);
    pos += 4;
    return v;
  }
  uint64_t Fixed64() {
    if (end - pos < 8) Malformed("truncated 64-bit field", pos);
    uint64_t v;
    std::memcpy(&v, base + pos, 8);
    pos += 8;
    return v;
  }
  void Skip(uint32_t wire, size_t at) {
    switch (wire) {
      case 0: Varint(); return;
      case 1:
        if (end - pos < 8) Malformed("truncated 64-bit field", at);
        pos += 8;
        return;
      case 2: Sub(); return;
      case 5:
        if (end - pos < 4) Malformed("truncated 32-bit field", at);
        pos += 4;
        return;
      default: Malformed("unsupported wire type " + std::to_string(wire), at);
    }
  }
  // Reads a tag: field number and wire type.
  std::pair<uint64_t, uint32_t> Tag() {
    const size_t at = pos;
    const uint64_t t = Varint();
    if ((t >> 3) == 0) Malformed("field number 0", at);
    return {t >> 3, static_cast<uint32_t>(t & 7)};
  }
  std::string_view View() const { return {reinterpret_cast<const char*>(base + pos), end - pos}; }
  // Throws unless a field's wire type is `want`; `field` names it ("Datum.data").
  void ExpectWire(uint32_t wire, uint32_t want, const char* field, size_t at) const {
    if (wire != want) Malformed(std::string(field) + " with wire type " + std::to_string(wire), at);
  }
};

// Calls fn(reader, wire, at) for each occurrence of field `number` in the message `r` (at: the
// tag's position; fn must consume the field's value from reader); every other field is skipped.
template <typename Fn>
void ForEachField(ProtoReader r, uint64_t number, Fn&& fn) {
  while (!r.done()) {
    const size_t at = r.pos;
    const auto [field, wire] = r.Tag();
    if (field == number) fn(r, wire, at);
    else r.Skip(wire, at);
  }
}

// One occurrence of a repeated varint field (int32, int64, enum...): a value (wire type 0) or a
// packed run of them (wire type 2), appended to `out`. `what` names the field in errors.
template <typename T>
void ReadRepeatedVarint(ProtoReader& r, uint32_t wire, size_t at, const char* what, std::vector<T>& out) {
  if (wire == 0) {
    out.push_back(static_cast<T>(r.Varint()));
  } else if (wire == 2) {
    ProtoReader p = r.Sub();
    while (!p.done()) out.push_back(static_cast<T>(p.Varint()));
  } else {
    r.Malformed(std::string(what) + " with wire type " + std::to_string(wire), at);
  }
}

// One occurrence of a repeated float field: a fixed32 value (wire type 5) or a packed run of them
// (wire type 2, copied at once), appended to `out`.
inline void ReadRepeatedFloat(ProtoReader& r, uint32_t wire, size_t at, const char* what, std::vector<float>& out) {
  if (wire == 5) {
    if (r.end - r.pos < 4) r.Malformed(std::string("truncated ") + what, at);
    float f;
    std::memcpy(&f, r.base + r.pos, 4);
    r.pos += 4;
    out.push_back(f);
  } else if (wire == 2) {
    ProtoReader p = r.Sub();
    const size_t n = p.end - p.pos;
    if (n % 4) r.Malformed("packed " + std::string(what) + " of " + std::to_string(n) + " bytes (not a multiple of 4)", at);
    const size_t old = out.size();
    out.resize(old + n / 4);
    if (n) std::memcpy(out.data() + old, p.base + p.pos, n);
  } else {
    r.Malformed(std::string(what) + " with wire type " + std::to_string(wire), at);
  }
}

}  // namespace sluice
