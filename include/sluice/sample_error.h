// Records of samples that failed and were replaced. Part of the stable public API.
#pragma once
#include <cstdint>
#include <string>

namespace sluice {

// A sample that an operator could not produce (decoders with on_error="replace"). The whole row
// (every pipeline output of that batch index) was replaced by row `replaced_by` of the same batch.
struct SampleErrorRecord {
  std::string op;         // operator instance name
  int64_t iteration = 0;  // batch index
  int sample = 0;         // index in the batch
  std::string source;     // where the sample came from ("shard.tar:000123.jpg @offset 5120")
  std::string path;       // the file, or the tar archive
  std::string member;     // the tar member; empty for plain files
  int64_t offset = -1;    // byte offset of the data inside `path`; -1 when not known
  std::string error;      // what went wrong
  int replaced_by = -1;   // the row of the same batch whose values took its place in every output
};

}  // namespace sluice
