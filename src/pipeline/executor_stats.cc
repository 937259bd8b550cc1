#include "pipeline/executor_stats.h"

#include <algorithm>

namespace sluice {

void ExecutorStats::RecordNode(int node, double ms) {
  std::lock_guard lk(mu_);
  Node& st = nodes_[static_cast<size_t>(node)];
  ++st.batches;
  st.total_ms += ms;
  st.last_ms = ms;
}

void ExecutorStats::RecordMemory(int node, const std::vector<std::shared_ptr<TensorList>>& lists) {
  std::lock_guard lk(mu_);
  Node& st = nodes_[static_cast<size_t>(node)];
  st.real.assign(lists.size(), 0);
  st.max_real.assign(lists.size(), 0);
  st.reserved.assign(lists.size(), 0);
  st.max_reserved.assign(lists.size(), 0);
  st.fallback = false;
  for (size_t o = 0; o < lists.size(); ++o) {
    st.real[o] = lists[o]->used_bytes();
    st.max_real[o] = lists[o]->max_sample_used_bytes();
    st.reserved[o] = lists[o]->reserved_bytes();
    st.max_reserved[o] = lists[o]->max_sample_reserved_bytes();
    st.fallback = st.fallback || lists[o]->uses_fallback_memory();
  }
}

void ExecutorStats::RecordCpuStage(double ms, bool last_stage) {
  std::lock_guard lk(mu_);
  ++cpu_stage_.batches;
  cpu_stage_.total_ms += ms;
  if (last_stage) ++batches_produced_;
}

void ExecutorStats::RecordDeviceStage(double ms) {
  std::lock_guard lk(mu_);
  ++device_stage_.batches;
  device_stage_.total_ms += ms;
  ++batches_produced_;
}

void ExecutorStats::RecordTake(int occupancy, double wait_ms) {
  std::lock_guard lk(mu_);
  ++occupancy_samples_;
  occupancy_sum_ += occupancy;
  occupancy_max_ = std::max(occupancy_max_, occupancy);
  consumer_wait_ms_ += wait_ms;
}

void ExecutorStats::RecordReplaced(int node) {
  std::lock_guard lk(mu_);
  ++nodes_[static_cast<size_t>(node)].replaced;
}

ExecutorStatistics ExecutorStats::Snapshot(const Graph& graph, const Shape& shape) const {
  ExecutorStatistics s;
  const auto& nodes = graph.nodes();
  std::lock_guard lk(mu_);
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& st = nodes_[n];
    OperatorStatistics o;
    o.name = nodes[n].spec.name;
    o.op = nodes[n].spec.op;
    o.device = nodes[n].spec.device;
    if (shape.memory_stats) {
      o.real_memory_size = st.real;
      o.max_real_memory_size = st.max_real;
      o.reserved_memory_size = st.reserved;
      o.max_reserved_memory_size = st.max_reserved;
    }
    o.memory_is_fallback = st.fallback;
    o.replaced_samples = st.replaced;
    o.batches = st.batches;
    o.total_time_ms = st.total_ms;
    o.last_batch_ms = st.last_ms;
    s.operators.push_back(std::move(o));
  }
  s.mean_queue_occupancy =
      occupancy_samples_ ? static_cast<double>(occupancy_sum_) / static_cast<double>(occupancy_samples_) : 0.0;
  s.max_queue_occupancy = occupancy_max_;
  s.queue_capacity = shape.queue_capacity;
  s.cpu_queue_capacity = shape.cpu_queue_capacity;
  s.batches_produced = batches_produced_;
  s.consumer_wait_ms = consumer_wait_ms_;
  s.cpu_stage_ms = cpu_stage_.mean_ms();
  s.device_stage_ms = device_stage_.mean_ms();
  return s;
}

}  // namespace sluice
