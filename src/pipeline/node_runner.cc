#include "pipeline/node_runner.h"
#include "pipeline/sequence_unfold.h"

#include <algorithm>
#include <chrono>

#include <sluice/error.h>

#include "core/cuda/device.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<int64_t> SizeHints(const OpSpec& spec) {
  auto it = spec.args.find("bytes_per_sample_hint");
  if (it == spec.args.end()) return {};
  return std::get<std::vector<int64_t>>(it->second);
}

Error::Context NodeContext(const GraphNode& node, int64_t iteration = -1) {
  Error::Context c;
  c.op = node.spec.name;
  c.iteration = iteration;
  return c;
}

// The layout of input `k` against the layouts its schema declares: the layout string, then every
// sample's number of dimensions against the layout it is read as (InputLayouts::Resolve).
void CheckInputLayout(const InputSchema& schema, size_t k, const TensorList& in) {
  const InputLayouts& accepted = schema.layouts;
  if (!accepted.declared()) return;
  const std::string input = "input " + std::to_string(k) + " ('" + schema.name + "')";
  const std::string& layout = in.layout();
  if (layout.empty() ? !accepted.empty_accepted() : !accepted.Accepts(layout))
    throw Error(input + " must have layout " + accepted.Text() + ", got " + (layout.empty() ? "none" : "'" + layout + "'"));
  if (in.num_samples() == 0) return;
  // A batch has one layout: without one, sample 0's number of dimensions chooses it for all.
  const std::optional<std::string> read_as = accepted.Resolve(layout, in.shape(0).ndim());
  for (int i = 0; i < in.num_samples(); ++i) {
    const TensorShape& s = in.shape(i);
    if (read_as && (read_as->empty() || s.ndim() == static_cast<int>(read_as->size()))) continue;
    Error::Context c;
    c.sample = i;
    c.source = in.source(i).ToString();
    std::string expected = "layout '" + layout + "'";
    if (layout.empty())
      expected = (read_as ? "layout '" + *read_as + "'" : "layout " + JoinOr(accepted.ReadWithoutLayout())) +
                 " (the input has no layout)";
    throw Error(input + " has a sample of shape " + s.ToString() + ", which does not match " + expected, c);
  }
}

}  // namespace

NodeRunner::NodeRunner(const ExecutorConfig& cfg, const Graph& graph, size_t split, GpuContext* gpu,
                       ExecutorStats& stats, const std::atomic<bool>& stop)
    : cfg_(cfg), graph_(graph), split_(split), gpu_(gpu), stats_(stats), stop_(stop) {
  for (const GraphNode& node : graph_.nodes()) {
    const auto hints = SizeHints(node.spec);
    if (hints.size() > 1 && hints.size() != node.spec.outputs.size()) {
      Error::Context c = NodeContext(node);
      c.argument = "bytes_per_sample_hint";
      throw Error("expected one value or one per output (" + std::to_string(node.spec.outputs.size()) + "), got " +
                      std::to_string(hints.size()),
                  c);
    }
    const OperatorFactory* f = node.schema->FindFactory(node.spec.device);
    if (!f)
      throw Error("operator '" + node.spec.op + "' has no implementation for device '" + node.spec.device + "'",
                  NodeContext(node));
    try {
      ops_.push_back((*f)(node.spec));
    } catch (const Error& e) {
      throw e.WithContext(NodeContext(node));
    }
    auto seed_it = node.spec.args.find("seed");
    const int64_t own = seed_it == node.spec.args.end() ? -1 : std::get<int64_t>(seed_it->second);
    op_seeds_.push_back(own >= 0 ? static_cast<uint64_t>(own)
                                 : DeriveSeed(cfg_.seed, static_cast<uint64_t>(node.insertion_index)));
    const StorageKind kind = node.stage == Stage::kCpu ? StorageKind::kHost : StorageKind::kDevice;
    spares_.emplace_back();
    for (size_t o = 0; o < node.spec.outputs.size(); ++o) spares_.back().push_back(std::make_shared<SpareBuffers>(kind));
  }
  pool_ = std::make_unique<ThreadPool>(cfg_.options.num_threads, cfg_.options.set_affinity, cfg_.max_threads);
  for (int t = 0; t < pool_->num_threads(); ++t)
    inline_pools_.push_back(std::make_unique<ThreadPool>(ThreadPool::InlineTag{}, pool_->num_threads(), t));
  PlanLevels();
}

void NodeRunner::PlanLevels() {
  if (gpu_ || split_ == 0) return;  // CPU-only graphs
  const auto& nodes = graph_.nodes();
  std::vector<int> level(split_, 0);
  side_by_side_.assign(split_, 0);
  for (size_t n = 0; n < split_; ++n) {
    const GraphNode& node = nodes[n];
    auto after = [&](const EdgeRef& e) {
      if (static_cast<size_t>(e.node) < split_) level[n] = std::max(level[n], level[static_cast<size_t>(e.node)] + 1);
    };
    for (const EdgeRef& e : node.inputs) after(e);
    for (const auto& [arg, e] : node.arg_inputs) after(e);
    side_by_side_[n] = node.stage == Stage::kCpu && !node.inputs.empty() && !node.schema->is_reader() &&
                       node.spec.op.find("function") == std::string::npos;
    if (levels_.size() <= static_cast<size_t>(level[n])) levels_.resize(static_cast<size_t>(level[n]) + 1);
    levels_[static_cast<size_t>(level[n])].push_back(static_cast<int>(n));
  }
}

NodeRunner::~NodeRunner() { ops_.clear(); }

SlotOutputs NodeRunner::MakeSlot(size_t begin, size_t end) {
  const auto& nodes = graph_.nodes();
  SlotOutputs outs(nodes.size());
  for (size_t n = begin; n < end; ++n) {
    const auto hints = SizeHints(nodes[n].spec);
    for (size_t o = 0; o < nodes[n].spec.outputs.size(); ++o) {
      auto tl = spares_[n][o]->Take();
      size_t hint = cfg_.options.bytes_per_sample;
      if (!hints.empty()) {
        const int64_t h = o < hints.size() ? hints[o] : hints[0];
        if (h > 0) hint = static_cast<size_t>(h);
      }
      if (hint) tl->Reserve(cfg_.options.batch_size, hint, cfg_.memory(), false);
      outs[n].push_back(std::move(tl));
    }
  }
  return outs;
}

void NodeRunner::RunNodes(size_t begin, size_t end, SlotOutputs& cpu, SlotOutputs& own, int64_t iteration,
                          std::vector<FailedSample>& failed) {
  if (gpu_) gpu_->UseDevice();  // per thread: the stage's thread, or the caller when synchronous
  // The slot lets go of the previous batch's outputs before any node writes: those nobody else
  // holds return to their spares and drop their views (spare_buffers.h), so that the nodes they
  // viewed find their blocks free again instead of allocating afresh.
  for (size_t n = begin; n < end; ++n)
    for (auto& tl : own[n]) tl.reset();
  if (begin == 0 && end == split_ && !levels_.empty() && pool_->active_threads() > 1) {
    RunLevels(cpu, iteration, failed);
    return;
  }
  for (size_t n = begin; n < end; ++n) {
    if (stop_.load(std::memory_order_relaxed)) throw Error("cancelled: the pipeline is shutting down");
    RunNode(static_cast<int>(n), cpu, own, iteration, failed, pool_.get());
  }
}

void NodeRunner::RunLevels(SlotOutputs& cpu, int64_t iteration, std::vector<FailedSample>& failed) {
  const size_t first = failed.size();
  const int small = std::max(1, cfg_.options.batch_size / 4);
  std::vector<int> side;
  for (const std::vector<int>& level : levels_) {
    side.clear();
    for (int n : level) {
      const GraphNode& node = graph_.nodes()[static_cast<size_t>(n)];
      const EdgeRef& in = node.inputs.empty() ? EdgeRef{} : node.inputs[0];
      if (side_by_side_[static_cast<size_t>(n)] &&
          cpu[static_cast<size_t>(in.node)][static_cast<size_t>(in.output)]->num_samples() <= small) {
        side.push_back(n);
        continue;
      }
      if (stop_.load(std::memory_order_relaxed)) throw Error("cancelled: the pipeline is shutting down");
      RunNode(n, cpu, cpu, iteration, failed, pool_.get());
    }
    if (side.size() == 1) {
      RunNode(side[0], cpu, cpu, iteration, failed, pool_.get());
    } else if (!side.empty()) {
      // Setup, and with it every output allocation, stays on this thread; only the kernels run
      // side by side. Output blocks allocated on the workers would come from malloc's per-thread
      // arenas, each holding its own free space: peak RSS rose by about 2% on the RandAugment
      // recipe, and is back to the sequential run's this way.
      std::vector<NodeCall> calls(side.size());
      for (size_t k = 0; k < side.size(); ++k) SetupNode(side[k], cpu, cpu, iteration, calls[k]);
      std::vector<std::vector<FailedSample>> side_failed(side.size());
      pool_->ParallelFor(static_cast<int>(side.size()), [&](int k, int t) {
        if (stop_.load(std::memory_order_relaxed)) throw Error("cancelled: the pipeline is shutting down");
        const auto i = static_cast<size_t>(k);
        FinishNode(side[i], cpu, calls[i], inline_pools_[static_cast<size_t>(t)].get(), side_failed[i]);
      });
      for (auto& f : side_failed)
        for (auto& rec : f) failed.push_back(std::move(rec));
    }
  }
  // In node order, as the sequential run reports them.
  std::stable_sort(failed.begin() + static_cast<std::ptrdiff_t>(first), failed.end(),
                   [](const FailedSample& a, const FailedSample& b) { return a.node < b.node; });
}

void NodeRunner::ReplaceFailedRows(std::vector<FailedSample>& failed, const OutputRefs& outputs) const {
  if (failed.empty()) return;
  sluice::ReplaceFailedRows(failed, outputs, cfg_.memory(), gpu_ ? gpu_->stream() : nullptr);
}

OutputRefs NodeRunner::CollectOutputs(const SlotOutputs& cpu, const SlotOutputs& own) const {
  OutputRefs refs;
  for (const EdgeRef& e : graph_.outputs()) {
    const SlotOutputs& home = static_cast<size_t>(e.node) < split_ ? cpu : own;
    refs.push_back(home[static_cast<size_t>(e.node)][static_cast<size_t>(e.output)]);
  }
  return refs;
}

void NodeRunner::RunNode(int n, SlotOutputs& cpu, SlotOutputs& outs, int64_t iteration,
                         std::vector<FailedSample>& failed, ThreadPool* pool) {
  NodeCall call;
  SetupNode(n, cpu, outs, iteration, call);
  FinishNode(n, outs, call, pool, failed);
}

void NodeRunner::SetupNode(int n, SlotOutputs& cpu, SlotOutputs& outs, int64_t iteration, NodeCall& call) {
  const GraphNode& node = graph_.nodes()[static_cast<size_t>(n)];
  Operator& op = *ops_[static_cast<size_t>(n)];
  const auto t0 = Clock::now();
  auto list_of = [&](const EdgeRef& e) {
    const SlotOutputs& home = static_cast<size_t>(e.node) < split_ ? cpu : outs;
    return home[static_cast<size_t>(e.node)][static_cast<size_t>(e.output)].get();
  };

  Workspace& ws = call.ws;
  ws.iteration_ = iteration;
  ws.op_seed_ = op_seeds_[static_cast<size_t>(n)];
  ws.pool_ = pool_.get();  // Setup's; FinishNode gives Run the pool it runs on
  ws.memory_ = &cfg_.memory();
  ws.cancel_ = &stop_;
  ws.failed_ = &call.failed;
  const bool on_stream = gpu_ && node.stage != Stage::kCpu;
  if (gpu_) {
    ws.device_id_ = gpu_->device();
    if (on_stream) ws.stream_ = gpu_->stream();
  }
  for (const EdgeRef& e : node.inputs) ws.inputs_.push_back(list_of(e));
  for (const auto& [arg, e] : node.arg_inputs) ws.arg_inputs_[arg] = list_of(e);
  // An operator without inputs makes as many samples as its per-sample arguments have (the partial
  // batch of a sluice.auto_aug branch, e.g. transforms.shear(shear=per-sample)), else a full batch.
  ws.batch_size_ = !ws.inputs_.empty()        ? ws.inputs_[0]->num_samples()
                   : !ws.arg_inputs_.empty() ? ws.arg_inputs_.begin()->second->num_samples()
                                             : cfg_.options.batch_size;
  for (auto& tl : outs[static_cast<size_t>(n)]) {
    // The slot gave its buffer back (RunNodes) and takes one: the same buffer when nobody else
    // holds it, else (a Batch outlives its release, or a batch of the other stage still refers to it) a
    // spare; theirs returns to the spares when they drop it. Going through the spares, rather
    // than testing use_count(), orders the last reader's accesses before these writes.
    tl = spares_[static_cast<size_t>(n)][ws.outputs_.size()]->Take();
    // Reads a consumer queued on its own stream come first.
    if (on_stream) {
      for (const auto& fence : tl->TakeReadFences()) cuda::StreamWaitEvent(gpu_->stream(), fence.get());
    }
    ws.outputs_.push_back(tl.get());
  }
  try {
    CheckInputs(node, ws);
    call.unfolded = NeedsSequenceUnfold(*node.schema, ws);
    if (!call.unfolded) ResizeOutputs(op.Setup(ws), ws);
  } catch (const Error& e) {
    throw e.WithContext(NodeContext(node, iteration));
  } catch (const std::exception& e) {
    throw Error(e.what(), NodeContext(node, iteration));
  }
  call.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void NodeRunner::FinishNode(int n, SlotOutputs& outs, NodeCall& call, ThreadPool* pool,
                            std::vector<FailedSample>& failed) {
  const GraphNode& node = graph_.nodes()[static_cast<size_t>(n)];
  Operator& op = *ops_[static_cast<size_t>(n)];
  const auto t0 = Clock::now();
  Workspace& ws = call.ws;
  ws.pool_ = pool;
  try {
    if (call.unfolded) {
      RunUnfolded(op, ws, cfg_.memory(), [this](const std::vector<OutputDesc>& d, Workspace& w) { ResizeOutputs(d, w); });
    } else {
      op.Run(ws);
    }
  } catch (const Error& e) {
    throw e.WithContext(NodeContext(node, ws.iteration_));
  } catch (const std::exception& e) {
    throw Error(e.what(), NodeContext(node, ws.iteration_));
  }
  // Sorted by sample: the order of the reports depends on the threads, the log's must not.
  auto& records = call.failed.records;
  std::sort(records.begin(), records.end(),
            [](const SampleErrorRecord& a, const SampleErrorRecord& b) { return a.sample < b.sample; });
  for (auto& rec : records) {
    rec.op = node.spec.name;
    rec.iteration = ws.iteration_;
    failed.push_back({n, std::move(rec)});
  }
  stats_.RecordNode(n, call.ms + std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  if (cfg_.options.enable_memory_stats) stats_.RecordMemory(n, outs[static_cast<size_t>(n)]);
}

// Input types and layouts the schema declares (checked here once per batch, so operators can rely
// on them).
void NodeRunner::CheckInputs(const GraphNode& node, const Workspace& ws) const {
  const auto& in_schemas = node.schema->inputs();
  for (size_t k = 0; k < ws.inputs_.size() && k < in_schemas.size(); ++k) {
    const auto& allowed = in_schemas[k].dtypes;
    const DType t = ws.inputs_[k]->dtype();
    if (!allowed.empty() && ws.inputs_[k]->num_samples() > 0 &&
        std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
      std::string names;
      for (DType a : allowed) names += (names.empty() ? "" : ", ") + std::string(ToString(a));
      throw Error("input '" + in_schemas[k].name + "' must be " + names + ", got " + std::string(ToString(t)));
    }
    CheckInputLayout(in_schemas[k], k, *ws.inputs_[k]);
  }
}

// Allocates the outputs Setup described (an empty description: Setup resized them itself).
void NodeRunner::ResizeOutputs(const std::vector<OutputDesc>& descs, Workspace& ws) const {
  if (descs.empty()) return;
  if (descs.size() != ws.outputs_.size())
    throw Error("Setup returned " + std::to_string(descs.size()) + " output descriptions for " +
                std::to_string(ws.outputs_.size()) + " outputs");
  for (size_t o = 0; o < descs.size(); ++o) {
    TensorList& tl = *ws.outputs_[o];
    if (descs[o].views) tl.ResizeViews(descs[o].shapes, descs[o].dtype);
    else if (!descs[o].sample_views.empty()) tl.ResizeMixed(descs[o].shapes, descs[o].dtype, cfg_.memory(), descs[o].sample_views);
    else tl.Resize(descs[o].shapes, descs[o].dtype, cfg_.memory(), descs[o].contiguous);
    tl.set_layout(descs[o].layout);
    if (!ws.inputs_.empty() && ws.inputs_[0]->num_samples() == tl.num_samples()) {
      for (int i = 0; i < tl.num_samples(); ++i) tl.source(i) = ws.inputs_[0]->source(i);
    }
  }
}

}  // namespace sluice
