// A pipeline checkpoint: where the pipeline stands after the last batch its consumer took, so that
// a pipeline built with it continues with exactly the batches the saved one would have returned.
//
// What that takes: the pipeline seed and the iteration number (every random stream derives from
// them) and the state of each operator that has one (Operator::has_state(): the readers'
// positions). An external_source's data belongs to its caller. `external_data` carries a framework
// iterator's own position, opaque here.
//
// The text form: lines of `key=value`, versioned, with every value escaped (any bytes round-trip):
//   sluice-checkpoint 2
//   iteration=<n>              decimal, >= 0
//   seed=<n>                   decimal, unsigned 64-bit
//   external=<value>           a framework iterator's data (may be empty)
//   [<name>]                   one section per stateful operator: its instance name (escaped) ...
//   <key>=<value>              ... then its state, one line per key
//   end
// Every line ends with "\n". Keys are [A-Za-z0-9_.-]+ and appear once per section (the three
// header keys once each, in that order, before the first section). Values (and section names) are
// the bytes themselves, except: '\' is written "\\", newline "\n", carriage return "\r", tab "\t"
// and every other byte below 0x20, and 0x7f, as "\xHH" (two hex digits). Raw control bytes in a
// value are an error. Operators define their own keys (readers: SampleSequencer's).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "operators/operator.h"

namespace sluice {

struct PipelineCheckpoint {
  int64_t iteration = 0;
  uint64_t seed = 0;
  std::map<std::string, StateMap> operators;  // stateful operator instance name -> its state
  std::string external_data;

  // Throws sluice::Error for a key outside [A-Za-z0-9_.-]+ (an operator's bug).
  std::string Serialize() const;
  // Throws sluice::Error("invalid checkpoint: ...", naming the line) for anything but a
  // well-formed checkpoint; "not a Sluice checkpoint" when the first line is not a version line.
  static PipelineCheckpoint Parse(const std::string& text);
};

// The value escaping above, on its own (tests, tools).
std::string EscapeCheckpointValue(const std::string& bytes);
// Throws sluice::Error("... escape ...") for a malformed escape or a raw control byte.
std::string UnescapeCheckpointValue(const std::string& text);

}  // namespace sluice
