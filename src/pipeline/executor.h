// Runs a Graph batch after batch: a background thread fills a ring of output slots (prefetch),
// operators split their samples over the worker pool, the consumer takes ready slots in order.
//
// Graphs with mixed/gpu operators run in two stages, each on its own thread with its own ring:
// the cpu stage (ring of cpu_queue_depth slots) and the device stage (mixed + gpu operators, ring
// of gpu_queue_depth slots), so the cpu operators of later batches overlap the device stage of
// earlier ones. A cpu slot returns to its stage as soon as the device stage has consumed it; the
// consumer holds device slots. Pipeline outputs made by the cpu stage (labels) are handed out by
// reference: a cpu slot reused while its output is still held writes into a spare buffer.
//
// Concurrency: one mutex (mu_) guards the slot queues, the schedule count, the API mode and the
// sticky error; stats_mu_ guards statistics. Lock order: mu_ before stats_mu_ (never the reverse).
// Stop (destructor) sets a flag that every wait and every sample loop checks, so destruction
// returns promptly even in the middle of a long batch.
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sluice/memory_config.h>
#include <sluice/pipeline.h>

#include "core/tensor_list.h"
#include "core/thread_pool.h"
#include "operators/operator.h"
#include "pipeline/checkpoint.h"
#include "pipeline/graph.h"
#include "pipeline/spare_buffers.h"

namespace sluice {

class ReaderOperator;

struct ExecutorConfig {
  int batch_size = 1;
  int num_threads = 1;
  uint64_t seed = 0;
  bool pipelined = true;
  bool async = true;
  int cpu_queue_depth = 2;
  int gpu_queue_depth = 2;
  size_t bytes_per_sample = 0;
  bool set_affinity = false;
  bool enable_memory_stats = false;
  // CUDA device for "mixed"/"gpu" operators. CUDA is touched only when the graph has such
  // operators (a CPU-only graph never creates a context, whatever device_id says); then -1 means 0.
  int device_id = -1;
  // Nodes from this index on run in the device stage. -1: from the first mixed/gpu node, or no
  // device stage for CPU-only graphs. (Tests split CPU-only graphs with it.)
  int device_stage_from = -1;
  // Keep the readers' state before each iteration, for Checkpoint().
  bool checkpointing = false;
  MemoryConfig memory;
};

class Executor {
 public:
  Executor(ExecutorConfig cfg, Graph graph);
  ~Executor();

  // Requests one more batch.
  void Schedule();
  // Waits for the oldest scheduled batch and hands it out; it stays held (not overwritten) until
  // Release(). Throws the pipeline's error if a batch failed; throws if nothing is scheduled or
  // every slot is already held (instead of waiting forever).
  std::vector<Batch> TakeNext();
  // Returns the oldest held slot to the producer. No-op when nothing is held.
  void Release();
  // How many batches the caller may hold at once (the output ring).
  int queue_depth() const { return static_cast<int>(output_ring().size()); }
  // How many scheduled batches fill every ring: what the first run() schedules.
  int prefetch_depth() const { return cfg_.pipelined ? static_cast<int>(cpu_slots_.size() + dev_slots_.size()) : 1; }

  // Where the pipeline stands after the last batch taken, `rewind` batches earlier (a framework
  // iterator that took a batch but has not returned it yet). Needs cfg.checkpointing; `rewind`
  // goes back at most queue_depth() batches.
  PipelineCheckpoint Checkpoint(int rewind = 0) const;
  // Puts the readers and the iteration counter where `cp` says. Only before the first Schedule().
  // Throws when the checkpoint's readers are not this graph's readers.
  void Restore(const PipelineCheckpoint& cp);

  ExecutorStatistics Statistics() const;
  const Graph& graph() const { return graph_; }
  Operator& op(int node) { return *ops_[static_cast<size_t>(node)]; }
  const Operator& op(int node) const { return *ops_[static_cast<size_t>(node)]; }

 private:
  using Outputs = std::vector<std::vector<std::shared_ptr<TensorList>>>;  // [node][output]
  using OutputRefs = std::vector<std::shared_ptr<TensorList>>;            // the graph's outputs
  // A batch whose cpu stage is done, waiting for the device stage.
  struct Staged {
    int slot;
    int64_t iteration;
    std::exception_ptr error;
  };
  // A finished batch, in the output ring (which is the cpu ring when there is no device stage).
  struct Ready {
    int slot;
    std::exception_ptr error;
    OutputRefs outputs;
  };

  bool two_stage() const { return !dev_slots_.empty(); }
  const std::vector<Outputs>& output_ring() const { return two_stage() ? dev_slots_ : cpu_slots_; }
  std::deque<int>& output_free() { return two_stage() ? dev_free_ : free_; }

  void ProducerMain();
  void DeviceStageMain();
  // Runs nodes [begin, end) of `iteration`. Their outputs go to `own`; inputs come from `cpu` (the
  // cpu stage's nodes) or `own`. Throws on failure or cancellation.
  void RunNodes(size_t begin, size_t end, Outputs& cpu, Outputs& own, int64_t iteration);
  void RunNode(int node, Outputs& cpu, Outputs& own, int64_t iteration);
  void RecordMemory(int node, const Outputs& outs);
  // The readers' serialized states, now (each reader's state after its last batch).
  std::map<std::string, std::string> ReaderStates() const;
  OutputRefs CollectOutputs(const Outputs& cpu, const Outputs& own) const;
  // Runs the cpu stage of the next scheduled batch in a free cpu slot; mu_ is held on entry and
  // exit, released while the operators run. The producer thread calls it, and so does the
  // caller's thread in synchronous mode.
  void ProduceOne(std::unique_lock<std::mutex>& lk);
  // Runs the device stage of the oldest staged batch in a free device slot; same locking.
  void AdvanceDeviceStage(std::unique_lock<std::mutex>& lk);

  // The CUDA side of a pipeline with mixed/gpu operators: its stream, one event per device slot,
  // recorded after the slot's last GPU operator and handed out with its batch, and one per cpu
  // slot, recorded after the device stage that read the slot (the cpu stage waits for it before
  // writing the slot again: copies from host memory may still be in flight).
  // Declared first so that it is destroyed last (after the operators and the slots' buffers).
  struct GpuState {
    int device = -1;
    void* stream = nullptr;
    std::vector<std::shared_ptr<void>> ready_events;     // [device slot]
    std::vector<std::shared_ptr<void>> consumed_events;  // [cpu slot]
    ~GpuState();
  };
  std::unique_ptr<GpuState> gpu_;  // null for CPU-only graphs

  ExecutorConfig cfg_;
  Graph graph_;
  std::vector<std::unique_ptr<Operator>> ops_;
  std::vector<uint64_t> op_seeds_;
  std::vector<std::pair<std::string, ReaderOperator*>> readers_;  // node name, operator (in ops_)
  std::unique_ptr<ThreadPool> pool_;
  size_t split_ = 0;                  // nodes [0, split_) form the cpu stage
  std::vector<Outputs> cpu_slots_;     // the cpu stage's ring
  std::vector<Outputs> dev_slots_;     // the device stage's ring; empty without a device stage
  std::vector<std::vector<std::shared_ptr<SpareBuffers>>> spares_;  // [node][output]
  std::atomic<bool> stop_{false};

  mutable std::mutex mu_;
  std::condition_variable producer_cv_;
  std::condition_variable device_cv_;
  std::condition_variable consumer_cv_;
  // Guarded by mu_.
  std::deque<int> free_;       // free cpu slots
  std::deque<Staged> staged_;  // cpu stage done, device stage not started
  std::deque<int> dev_free_;   // free device slots
  std::deque<Ready> ready_;
  std::deque<Ready> held_;
  int scheduled_ = 0;   // scheduled, not yet started
  int in_flight_ = 0;   // started, not yet ready
  bool cpu_stage_failed_ = false;  // stops the cpu stage; the error reaches error_ in batch order
  int64_t next_iteration_ = 0;
  int64_t next_to_take_ = 0;   // the iteration the consumer takes next
  struct IterationStart {
    int64_t iteration;
    std::map<std::string, std::string> readers;
  };
  std::deque<IterationStart> iteration_starts_;  // checkpointing: readers before each iteration
  std::exception_ptr error_;  // sticky: a failed pipeline stays failed
  std::thread producer_;
  std::thread device_stage_;

  // Statistics.
  struct NodeStats {
    int64_t batches = 0;
    double total_ms = 0;
    double last_ms = 0;
    std::vector<size_t> real, max_real, reserved, max_reserved;
    bool fallback = false;
  };
  mutable std::mutex stats_mu_;
  std::vector<NodeStats> node_stats_;
  int64_t batches_produced_ = 0;
  int64_t occupancy_samples_ = 0;
  int64_t occupancy_sum_ = 0;
  int occupancy_max_ = 0;
  double consumer_wait_ms_ = 0;
  struct StageTime {
    int64_t batches = 0;
    double total_ms = 0;
    double mean_ms() const { return batches ? total_ms / static_cast<double>(batches) : 0.0; }
  };
  StageTime cpu_stage_time_, device_stage_time_;
};

}  // namespace sluice
