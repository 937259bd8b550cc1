// Counts an operator keeps of its own work (experimental.inputs.video: the decoding passes it
// started), reported in executor_statistics()[name]["counters"]. An operator that has some also
// derives from OperatorCounters; the executor looks for it when it reports statistics.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

class OperatorCounters {
 public:
  virtual ~OperatorCounters() = default;
  // (name, value) pairs. Called from any thread at any time (while the operator runs): thread-safe.
  virtual std::vector<std::pair<std::string, int64_t>> counters() const = 0;
};

}  // namespace sluice
