// Runs a Graph batch after batch: a background thread fills a ring of output slots (prefetch),
// operators split their samples over the worker pool, the consumer takes ready slots in order.
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
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <sluice/memory_config.h>
#include <sluice/pipeline.h>

#include "core/tensor_list.h"
#include "core/thread_pool.h"
#include "operators/operator.h"
#include "pipeline/graph.h"

namespace sluice {

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
  MemoryConfig memory;
};

// Spare buffers for one operator output. A batch handed to the caller may outlive its slot's
// release (a PyTorch loop variable holds the previous batch while the next is taken); the slot
// then writes into a spare instead. When the caller drops the batch, its buffers come back here
// (through the shared_ptr's deleter, on the caller's thread), so steady state allocates nothing:
// no page faults for fresh memory and no heap fragmentation from large blocks coming and going.
class SpareBuffers : public std::enable_shared_from_this<SpareBuffers> {
 public:
  explicit SpareBuffers(StorageKind kind) : kind_(kind) {}
  // A buffer whose last owner returns it here (or frees it, if the executor is gone).
  std::shared_ptr<TensorList> Take();

 private:
  static constexpr size_t kMaxSpares = 4;
  void Return(TensorList* tl);
  StorageKind kind_;
  std::mutex mu_;
  std::vector<std::unique_ptr<TensorList>> spares_;
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
  int queue_depth() const { return static_cast<int>(slots_.size()); }

  ExecutorStatistics Statistics() const;
  const Graph& graph() const { return graph_; }
  Operator& op(int node) { return *ops_[static_cast<size_t>(node)]; }
  const Operator& op(int node) const { return *ops_[static_cast<size_t>(node)]; }

 private:
  using Outputs = std::vector<std::vector<std::shared_ptr<TensorList>>>;  // [node][output]
  struct Ready {
    int slot;
    std::exception_ptr error;
  };

  void ProducerMain();
  // Runs every operator for `iteration` into slot `slot`. Throws on failure or cancellation.
  void RunIteration(int slot, int64_t iteration);
  void RunNode(int node, int slot, int64_t iteration);
  void RecordMemory(int node, const Outputs& outs);
  // Produces the next scheduled batch into a free slot and queues it as ready; mu_ is held on
  // entry and exit, released while the operators run. The producer thread calls it, and so does
  // the caller's thread in synchronous mode.
  void ProduceOne(std::unique_lock<std::mutex>& lk);

  // The CUDA side of a pipeline with mixed/gpu operators: its stream and one event per slot,
  // recorded after the slot's last GPU operator and waited for before the slot is handed out.
  // Declared first so that it is destroyed last (after the operators and the slots' buffers).
  struct GpuState {
    int device = -1;
    void* stream = nullptr;
    std::vector<void*> slot_events;
    ~GpuState();
  };
  std::unique_ptr<GpuState> gpu_;  // null for CPU-only graphs

  ExecutorConfig cfg_;
  Graph graph_;
  std::vector<std::unique_ptr<Operator>> ops_;
  std::vector<uint64_t> op_seeds_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<Outputs> slots_;
  std::vector<std::vector<std::shared_ptr<SpareBuffers>>> spares_;  // [node][output]
  std::atomic<bool> stop_{false};

  mutable std::mutex mu_;
  std::condition_variable producer_cv_;
  std::condition_variable consumer_cv_;
  // Guarded by mu_.
  std::deque<int> free_;
  std::deque<Ready> ready_;
  std::deque<int> held_;
  int scheduled_ = 0;   // scheduled, not yet started
  bool producing_ = false;
  int64_t next_iteration_ = 0;
  std::exception_ptr error_;  // sticky: a failed pipeline stays failed
  std::thread producer_;

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
};

}  // namespace sluice
