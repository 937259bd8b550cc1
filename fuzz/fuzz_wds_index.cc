// libFuzzer target: the WebDataset index parser over arbitrary text. Must never crash; malformed
// input may only throw sluice::Error. Valid indices must describe non-overlapping, block-aligned
// components inside the (pretended) archive. The first 4 input bytes pick the archive size.
// Seed corpus: tests/data/readers/fuzz_wds_index/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <sluice/error.h>

#include "readers/webdataset/wds_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The first 4 bytes choose the archive size the index is checked against.
  int64_t archive = -1;
  if (size >= 4) {
    archive = static_cast<int64_t>(data[0] | (data[1] << 8) | (data[2] << 16)) << (data[3] & 15);
    data += 4;
    size -= 4;
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto samples = sluice::ParseWdsIndex(text, "fuzz.idx", archive);
    for (const auto& s : samples) {
      for (const auto& c : s.components) {
        if (c.offset % 512 != 0 || c.offset < 0 || c.size < 0) __builtin_trap();
        if (archive >= 0 && c.offset + c.size > archive) __builtin_trap();
      }
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
