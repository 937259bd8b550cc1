// Records of samples that failed and were replaced. Part of the stable public API.
#pragma once
#include <cstdint>
#include <string>

namespace sluice {

// A sample that failed and was replaced by another sample of its batch (decoders' on_error="replace").
struct SampleErrorRecord {
  std::string op;         // operator instance name
  int64_t iteration = 0;  // batch index
  int sample = 0;         // index in the batch
  std::string source;     // where the sample came from
  std::string error;      // what went wrong
  int replaced_by = -1;   // the sample of the same batch whose data took its place
};

}  // namespace sluice
