// libFuzzer target: the TFRecord parsers over arbitrary bytes. Must never crash; malformed input may
// only throw sluice::Error. The first byte picks the mode:
//   0: the bytes are a TFRecord file: framing scan (CRCs checked), then each record's Example decoded
//      and converted to a few feature specs (as readers.tfrecord does);
//   1: the bytes are one serialized tf.train.Example;
//   2: the bytes are a tfrecord2idx index (the next 4 bytes pick the file size it is checked against).
// Seed corpus: fuzz/tfrecord_seeds/ (files named by mode: *.tfrecord, *.example, *.idx).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <sluice/error.h>

#include "readers/storage/file_source.h"
#include "readers/tfrecord/tf_example.h"
#include "readers/tfrecord/tfrecord_format.h"
#include "readers/tfrecord/tfrecord_reader.h"

namespace {

void ParseAndConvert(const uint8_t* data, size_t size) {
  using T = sluice::TfFeatureSpec::Type;
  static const std::vector<sluice::TfFeatureSpec> specs = {
      {"image/encoded", true, T::kString, {}, 0, 0, ""},
      {"label", true, T::kInt64, {1}, -1, 0, ""},
      {"bbox", false, T::kFloat32, {}, 0, 0.5, ""},
      {"m", true, T::kFloat32, {2, 3}, 0, 0, ""},
  };
  static const std::vector<std::string> names = {"image/encoded", "label", "bbox", "m"};
  const auto feats = sluice::ParseTfExample(data, size, names);
  if (feats.size() != names.size()) __builtin_trap();
  std::vector<uint8_t> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    try {
      out.clear();
      const sluice::TensorShape s = sluice::TfFeatureToTensor(specs[i], feats[i], out);
      int64_t n = 1;
      for (int d = 0; d < s.ndim(); ++d) n *= s[d];
      if (static_cast<size_t>(n) * sluice::SizeOf(specs[i].dtype()) != out.size()) __builtin_trap();
    } catch (const sluice::Error&) {
    }
  }
  (void)sluice::ParseTfExampleAll(data, size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int mode = data[0] % 3;
  ++data;
  --size;
  try {
    if (mode == 0) {
      sluice::MemorySource src(data, size, "fuzz.tfrecord");
      std::vector<sluice::TfRecordEntry> recs;
      try {
        recs = sluice::ScanTfRecords(src);
      } catch (const sluice::Error&) {
        recs = sluice::ScanTfRecords(sluice::MemorySource(data, 0, "empty"));
      }
      for (const auto& r : recs) {
        if (r.offset < 0 || r.size < 16 || r.offset + r.size > static_cast<int64_t>(size)) __builtin_trap();
        sluice::CheckTfRecord(data + r.offset, static_cast<size_t>(r.size), "fuzz.tfrecord", r.offset);
        try {
          ParseAndConvert(data + r.offset + 12, static_cast<size_t>(r.size - 16));
        } catch (const sluice::Error&) {
        }
      }
      const std::string idx = sluice::WriteTfRecordIndex(recs);
      if (sluice::ParseTfRecordIndex(idx, "fuzz.idx", static_cast<int64_t>(size)) != recs) __builtin_trap();
    } else if (mode == 1) {
      ParseAndConvert(data, size);
    } else {
      int64_t file = 0;
      if (size >= 4) {
        file = static_cast<int64_t>(data[0] | (data[1] << 8) | (data[2] << 16)) << (data[3] & 31);
        data += 4;
        size -= 4;
      }
      const std::string_view text(reinterpret_cast<const char*>(data), size);
      const auto recs = sluice::ParseTfRecordIndex(text, "fuzz.idx", file);
      int64_t end = 0;
      for (const auto& r : recs) {
        if (r.offset < end || r.size < 16 || r.offset + r.size > file) __builtin_trap();
        end = r.offset + r.size;
      }
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
