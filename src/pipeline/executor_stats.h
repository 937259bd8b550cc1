// The executor's statistics: per node time and memory, queue occupancy, the consumer's wait and
// each stage's time per batch. Recorded from the stages' threads and the consumer's, read by
// Executor::Statistics().
//
// Concurrency: one mutex of its own (the innermost lock: taken with or without the executor's
// mu_, never the other way round); recording never calls out while holding it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <sluice/pipeline.h>

#include "core/tensor_list.h"
#include "operators/operator.h"
#include "pipeline/graph.h"

namespace sluice {

class ExecutorStats {
 public:
  explicit ExecutorStats(size_t num_nodes) : nodes_(num_nodes) {}

  void RecordNode(int node, double ms);
  // The memory of a node's outputs (what enable_memory_stats reports).
  void RecordMemory(int node, const std::vector<std::shared_ptr<TensorList>>& outputs);
  // A stage finished a batch in `ms`; `last_stage`: the batch is now complete.
  void RecordCpuStage(double ms, bool last_stage);
  void RecordDeviceStage(double ms);
  // A row of a batch taken by the consumer was replaced after `node` failed on it.
  void RecordReplaced(int node);
  // The consumer took a batch after waiting `wait_ms`, with `occupancy` batches ready.
  void RecordTake(int occupancy, double wait_ms);

  struct Shape {  // what the statistics report about the executor's configuration
    bool memory_stats = false;
    int queue_capacity = 0;
    int cpu_queue_capacity = 0;
  };
  ExecutorStatistics Snapshot(const Graph& graph, const Shape& shape) const;

 private:
  struct Node {
    int64_t batches = 0;
    double total_ms = 0;
    double last_ms = 0;
    std::vector<size_t> real, max_real, reserved, max_reserved;
    bool fallback = false;
    int64_t replaced = 0;
  };
  struct StageTime {
    int64_t batches = 0;
    double total_ms = 0;
    double mean_ms() const { return batches ? total_ms / static_cast<double>(batches) : 0.0; }
  };

  mutable std::mutex mu_;
  std::vector<Node> nodes_;
  int64_t batches_produced_ = 0;
  int64_t occupancy_samples_ = 0;
  int64_t occupancy_sum_ = 0;
  int occupancy_max_ = 0;
  double consumer_wait_ms_ = 0;
  StageTime cpu_stage_, device_stage_;
};

}  // namespace sluice
