// libFuzzer target: the pipeline checkpoint parser (key=value lines, escaped values) over
// arbitrary bytes. Must never crash; malformed input may only throw sluice::Error. Whatever parses
// must survive a round trip through its serialized form unchanged, and serialize to the same text
// again (the written form is canonical). Seeds: fuzz/checkpoint_seeds/ (scripts/run_fuzzers.sh).
#include <cstddef>
#include <cstdint>
#include <string>

#include <sluice/error.h>

#include "pipeline/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const sluice::PipelineCheckpoint cp = sluice::PipelineCheckpoint::Parse(text);
    const std::string written = cp.Serialize();
    const sluice::PipelineCheckpoint back = sluice::PipelineCheckpoint::Parse(written);
    if (back.iteration != cp.iteration || back.seed != cp.seed || back.operators != cp.operators ||
        back.external_data != cp.external_data || back.Serialize() != written)
      __builtin_trap();
  } catch (const sluice::Error&) {
  }
  // The value escaping alone: every byte string round-trips.
  if (sluice::UnescapeCheckpointValue(sluice::EscapeCheckpointValue(text)) != text) __builtin_trap();
  return 0;
}
