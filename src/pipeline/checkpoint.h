// A pipeline checkpoint: where the pipeline stands after the last batch its consumer took, so that
// a pipeline built with it continues with exactly the batches the saved one would have returned.
//
// What that takes: the pipeline seed and the iteration number (every random stream derives from
// them) and each reader's position. Operators hold no other cross-batch state; an external_source's data belongs to its
// caller. `external_data` carries a framework iterator's own position, opaque here.
//
// The text form is versioned and length-prefixed (names and states may hold any byte):
//   sluice-checkpoint 1\n
//   iteration <n>\n
//   seed <n>\n
//   reader <name bytes> <state bytes>\n<name><state>\n      (one per reader)
//   external <bytes>\n<data>\n
//   end\n
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace sluice {

struct PipelineCheckpoint {
  int64_t iteration = 0;
  uint64_t seed = 0;
  std::map<std::string, std::string> readers;  // reader operator name -> its serialized state
  std::string external_data;

  std::string Serialize() const;
  // Throws sluice::Error("invalid checkpoint: ...") for anything but a well-formed checkpoint.
  static PipelineCheckpoint Parse(const std::string& text);
};

}  // namespace sluice
