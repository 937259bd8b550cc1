#include "readers/tf_example.h"

#include <cstring>
#include <unordered_map>

#include <sluice/error.h>

#include "readers/protobuf_wire.h"

namespace sluice {
namespace {

constexpr const char* kExample = "tf.train.Example";

[[noreturn]] void Malformed(const std::string& what, size_t at) { ProtoMalformed(kExample, what, at); }

using Reader = ProtoReader;

void ParseFloatList(Reader r, std::vector<float>& out) {
  while (!r.done()) {
    const size_t at = r.pos;
    auto [field, wire] = r.Tag();
    if (field != 1) {
      r.Skip(wire, at);
      continue;
    }
    if (wire == 5) {
      if (r.end - r.pos < 4) Malformed("truncated float", at);
      float f;
      std::memcpy(&f, r.base + r.pos, 4);
      r.pos += 4;
      out.push_back(f);
    } else if (wire == 2) {
      Reader p = r.Sub();
      const size_t n = p.end - p.pos;
      if (n % 4) Malformed("packed float list of " + std::to_string(n) + " bytes (not a multiple of 4)", at);
      const size_t old = out.size();
      out.resize(old + n / 4);
      if (n) std::memcpy(out.data() + old, p.base + p.pos, n);
    } else {
      Malformed("float_list value with wire type " + std::to_string(wire), at);
    }
  }
}

void ParseInt64List(Reader r, std::vector<int64_t>& out) {
  while (!r.done()) {
    const size_t at = r.pos;
    auto [field, wire] = r.Tag();
    if (field != 1) {
      r.Skip(wire, at);
      continue;
    }
    if (wire == 0) {
      out.push_back(static_cast<int64_t>(r.Varint()));
    } else if (wire == 2) {
      Reader p = r.Sub();
      while (!p.done()) out.push_back(static_cast<int64_t>(p.Varint()));
    } else {
      Malformed("int64_list value with wire type " + std::to_string(wire), at);
    }
  }
}

void ParseBytesList(Reader r, std::vector<std::string_view>& out) {
  while (!r.done()) {
    const size_t at = r.pos;
    auto [field, wire] = r.Tag();
    if (field != 1) {
      r.Skip(wire, at);
      continue;
    }
    if (wire != 2) Malformed("bytes_list value with wire type " + std::to_string(wire), at);
    out.push_back(r.Sub().View());
  }
}

// Merges a Feature message into `f` (oneof: a different kind replaces, the same kind merges).
void ParseFeature(Reader r, TfFeature& f) {
  while (!r.done()) {
    const size_t at = r.pos;
    auto [field, wire] = r.Tag();
    if (field < 1 || field > 3) {
      r.Skip(wire, at);
      continue;
    }
    if (wire != 2) Malformed("Feature field " + std::to_string(field) + " with wire type " + std::to_string(wire), at);
    const auto kind = field == 1 ? TfFeatureKind::kBytes : field == 2 ? TfFeatureKind::kFloat : TfFeatureKind::kInt64;
    if (f.kind != kind) {
      f = TfFeature{};
      f.kind = kind;
    }
    Reader sub = r.Sub();
    if (kind == TfFeatureKind::kBytes) ParseBytesList(sub, f.bytes);
    else if (kind == TfFeatureKind::kFloat) ParseFloatList(sub, f.floats);
    else ParseInt64List(sub, f.ints);
  }
}

// Calls on_entry(key, value_reader or nullptr-equivalent) for each map entry of the Example.
template <typename F> void ForEachEntry(const uint8_t* data, size_t size, F&& on_entry) {
  Reader ex{data, 0, size, kExample};
  while (!ex.done()) {
    const size_t at = ex.pos;
    auto [field, wire] = ex.Tag();
    if (field != 1) {
      ex.Skip(wire, at);
      continue;
    }
    if (wire != 2) Malformed("Example.features with wire type " + std::to_string(wire), at);
    Reader feats = ex.Sub();
    while (!feats.done()) {
      const size_t fat = feats.pos;
      auto [ffield, fwire] = feats.Tag();
      if (ffield != 1) {
        feats.Skip(fwire, fat);
        continue;
      }
      if (fwire != 2) Malformed("Features.feature with wire type " + std::to_string(fwire), fat);
      Reader entry = feats.Sub();
      std::string_view key;
      std::vector<Reader> values;  // a value field seen twice merges
      while (!entry.done()) {
        const size_t eat = entry.pos;
        auto [efield, ewire] = entry.Tag();
        if (efield == 1) {
          if (ewire != 2) Malformed("feature map key with wire type " + std::to_string(ewire), eat);
          key = entry.Sub().View();
        } else if (efield == 2) {
          if (ewire != 2) Malformed("feature map value with wire type " + std::to_string(ewire), eat);
          values.push_back(entry.Sub());
        } else {
          entry.Skip(ewire, eat);
        }
      }
      on_entry(key, values);
    }
  }
}

}  // namespace

const char* ToString(TfFeatureKind k) {
  switch (k) {
    case TfFeatureKind::kBytes: return "bytes_list";
    case TfFeatureKind::kFloat: return "float_list";
    case TfFeatureKind::kInt64: return "int64_list";
    default: return "none";
  }
}

std::vector<TfFeature> ParseTfExample(const uint8_t* data, size_t size, const std::vector<std::string>& wanted) {
  std::vector<TfFeature> out(wanted.size());
  ForEachEntry(data, size, [&](std::string_view key, const std::vector<Reader>& values) {
    for (size_t i = 0; i < wanted.size(); ++i) {
      if (wanted[i] != key) continue;
      TfFeature f;  // a repeated key replaces (map semantics)
      for (const Reader& v : values) ParseFeature(v, f);
      out[i] = std::move(f);
    }
  });
  return out;
}

std::vector<std::pair<std::string, TfFeature>> ParseTfExampleAll(const uint8_t* data, size_t size) {
  std::vector<std::pair<std::string, TfFeature>> out;
  std::unordered_map<std::string, size_t> where;
  ForEachEntry(data, size, [&](std::string_view key, const std::vector<Reader>& values) {
    TfFeature f;
    for (const Reader& v : values) ParseFeature(v, f);
    auto [it, inserted] = where.emplace(std::string(key), out.size());
    if (inserted) out.emplace_back(std::string(key), std::move(f));
    else out[it->second].second = std::move(f);
  });
  return out;
}

}  // namespace sluice
