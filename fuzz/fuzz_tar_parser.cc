// libFuzzer target: the tar parser and WebDataset grouping over arbitrary bytes. Must never crash,
// read out of bounds or loop forever; malformed input may only throw sluice::Error.
// Seed corpus: tests/data/readers/fuzz_tar/ (small GNU, PAX and ustar archives).
#include <cstddef>
#include <cstdint>

#include <sluice/error.h>

#include "readers/storage/file_source.h"
#include "readers/webdataset/tar_parser.h"
#include "readers/webdataset/wds_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::MemorySource src(data, size, "fuzz.tar");
  try {
    sluice::TarReader reader(src);
    sluice::TarEntry e;
    int64_t last = -1;
    while (reader.Next(&e)) {
      // Offsets strictly increase and every member's data lies inside the input.
      if (reader.offset() <= last) __builtin_trap();
      last = reader.offset();
      if (e.data_offset < 0 || e.data_offset > static_cast<int64_t>(size)) __builtin_trap();
      if (e.is_regular() && e.size > static_cast<int64_t>(size) - e.data_offset) __builtin_trap();
    }
  } catch (const sluice::Error&) {
  }
  try {
    const auto samples = sluice::ScanTarSamples(src);
    // The index we would write parses back (when the names are representable).
    std::string text;
    try {
      text = sluice::WriteWdsIndex(samples);
    } catch (const sluice::Error&) {
      return 0;
    }
    const auto back = sluice::ParseWdsIndex(text, "fuzz.idx", static_cast<int64_t>(size));
    if (back.size() != samples.size()) __builtin_trap();
  } catch (const sluice::Error&) {
  }
  return 0;
}
