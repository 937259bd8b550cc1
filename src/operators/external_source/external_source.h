// external_source: batches fed from outside the graph (Python arrays, application data).
#pragma once
#include <deque>
#include <mutex>

#include <sluice/external_sample.h>
#include <sluice/memory_config.h>

#include "operators/fed_input.h"
#include "operators/operator.h"

namespace sluice {

// Thread-safety: Feed is called by the application thread while the executor thread runs Setup;
// the queue is guarded by mu_. Each Setup consumes the oldest fed batch.
class ExternalSource : public Operator, public FedInput {
 public:
  explicit ExternalSource(const OpSpec& spec);
  // Copies the samples into a queued batch (the caller's memory may be reused right after).
  void Feed(const std::vector<ExternalSample>& samples, const std::string& layout, const MemoryConfig& cfg) override;
  std::vector<OutputDesc> Setup(Workspace& ws) override;
  void Run(Workspace& ws) override {}

 private:
  mutable std::mutex mu_;
  std::deque<TensorList> queue_;
  std::deque<TensorList> spare_;  // recycled batches, so steady-state feeding does not allocate
};

}  // namespace sluice
