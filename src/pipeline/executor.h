// Runs a Graph batch after batch: stages fill rings of output slots ahead of the consumer
// (prefetch), operators split their samples over the worker pool, the consumer takes ready slots
// in order.
//
// Graphs with mixed/gpu operators run in two stages, each with its own ring: the cpu stage (ring
// of cpu_queue_depth slots) and the device stage (mixed + gpu operators, ring of gpu_queue_depth
// slots), so the cpu operators of later batches overlap the device stage of earlier ones. A cpu
// slot returns to its stage as soon as the device stage has consumed it; the consumer holds device
// slots. Pipeline outputs made by the cpu stage (labels) are handed out by reference: a cpu slot
// reused while its output is still held writes into a spare buffer.
//
// The parts: SlotQueues (which slot holds which batch: queue policy), NodeRunner (operators,
// workspaces, running a node), ExecutorStats, CheckpointLog, GpuContext (stream and events). This
// class ties them with one scheduler, Step(): asynchronous mode runs it on one thread per stage,
// synchronous mode on the caller's thread inside TakeNext.
//
// Concurrency: one mutex (mu_) guards the slot queues, the checkpoint log and the API mode; it is
// released while operators run. ExecutorStats has its own mutex, and so do operators that keep
// state (taken inside mu_ when the log saves states). Lock order: mu_, then an operator's lock,
// then the statistics' lock (never the reverse). Stop (destructor) sets a flag that every wait and
// every sample loop checks, so destruction returns promptly even in the middle of a long batch.
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <sluice/pipeline.h>

#include "operators/operator.h"
#include "pipeline/autotuner.h"
#include "pipeline/checkpoint.h"
#include "pipeline/checkpoint_log.h"
#include "pipeline/replaced_row_log.h"
#include "pipeline/executor_config.h"
#include "pipeline/executor_stats.h"
#include "pipeline/gpu_context.h"
#include "pipeline/graph.h"
#include "pipeline/node_runner.h"
#include "pipeline/slot_queues.h"

namespace sluice {

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
  int queue_depth() const { return queues_->output_depth(); }
  // How many scheduled batches fill every ring: what the first run() schedules.
  int prefetch_depth() const {
    return cfg_.options.exec_pipelined ? static_cast<int>(cpu_slots_.size() + dev_slots_.size()) : 1;
  }

  // Where the pipeline stands after the last batch taken, `rewind` batches earlier (a framework
  // iterator that took a batch but has not returned it yet). Needs options.enable_checkpointing;
  // `rewind` goes back at most queue_depth() batches.
  PipelineCheckpoint Checkpoint(int rewind = 0) const;
  // Puts the stateful operators and the iteration counter where `cp` says. Only before the first
  // Schedule(). Throws when the checkpoint's operators are not this graph's stateful operators.
  void Restore(const PipelineCheckpoint& cp);

  ExecutorStatistics Statistics() const;
  // The rows replaced after errors (on_error="replace"; sample_replacement.h), in the order the
  // batches were taken; the last kMaxErrorLog records.
  static constexpr size_t kMaxErrorLog = 10000;
  std::vector<SampleErrorRecord> ErrorLog() const;
  const Graph& graph() const { return graph_; }
  Operator& op(int node) { return runner_->op(node); }
  const Operator& op(int node) const { return runner_->op(node); }

 private:
  enum Stages { kCpuStage = 1, kDeviceStage = 2, kBothStages = 3 };
  // The scheduler. Whether a batch of `stages` can run now.
  bool Runnable(int stages) const;
  // Runs one batch's stage of `stages` (the device stage first: it frees cpu slots); mu_ is held
  // on entry and exit, released while the operators run. False when nothing could run.
  bool Step(std::unique_lock<std::mutex>& lk, int stages);
  void RunCpuStage(std::unique_lock<std::mutex>& lk);
  void RunDeviceStage(std::unique_lock<std::mutex>& lk);
  // Autotune hooks (no-ops without a tuner): before a cpu batch, outside mu_, the worker count the
  // tuner asks for; after it, its measurements (an error when memory_budget cannot hold a batch).
  void TuneBeforeCpuBatch();
  std::exception_ptr TuneAfterCpuBatch(double ms, const SlotOutputs& slot, const OutputRefs& outputs);
  // A stage's thread (asynchronous mode): Step until stopped.
  void StageThread(int stages, std::condition_variable& cv);

  // Declared first so that it is destroyed last (after the operators and the slots' buffers).
  std::unique_ptr<GpuContext> gpu_;  // null for CPU-only graphs
  ExecutorConfig cfg_;
  Graph graph_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<ExecutorStats> stats_;
  std::unique_ptr<NodeRunner> runner_;
  std::unique_ptr<Autotuner> tuner_;  // null unless auto_threads, auto_queue_depth or memory_budget
  std::vector<SlotOutputs> cpu_slots_;  // the cpu stage's ring
  std::vector<SlotOutputs> dev_slots_;  // the device stage's ring; empty without a device stage

  mutable std::mutex mu_;
  std::condition_variable cpu_cv_;       // the cpu stage's thread waits here
  std::condition_variable device_cv_;    // the device stage's thread waits here
  std::condition_variable consumer_cv_;  // TakeNext waits here (asynchronous mode)
  std::unique_ptr<SlotQueues> queues_;   // guarded by mu_
  std::unique_ptr<CheckpointLog> log_;   // guarded by mu_
  ReplacedRowLog error_log_{kMaxErrorLog};  // guarded by mu_
  // Failures the cpu stage reported, per cpu slot: read by the device stage of the same batch
  // (the slot is its until FreeCpuSlot).
  std::vector<std::vector<FailedSample>> cpu_failed_;
  std::thread cpu_thread_;
  std::thread device_thread_;
};

}  // namespace sluice
