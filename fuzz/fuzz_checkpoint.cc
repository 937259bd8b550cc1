// libFuzzer target: the pipeline checkpoint parser over arbitrary bytes. Must never crash;
// malformed input may only throw sluice::Error. Whatever parses must survive a round trip
// through its serialized form unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include <sluice/error.h>

#include "pipeline/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const sluice::PipelineCheckpoint cp = sluice::PipelineCheckpoint::Parse(text);
    const sluice::PipelineCheckpoint back = sluice::PipelineCheckpoint::Parse(cp.Serialize());
    if (back.iteration != cp.iteration || back.seed != cp.seed || back.readers != cp.readers ||
        back.external_data != cp.external_data)
      __builtin_trap();
  } catch (const sluice::Error&) {
  }
  return 0;
}
