// The description of one operator instance in a graph: what the user asked for.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <sluice/value.h>

namespace sluice {

struct OpSpec {
  std::string op;             // registry name, e.g. "decoders.image"
  std::string name;           // unique instance name, e.g. "decoders.image#1"
  std::string device = "cpu";  // "cpu", "mixed" or "gpu"
  std::vector<std::string> inputs;                  // edge names of the regular inputs
  std::map<std::string, std::string> arg_inputs;    // argument name -> edge name (per-sample)
  std::map<std::string, Value> args;                // constant arguments
  std::vector<std::string> outputs;                 // edge names this instance produces
  // Where the user added it, when a graph pass has moved or replaced specs (-1: its index); the
  // derived seeds follow it, so a pass never changes another operator's random numbers.
  int position = -1;
};

}  // namespace sluice
