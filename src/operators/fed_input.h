// Operators whose data the application feeds from outside the graph (Pipeline::FeedInput, Python's
// feed_input): external_source (one batch per feed) and experimental.inputs.video (encoded videos
// decoded over as many iterations as they last).
#pragma once
#include <string>
#include <vector>

#include <sluice/external_sample.h>
#include <sluice/memory_config.h>

namespace sluice {

class FedInput {
 public:
  virtual ~FedInput() = default;
  // Called by the application thread while the executor may be running the operator: copies the
  // samples (the caller's memory may be reused when it returns) into the operator's queue. Throws
  // sluice::Error naming the operator for data it cannot take, queueing nothing.
  virtual void Feed(const std::vector<ExternalSample>& samples, const std::string& layout,
                    const MemoryConfig& cfg) = 0;
};

}  // namespace sluice
