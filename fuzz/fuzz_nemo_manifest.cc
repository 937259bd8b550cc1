// libFuzzer target: the NeMo manifest parser (readers/nemo/nemo_manifest.h) on arbitrary bytes, with the
// duration filter and read_text picked by the first byte. Must never crash; malformed input may only
// throw sluice::Error. Every entry it returns must be sane: a non-empty path, a line number within
// the input's lines, a non-negative offset, a duration that is -1 (not given) or non-negative, and
// inside the filter when one is set.
// Seed corpus: fuzz/nemo_seeds/ (manifests written by Python's json: plain, UTF-8 text, offsets,
// blank lines, CRLF, extra keys).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <sluice/error.h>

#include "readers/nemo/nemo_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  sluice::NemoManifestFilter filter;
  filter.read_text = data[0] & 1;
  if (data[0] & 2) filter.min_duration = 0.5;
  if (data[0] & 4) filter.max_duration = 10;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const int64_t lines = 1 + std::count(text.begin(), text.end(), '\n');
  try {
    for (const sluice::NemoManifestEntry& e : sluice::ParseNemoManifest(text, "fuzz.json", filter)) {
      if (e.audio_filepath.empty() || e.line < 1 || e.line > lines || !(e.offset >= 0)) __builtin_trap();
      if (!(e.duration >= 0 || e.duration == -1)) __builtin_trap();
      if (filter.max_duration > 0 && e.duration > filter.max_duration) __builtin_trap();
      if (filter.min_duration > 0 && !(e.duration >= filter.min_duration)) __builtin_trap();
      if (!filter.read_text && !e.text.empty()) __builtin_trap();
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
