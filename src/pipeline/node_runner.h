// Runs the graph's nodes for one batch: creates the operators (each with its seed), assembles
// each node's workspace (inputs from either stage's slot, outputs through the spare buffers),
// checks input types against the schema, runs Setup + Run with the operator's name and the
// iteration added to any error, and records each node's time (and memory) in the statistics.
//
// Concurrency: RunNodes is called by one stage at a time per slot (the executor's slot queues
// hand slots over); the two stages run disjoint nodes concurrently. Operators are not shared
// between stages. The spare buffers have their own lock (spare_buffers.h). No lock is held while
// an operator runs.
//
// Small independent operators run side by side (CPU-only graphs): the cpu stage runs its nodes
// level by level (a node's level is one more than its inputs' highest), and the operators of a
// level that have a partial batch (at most a quarter of batch_size samples: the branches of a
// sluice.auto_aug switch) run concurrently, one operator per worker, each with its worker's inline
// pool (thread_pool.h), instead of one after the other each split over the workers. Nodes of one
// level never read each other's outputs, so the results are those of the sequential order; readers,
// operators without inputs and python_function-like operators always run alone.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor_list.h"
#include "core/thread_pool.h"
#include "operators/operator.h"
#include "pipeline/executor_config.h"
#include "pipeline/executor_stats.h"
#include "pipeline/gpu_context.h"
#include "pipeline/graph.h"
#include "pipeline/sample_replacement.h"
#include "pipeline/spare_buffers.h"

namespace sluice {

// One stage's slot: the output lists of every node, [node][output] (the other stage's nodes'
// entries stay empty).
using SlotOutputs = std::vector<std::vector<std::shared_ptr<TensorList>>>;
// A batch's pipeline outputs, in the graph's output order.
using OutputRefs = std::vector<std::shared_ptr<TensorList>>;

class NodeRunner {
 public:
  // Nodes [0, split) form the cpu stage, the rest the device stage. Throws sluice::Error naming
  // the operator when one cannot be created. `gpu` (may be null), `stats` and `stop` outlive it.
  NodeRunner(const ExecutorConfig& cfg, const Graph& graph, size_t split, GpuContext* gpu, ExecutorStats& stats,
             const std::atomic<bool>& stop);
  ~NodeRunner();  // destroys the operators (readers join their threads) before the pool

  // A slot for nodes [begin, end), presized with bytes_per_sample(_hint).
  SlotOutputs MakeSlot(size_t begin, size_t end);
  // Runs nodes [begin, end) of `iteration`. Their outputs go to `own`; inputs come from `cpu` (the
  // cpu stage's nodes) or `own`. Samples the operators reported as failed are appended to
  // `failed`. Throws on failure or cancellation.
  void RunNodes(size_t begin, size_t end, SlotOutputs& cpu, SlotOutputs& own, int64_t iteration,
                std::vector<FailedSample>& failed);
  OutputRefs CollectOutputs(const SlotOutputs& cpu, const SlotOutputs& own) const;
  // The iteration's last stage ran: replaces the failed rows in every pipeline output
  // (sample_replacement.h). Device outputs are copied on the pipeline's stream.
  void ReplaceFailedRows(std::vector<FailedSample>& failed, const OutputRefs& outputs) const;

  size_t split() const { return split_; }
  // The workers operators run on; the executor resizes it between batches (autotune).
  ThreadPool& pool() { return *pool_; }
  Operator& op(int node) { return *ops_[static_cast<size_t>(node)]; }
  const Operator& op(int node) const { return *ops_[static_cast<size_t>(node)]; }
  const std::vector<std::unique_ptr<Operator>>& ops() const { return ops_; }

 private:
  // One operator call in two parts: SetupNode (inputs, outputs taken from the spares, Setup and the
  // output allocations) and FinishNode (Run on `pool`, failed samples, statistics). RunNode does
  // both; RunLevels sets up side-by-side nodes on the stage's thread and finishes them on workers.
  struct NodeCall {
    Workspace ws;
    Workspace::FailedSamples failed;
    bool unfolded = false;  // a sequence run frame by frame (RunUnfolded sets up each part itself)
    double ms = 0;          // time in SetupNode
  };
  void RunNode(int node, SlotOutputs& cpu, SlotOutputs& own, int64_t iteration, std::vector<FailedSample>& failed,
               ThreadPool* pool);
  void SetupNode(int node, SlotOutputs& cpu, SlotOutputs& own, int64_t iteration, NodeCall& call);
  void FinishNode(int node, SlotOutputs& own, NodeCall& call, ThreadPool* pool, std::vector<FailedSample>& failed);
  // The cpu stage's nodes [0, split_) level by level, small ones side by side (see above).
  void RunLevels(SlotOutputs& cpu, int64_t iteration, std::vector<FailedSample>& failed);
  // Levels of the cpu stage's nodes and which may run beside others (constructor).
  void PlanLevels();
  void CheckInputs(const GraphNode& node, const Workspace& ws) const;
  void ResizeOutputs(const std::vector<OutputDesc>& descs, Workspace& ws) const;

  const ExecutorConfig& cfg_;
  const Graph& graph_;
  size_t split_;
  GpuContext* gpu_;
  ExecutorStats& stats_;
  const std::atomic<bool>& stop_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<std::unique_ptr<ThreadPool>> inline_pools_;  // one per worker id (RunLevels)
  std::vector<std::vector<int>> levels_;  // the cpu stage's nodes by level, in node order
  std::vector<uint8_t> side_by_side_;     // per node: may run beside the other nodes of its level
  std::vector<std::unique_ptr<Operator>> ops_;  // after pool_: destroyed first
  std::vector<uint64_t> op_seeds_;
  std::vector<std::vector<std::shared_ptr<SpareBuffers>>> spares_;  // [node][output]
};

}  // namespace sluice
