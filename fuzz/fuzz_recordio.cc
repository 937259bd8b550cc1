// libFuzzer target: the MXNet RecordIO parsers (readers/mxnet/recordio_format.h) over arbitrary bytes.
// Must never crash; malformed input may only throw sluice::Error. The first byte picks the mode:
//   0: the bytes are a .rec file: walked record by record from offset 0 (as an index of every part
//      start would), each record reassembled and its IRHeader parsed; what parses is written back
//      with AppendRecordIO and must read back identical;
//   1: the bytes are an .idx text (the next 4 bytes pick the file size it is checked against): the
//      entries must come back sorted, non-empty, inside the file and ending at its end.
// Seed corpus: fuzz/recordio_seeds/ (*.rec with a leading 0 byte, *.idx with a leading 1 byte).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <sluice/error.h>

#include "readers/mxnet/recordio_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int mode = data[0] % 2;
  ++data;
  --size;
  if (mode == 0) {
    std::vector<uint8_t> payload, again;
    // Records start at every 4-aligned magic word; each is read up to the end of the input.
    for (size_t off = 0; off + 8 <= size; off += 4) {
      uint32_t w;
      std::memcpy(&w, data + off, 4);
      if (w != sluice::kRecordIOMagic) continue;
      try {
        sluice::ReadRecordIO(data + off, size - off, "fuzz.rec", static_cast<int64_t>(off), payload);
      } catch (const sluice::Error&) {
        continue;
      }
      try {
        const auto r = sluice::ParseImageRecord(payload.data(), payload.size(), "fuzz.rec", static_cast<int64_t>(off));
        if (r.image < payload.data() || r.image + r.image_size != payload.data() + payload.size()) __builtin_trap();
        if (r.labels.empty() || (r.flag > 0 && r.labels.size() != r.flag)) __builtin_trap();
      } catch (const sluice::Error&) {
      }
      std::string out;
      sluice::AppendRecordIO(payload.data(), payload.size(), out);
      if (out.size() % 4 != 0) __builtin_trap();
      sluice::ReadRecordIO(reinterpret_cast<const uint8_t*>(out.data()), out.size(), "rewritten", 0, again);
      if (again != payload) __builtin_trap();
    }
  } else {
    int64_t file = 0;
    if (size >= 4) {
      file = static_cast<int64_t>(data[0] | (data[1] << 8) | (data[2] << 16)) << (data[3] & 31);
      data += 4;
      size -= 4;
    }
    try {
      const auto recs = sluice::ParseRecordIOIndex(std::string_view(reinterpret_cast<const char*>(data), size),
                                                   "fuzz.idx", file);
      int64_t end = 0;
      for (const auto& r : recs) {
        if (r.offset < end || r.size < 1 || r.offset + r.size > file) __builtin_trap();
        end = r.offset + r.size;
      }
      if (!recs.empty() && end != file) __builtin_trap();
    } catch (const sluice::Error&) {
    }
  }
  return 0;
}
