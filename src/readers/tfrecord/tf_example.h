// A minimal decoder of tf.train.Example protobuf messages (no protobuf dependency):
//
//   Example  { Features features = 1; }
//   Features { map<string, Feature> feature = 1; }   (entries: { string key = 1; Feature value = 2; })
//   Feature  { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }  FloatList { repeated float value = 1; }  (packed or not)
//   Int64List { repeated int64 value = 1; }  (packed or not)
//
// Protobuf's merge rules hold: unknown fields are skipped, a repeated message field seen twice
// merges, a map key seen twice keeps the last value, a oneof keeps the last kind set. Malformed
// input (truncated varint or field, bad wire type, a length past the end, nesting it cannot be)
// throws sluice::Error; nothing reads out of bounds. Bytes values point into the input.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

enum class TfFeatureKind { kNone, kBytes, kFloat, kInt64 };
const char* ToString(TfFeatureKind k);

struct TfFeature {
  TfFeatureKind kind = TfFeatureKind::kNone;
  std::vector<std::string_view> bytes;  // into the parsed buffer
  std::vector<float> floats;
  std::vector<int64_t> ints;
  size_t count() const {
    return kind == TfFeatureKind::kBytes ? bytes.size() : kind == TfFeatureKind::kFloat ? floats.size() : ints.size();
  }
};

// Decodes an Example and returns, for each name in `wanted`, its feature (kind kNone if the
// Example has no such key). Features not wanted are skipped without decoding their values.
std::vector<TfFeature> ParseTfExample(const uint8_t* data, size_t size, const std::vector<std::string>& wanted);

// Every feature of the Example, in first-seen key order (tests, tools).
std::vector<std::pair<std::string, TfFeature>> ParseTfExampleAll(const uint8_t* data, size_t size);

}  // namespace sluice
