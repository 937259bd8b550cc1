#include "readers/tfrecord/tf_example.h"

#include <cstring>
#include <unordered_map>

#include <sluice/error.h>

#include "readers/common/protobuf_wire.h"

namespace sluice {
namespace {

constexpr const char* kExample = "tf.train.Example";

using Reader = ProtoReader;

void ParseFloatList(Reader r, std::vector<float>& out) {
  ForEachField(r, 1, [&](Reader& f, uint32_t wire, size_t at) { ReadRepeatedFloat(f, wire, at, "float_list value", out); });
}

void ParseInt64List(Reader r, std::vector<int64_t>& out) {
  ForEachField(r, 1, [&](Reader& f, uint32_t wire, size_t at) { ReadRepeatedVarint(f, wire, at, "int64_list value", out); });
}

void ParseBytesList(Reader r, std::vector<std::string_view>& out) {
  ForEachField(r, 1, [&](Reader& f, uint32_t wire, size_t at) {
    f.ExpectWire(wire, 2, "bytes_list value", at);
    out.push_back(f.Sub().View());
  });
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
    r.ExpectWire(wire, 2, ("Feature field " + std::to_string(field)).c_str(), at);
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
  ForEachField(Reader{data, 0, size, kExample}, 1, [&](Reader& ex, uint32_t wire, size_t at) {
    ex.ExpectWire(wire, 2, "Example.features", at);
    ForEachField(ex.Sub(), 1, [&](Reader& feats, uint32_t fwire, size_t fat) {
      feats.ExpectWire(fwire, 2, "Features.feature", fat);
      Reader entry = feats.Sub();
      std::string_view key;
      std::vector<Reader> values;  // a value field seen twice merges
      while (!entry.done()) {
        const size_t eat = entry.pos;
        auto [efield, ewire] = entry.Tag();
        if (efield == 1) {
          entry.ExpectWire(ewire, 2, "feature map key", eat);
          key = entry.Sub().View();
        } else if (efield == 2) {
          entry.ExpectWire(ewire, 2, "feature map value", eat);
          values.push_back(entry.Sub());
        } else {
          entry.Skip(ewire, eat);
        }
      }
      on_entry(key, values);
    });
  });
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
