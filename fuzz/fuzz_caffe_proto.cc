// libFuzzer target: the caffe.Datum and caffe2.TensorProtos decoders (readers/caffe/caffe_proto.h) over
// arbitrary bytes. Must never crash; malformed input may only throw sluice::Error, and every byte
// view a decoder returns must lie inside the input. The first byte picks the message:
//   0: caffe.Datum;  1: caffe2.TensorProtos.
// Seed corpus: fuzz/caffe_seeds/ (*.datum with a leading 0 byte, *.protos with a leading 1 byte).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <sluice/error.h>

#include "readers/caffe/caffe_proto.h"

namespace {

void CheckInside(std::string_view v, const uint8_t* data, size_t size) {
  if (v.empty()) return;
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  if (p < data || p + v.size() > data + size) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int mode = data[0] % 2;
  ++data;
  --size;
  try {
    if (mode == 0) {
      const sluice::CaffeDatum d = sluice::ParseCaffeDatum(data, size);
      CheckInside(d.data, data, size);
      if (!d.has_data && !d.data.empty()) __builtin_trap();
    } else {
      const auto protos = sluice::ParseCaffe2TensorProtos(data, size);
      for (const auto& t : protos) {
        CheckInside(t.byte_data, data, size);
        for (auto s : t.string_data) CheckInside(s, data, size);
        // Every value takes at least one byte of input.
        if (t.dims.size() + t.float_data.size() + t.int32_data.size() + t.int64_data.size() > size) __builtin_trap();
      }
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
