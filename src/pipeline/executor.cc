#include "pipeline/executor.h"

#include <algorithm>
#include <chrono>

#include <sluice/error.h>

#include "core/cuda/device.h"
#include "readers/reader_operator.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::vector<int64_t> SizeHints(const OpSpec& spec) {
  auto it = spec.args.find("bytes_per_sample_hint");
  if (it == spec.args.end()) return {};
  return std::get<std::vector<int64_t>>(it->second);
}

}  // namespace

Executor::GpuState::~GpuState() {
  if (stream) {
    try {
      cuda::StreamSynchronize(stream);
    } catch (...) {  // a failed stream is being torn down anyway
    }
  }
  // The events are shared with batches that may outlive the executor; each goes with its last owner.
  cuda::DestroyStream(stream);
}

Executor::Executor(ExecutorConfig cfg, Graph graph) : cfg_(std::move(cfg)), graph_(std::move(graph)) {
  cfg_.memory.Validate();
  if (cfg_.batch_size < 1) throw Error("batch_size must be at least 1, got " + std::to_string(cfg_.batch_size));
  if (cfg_.cpu_queue_depth < 1 || cfg_.gpu_queue_depth < 1)
    throw Error("prefetch_queue_depth must be at least 1");
  const auto& nodes = graph_.nodes();
  // CUDA only for graphs with mixed/gpu operators: selects the device, installs the pinned and
  // device allocators (first time only) and creates the pipeline's stream, before any operator or
  // output buffer exists.
  if (std::any_of(nodes.begin(), nodes.end(), [](const GraphNode& n) { return n.stage != Stage::kCpu; })) {
    gpu_ = std::make_unique<GpuState>();
    gpu_->device = cfg_.device_id >= 0 ? cfg_.device_id : 0;
    cuda::InitDevice(gpu_->device);
    gpu_->stream = cuda::CreateStream();
  }
  for (const auto& node : nodes) {
    const auto hints = SizeHints(node.spec);
    if (hints.size() > 1 && hints.size() != node.spec.outputs.size()) {
      Error::Context c;
      c.op = node.spec.name;
      c.argument = "bytes_per_sample_hint";
      throw Error("expected one value or one per output (" + std::to_string(node.spec.outputs.size()) + "), got " +
                      std::to_string(hints.size()),
                  c);
    }
    const OperatorFactory* f = node.schema->FindFactory(node.spec.device);
    if (!f) {
      Error::Context c;
      c.op = node.spec.name;
      throw Error("operator '" + node.spec.op + "' has no implementation for device '" + node.spec.device + "'", c);
    }
    try {
      ops_.push_back((*f)(node.spec));
    } catch (const Error& e) {
      Error::Context c;
      c.op = node.spec.name;
      throw e.WithContext(c);
    }
    auto seed_it = node.spec.args.find("seed");
    int64_t own = seed_it == node.spec.args.end() ? -1 : std::get<int64_t>(seed_it->second);
    op_seeds_.push_back(own >= 0 ? static_cast<uint64_t>(own)
                                 : DeriveSeed(cfg_.seed, static_cast<uint64_t>(node.insertion_index)));
  }
  for (size_t n = 0; n < ops_.size(); ++n) {
    if (auto* reader = dynamic_cast<ReaderOperator*>(ops_[n].get())) readers_.emplace_back(nodes[n].spec.name, reader);
  }
  pool_ = std::make_unique<ThreadPool>(cfg_.num_threads, cfg_.set_affinity);

  // Nodes are ordered by stage, so the device stage is a suffix of the node list.
  split_ = nodes.size();
  if (cfg_.device_stage_from >= 0) {
    split_ = std::min(nodes.size(), static_cast<size_t>(cfg_.device_stage_from));
  } else {
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].stage != Stage::kCpu) {
        split_ = n;
        break;
      }
    }
  }
  spares_.resize(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    const StorageKind kind = nodes[n].stage == Stage::kCpu ? StorageKind::kHost : StorageKind::kDevice;
    for (size_t o = 0; o < nodes[n].spec.outputs.size(); ++o) spares_[n].push_back(std::make_shared<SpareBuffers>(kind));
  }
  // A slot holds the outputs of one stage's nodes (the other stage's entries stay empty).
  auto make_slot = [&](size_t begin, size_t end) {
    Outputs outs(nodes.size());
    for (size_t n = begin; n < end; ++n) {
      const auto hints = SizeHints(nodes[n].spec);
      for (size_t o = 0; o < nodes[n].spec.outputs.size(); ++o) {
        auto tl = spares_[n][o]->Take();
        size_t hint = cfg_.bytes_per_sample;
        if (!hints.empty()) {
          const int64_t h = o < hints.size() ? hints[o] : hints[0];
          if (h > 0) hint = static_cast<size_t>(h);
        }
        if (hint) tl->Reserve(cfg_.batch_size, hint, cfg_.memory, false);
        outs[n].push_back(std::move(tl));
      }
    }
    return outs;
  };
  // Without pipelining, one slot per ring.
  const int cpu_depth = cfg_.pipelined ? cfg_.cpu_queue_depth : 1;
  const int dev_depth = split_ == nodes.size() ? 0 : cfg_.pipelined ? cfg_.gpu_queue_depth : 1;
  for (int s = 0; s < cpu_depth; ++s) {
    cpu_slots_.push_back(make_slot(0, split_));
    free_.push_back(s);
    if (gpu_) gpu_->consumed_events.push_back(cuda::MakeSharedEvent());
  }
  for (int s = 0; s < dev_depth; ++s) {
    dev_slots_.push_back(make_slot(split_, nodes.size()));
    dev_free_.push_back(s);
    if (gpu_) gpu_->ready_events.push_back(cuda::MakeSharedEvent());
  }
  node_stats_.resize(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) RecordMemory(static_cast<int>(n), n < split_ ? cpu_slots_[0] : dev_slots_[0]);
  if (cfg_.async) {
    producer_ = std::thread([this] { ProducerMain(); });
    if (two_stage()) device_stage_ = std::thread([this] { DeviceStageMain(); });
  }
}

Executor::~Executor() {
  {
    std::lock_guard lk(mu_);
    stop_.store(true);
  }
  producer_cv_.notify_all();
  device_cv_.notify_all();
  consumer_cv_.notify_all();
  if (producer_.joinable()) producer_.join();
  if (device_stage_.joinable()) device_stage_.join();
  ops_.clear();  // readers join their loader threads here, before the pool goes away
}

void Executor::Schedule() {
  {
    std::lock_guard lk(mu_);
    if (error_) std::rethrow_exception(error_);
    ++scheduled_;
  }
  producer_cv_.notify_one();
}

void Executor::ProducerMain() {
  std::unique_lock lk(mu_);
  for (;;) {
    producer_cv_.wait(lk, [&] {
      return stop_.load() || (scheduled_ > 0 && !free_.empty() && !error_ && !cpu_stage_failed_);
    });
    if (stop_.load()) return;
    ProduceOne(lk);
    if (stop_.load()) return;
    if (!two_stage()) consumer_cv_.notify_all();
  }
}

void Executor::DeviceStageMain() {
  std::unique_lock lk(mu_);
  for (;;) {
    device_cv_.wait(lk, [&] { return stop_.load() || (!staged_.empty() && !dev_free_.empty()); });
    if (stop_.load()) return;
    AdvanceDeviceStage(lk);
    if (stop_.load()) return;
    consumer_cv_.notify_all();
  }
}

void Executor::ProduceOne(std::unique_lock<std::mutex>& lk) {
  const int slot = free_.front();
  free_.pop_front();
  --scheduled_;
  ++in_flight_;
  const int64_t iteration = next_iteration_++;
  // Under mu_, before this iteration's readers run: Checkpoint() reads states live only while no
  // iteration past the consumer's has started.
  std::exception_ptr err;
  if (cfg_.checkpointing) {
    try {
      iteration_starts_.push_back({iteration, ReaderStates()});
    } catch (...) {  // e.g. a lazily initialized reader whose dataset is missing
      err = std::current_exception();
    }
  }
  lk.unlock();
  Outputs& outs = cpu_slots_[static_cast<size_t>(slot)];
  OutputRefs refs;
  if (!err) {
    try {
      if (gpu_) cuda::EventSynchronize(gpu_->consumed_events[static_cast<size_t>(slot)].get());
      const auto t0 = Clock::now();
      RunNodes(0, split_, outs, outs, iteration);
      const double ms = MsSince(t0);
      if (!two_stage()) refs = CollectOutputs(outs, outs);
      std::lock_guard sl(stats_mu_);
      ++cpu_stage_time_.batches;
      cpu_stage_time_.total_ms += ms;
      if (!two_stage()) ++batches_produced_;
    } catch (...) {
      err = std::current_exception();
    }
  }
  lk.lock();
  if (stop_.load()) return;  // shutting down: nobody takes this batch
  if (two_stage()) {
    // A failure stops the cpu stage now, but reaches the consumer after the batches before it.
    if (err) cpu_stage_failed_ = true;
    staged_.push_back({slot, iteration, err});
    device_cv_.notify_one();
    return;
  }
  --in_flight_;
  if (err && !error_) error_ = err;
  ready_.push_back({slot, err, std::move(refs)});
}

void Executor::AdvanceDeviceStage(std::unique_lock<std::mutex>& lk) {
  const Staged staged = staged_.front();
  staged_.pop_front();
  const int slot = dev_free_.front();
  dev_free_.pop_front();
  lk.unlock();
  Outputs& cpu = cpu_slots_[static_cast<size_t>(staged.slot)];
  Outputs& own = dev_slots_[static_cast<size_t>(slot)];
  std::exception_ptr err = staged.error;
  OutputRefs refs;
  if (!err) {
    try {
      const auto t0 = Clock::now();
      RunNodes(split_, graph_.nodes().size(), cpu, own, staged.iteration);
      if (gpu_) cuda::RecordEvent(gpu_->ready_events[static_cast<size_t>(slot)].get(), gpu_->stream);
      const double ms = MsSince(t0);
      refs = CollectOutputs(cpu, own);
      std::lock_guard sl(stats_mu_);
      ++device_stage_time_.batches;
      device_stage_time_.total_ms += ms;
      ++batches_produced_;
    } catch (...) {
      err = std::current_exception();
    }
  }
  // After the device stage ran (even partly): copies from the cpu slot may still be in flight.
  if (gpu_ && !staged.error) {
    try {
      cuda::RecordEvent(gpu_->consumed_events[static_cast<size_t>(staged.slot)].get(), gpu_->stream);
    } catch (...) {
      if (!err) err = std::current_exception();
    }
  }
  lk.lock();
  free_.push_back(staged.slot);
  producer_cv_.notify_one();
  if (stop_.load()) return;
  --in_flight_;
  if (err && !error_) error_ = err;
  ready_.push_back({slot, err, std::move(refs)});
}

Executor::OutputRefs Executor::CollectOutputs(const Outputs& cpu, const Outputs& own) const {
  OutputRefs refs;
  for (const EdgeRef& e : graph_.outputs()) {
    const Outputs& home = static_cast<size_t>(e.node) < split_ ? cpu : own;
    refs.push_back(home[static_cast<size_t>(e.node)][static_cast<size_t>(e.output)]);
  }
  return refs;
}

std::vector<Batch> Executor::TakeNext() {
  const auto t0 = Clock::now();
  std::unique_lock lk(mu_);
  if (error_ && ready_.empty()) std::rethrow_exception(error_);
  if (ready_.empty() && scheduled_ == 0 && in_flight_ == 0)
    throw Error("no batch is scheduled: call schedule_run() before share_outputs()/outputs()");
  if (static_cast<int>(held_.size()) >= queue_depth())
    throw Error("all " + std::to_string(queue_depth()) +
                " output buffers are held by the caller: call release_outputs() before taking more outputs");
  if (!cfg_.async) {
    while (ready_.empty() && !error_) {
      if (two_stage() && !staged_.empty() && !dev_free_.empty()) {
        AdvanceDeviceStage(lk);
      } else if (scheduled_ > 0 && !free_.empty() && !cpu_stage_failed_) {
        ProduceOne(lk);
      } else {
        break;
      }
    }
  } else {
    consumer_cv_.wait(lk, [&] { return stop_.load() || !ready_.empty(); });
  }
  if (ready_.empty()) {
    if (error_) std::rethrow_exception(error_);
    throw Error("the pipeline is shutting down");
  }
  Ready r = std::move(ready_.front());
  const int occupancy = static_cast<int>(ready_.size());
  ready_.pop_front();
  ++next_to_take_;
  while (!iteration_starts_.empty() && iteration_starts_.front().iteration < next_to_take_ - queue_depth())
    iteration_starts_.pop_front();
  if (r.error) {
    output_free().push_back(r.slot);
    lk.unlock();
    producer_cv_.notify_one();
    device_cv_.notify_one();
    std::rethrow_exception(r.error);
  }
  // A "gpu" output is handed out with the event of its slot's GPU work, not waited for here: the
  // consumer orders its stream after it (Batch::WaitOn). The event is re-recorded only when the
  // slot is reused for a later batch, which completes after this one, so waiting stays correct.
  std::vector<Batch> out;
  const auto& outputs = graph_.outputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const bool on_gpu = gpu_ && graph_.IsGpuEdge(outputs[i]);
    out.emplace_back(r.outputs[i], on_gpu ? gpu_->ready_events[static_cast<size_t>(r.slot)] : nullptr,
                     on_gpu ? gpu_->device : -1);
  }
  held_.push_back(std::move(r));
  lk.unlock();
  std::lock_guard sl(stats_mu_);
  ++occupancy_samples_;
  occupancy_sum_ += occupancy;
  occupancy_max_ = std::max(occupancy_max_, occupancy);
  consumer_wait_ms_ += MsSince(t0);
  return out;
}

void Executor::Release() {
  Ready released;
  {
    std::lock_guard lk(mu_);
    if (held_.empty()) return;
    released = std::move(held_.front());
    held_.pop_front();
    output_free().push_back(released.slot);
  }
  released.outputs.clear();  // outside mu_: a last reference returns its buffer to the spares
  producer_cv_.notify_one();
  device_cv_.notify_one();
}

std::map<std::string, std::string> Executor::ReaderStates() const {
  std::map<std::string, std::string> states;
  for (const auto& [name, reader] : readers_) states[name] = reader->SerializeState();
  return states;
}

PipelineCheckpoint Executor::Checkpoint(int rewind) const {
  if (!cfg_.checkpointing) throw Error("checkpoints need a pipeline built with enable_checkpointing=True");
  std::lock_guard lk(mu_);
  if (rewind < 0 || rewind > next_to_take_ || rewind > queue_depth())
    throw Error("cannot take a checkpoint " + std::to_string(rewind) + " batch(es) back");
  PipelineCheckpoint cp;
  cp.seed = cfg_.seed;
  cp.iteration = next_to_take_ - rewind;
  if (cp.iteration == next_iteration_) {
    cp.readers = ReaderStates();  // nothing past the consumer has started: the readers are there
    return cp;
  }
  for (const IterationStart& s : iteration_starts_) {
    if (s.iteration == cp.iteration) {
      cp.readers = s.readers;
      return cp;
    }
  }
  throw Error("no reader state kept for iteration " + std::to_string(cp.iteration));
}

void Executor::Restore(const PipelineCheckpoint& cp) {
  std::lock_guard lk(mu_);
  if (cp.seed != cfg_.seed)
    throw Error("the checkpoint was taken with seed " + std::to_string(cp.seed) + ", this pipeline has seed " +
                std::to_string(cfg_.seed));
  if (next_iteration_ != 0 || scheduled_ != 0 || in_flight_ != 0)
    throw Error("a checkpoint can only be restored before the pipeline runs");
  for (const auto& [name, reader] : readers_) {
    if (!cp.readers.count(name)) throw Error("the checkpoint has no state for the reader '" + name + "'");
  }
  for (const auto& entry : cp.readers) {
    const std::string& name = entry.first;  // a plain reference: clang 14 cannot capture bindings
    if (std::none_of(readers_.begin(), readers_.end(), [&](const auto& r) { return r.first == name; }))
      throw Error("the checkpoint names a reader '" + name + "' that this pipeline lacks");
  }
  for (const auto& [name, reader] : readers_) reader->RestoreState(cp.readers.at(name));
  next_iteration_ = next_to_take_ = cp.iteration;
}

void Executor::RunNodes(size_t begin, size_t end, Outputs& cpu, Outputs& own, int64_t iteration) {
  if (gpu_) cuda::SetDevice(gpu_->device);  // per thread: the stage's thread, or the caller when synchronous
  for (size_t n = begin; n < end; ++n) {
    if (stop_.load(std::memory_order_relaxed)) throw Error("cancelled: the pipeline is shutting down");
    RunNode(static_cast<int>(n), cpu, own, iteration);
  }
}

void Executor::RunNode(int n, Outputs& cpu, Outputs& outs, int64_t iteration) {
  const GraphNode& node = graph_.nodes()[static_cast<size_t>(n)];
  Operator& op = *ops_[static_cast<size_t>(n)];
  const auto t0 = Clock::now();
  auto list_of = [&](const EdgeRef& e) {
    const Outputs& home = static_cast<size_t>(e.node) < split_ ? cpu : outs;
    return home[static_cast<size_t>(e.node)][static_cast<size_t>(e.output)].get();
  };

  Workspace ws;
  ws.iteration_ = iteration;
  ws.op_seed_ = op_seeds_[static_cast<size_t>(n)];
  ws.pool_ = pool_.get();
  ws.memory_ = &cfg_.memory;
  ws.cancel_ = &stop_;
  const bool on_stream = gpu_ && node.stage != Stage::kCpu;
  if (gpu_) {
    ws.device_id_ = gpu_->device;
    if (on_stream) ws.stream_ = gpu_->stream;
  }
  for (const EdgeRef& e : node.inputs) ws.inputs_.push_back(list_of(e));
  for (const auto& [arg, e] : node.arg_inputs) ws.arg_inputs_[arg] = list_of(e);
  ws.batch_size_ = ws.inputs_.empty() ? cfg_.batch_size : ws.inputs_[0]->num_samples();
  for (auto& tl : outs[static_cast<size_t>(n)]) {
    // The slot gives its buffer back and takes one: the same buffer when nobody else holds it,
    // else (a Batch outlives its release, or a batch of the other stage still refers to it) a
    // spare; theirs returns to the spares when they drop it. Going through the spares, rather
    // than testing use_count(), orders the last reader's accesses before these writes.
    tl.reset();
    tl = spares_[static_cast<size_t>(n)][ws.outputs_.size()]->Take();
    // Reads a consumer queued on its own stream come first.
    if (on_stream) {
      for (const auto& fence : tl->TakeReadFences()) cuda::StreamWaitEvent(gpu_->stream, fence.get());
    }
    ws.outputs_.push_back(tl.get());
  }
  try {
    // Input types the schema declares (checked here once, so operators can rely on them).
    const auto& in_schemas = node.schema->inputs();
    for (size_t k = 0; k < ws.inputs_.size() && k < in_schemas.size(); ++k) {
      const auto& allowed = in_schemas[k].dtypes;
      const DType t = ws.inputs_[k]->dtype();
      if (!allowed.empty() && ws.inputs_[k]->num_samples() > 0 && std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
        std::string names;
        for (DType a : allowed) names += (names.empty() ? "" : ", ") + std::string(ToString(a));
        throw Error("input '" + in_schemas[k].name + "' must be " + names + ", got " + std::string(ToString(t)));
      }
    }
    std::vector<OutputDesc> descs = op.Setup(ws);
    if (!descs.empty()) {
      if (descs.size() != ws.outputs_.size())
        throw Error("Setup returned " + std::to_string(descs.size()) + " output descriptions for " +
                    std::to_string(ws.outputs_.size()) + " outputs");
      for (size_t o = 0; o < descs.size(); ++o) {
        TensorList& tl = *ws.outputs_[o];
        tl.Resize(descs[o].shapes, descs[o].dtype, cfg_.memory, descs[o].contiguous);
        tl.set_layout(descs[o].layout);
        if (!ws.inputs_.empty() && ws.inputs_[0]->num_samples() == tl.num_samples()) {
          for (int i = 0; i < tl.num_samples(); ++i) tl.source(i) = ws.inputs_[0]->source(i);
        }
      }
    }
    op.Run(ws);
  } catch (const Error& e) {
    Error::Context c;
    c.op = node.spec.name;
    c.iteration = iteration;
    throw e.WithContext(c);
  } catch (const std::exception& e) {
    Error::Context c;
    c.op = node.spec.name;
    c.iteration = iteration;
    throw Error(e.what(), c);
  }

  const double ms = MsSince(t0);
  {
    std::lock_guard sl(stats_mu_);
    NodeStats& st = node_stats_[static_cast<size_t>(n)];
    ++st.batches;
    st.total_ms += ms;
    st.last_ms = ms;
  }
  if (cfg_.enable_memory_stats) RecordMemory(n, outs);
}

void Executor::RecordMemory(int n, const Outputs& outs) {
  std::lock_guard sl(stats_mu_);
  NodeStats& st = node_stats_[static_cast<size_t>(n)];
  const auto& lists = outs[static_cast<size_t>(n)];
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

ExecutorStatistics Executor::Statistics() const {
  ExecutorStatistics s;
  std::lock_guard sl(stats_mu_);
  const auto& nodes = graph_.nodes();
  for (size_t n = 0; n < nodes.size(); ++n) {
    const NodeStats& st = node_stats_[n];
    OperatorStatistics o;
    o.name = nodes[n].spec.name;
    o.op = nodes[n].spec.op;
    o.device = nodes[n].spec.device;
    if (cfg_.enable_memory_stats) {
      o.real_memory_size = st.real;
      o.max_real_memory_size = st.max_real;
      o.reserved_memory_size = st.reserved;
      o.max_reserved_memory_size = st.max_reserved;
    }
    o.memory_is_fallback = st.fallback;
    o.replaced_samples = ops_[n]->replaced_samples();
    o.batches = st.batches;
    o.total_time_ms = st.total_ms;
    o.last_batch_ms = st.last_ms;
    s.operators.push_back(std::move(o));
  }
  s.mean_queue_occupancy = occupancy_samples_ ? static_cast<double>(occupancy_sum_) / static_cast<double>(occupancy_samples_) : 0.0;
  s.max_queue_occupancy = occupancy_max_;
  s.queue_capacity = queue_depth();
  s.cpu_queue_capacity = static_cast<int>(cpu_slots_.size());
  s.batches_produced = batches_produced_;
  s.consumer_wait_ms = consumer_wait_ms_;
  s.cpu_stage_ms = cpu_stage_time_.mean_ms();
  s.device_stage_ms = device_stage_time_.mean_ms();
  return s;
}

}  // namespace sluice
