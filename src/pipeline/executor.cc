#include "pipeline/executor.h"

#include <algorithm>
#include <chrono>

#include <sluice/error.h>

#include "operators/operator_counters.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Nodes are ordered by stage, so the device stage is a suffix of the node list.
size_t DeviceStageStart(const Graph& graph, int device_stage_from) {
  const auto& nodes = graph.nodes();
  if (device_stage_from >= 0) return std::min(nodes.size(), static_cast<size_t>(device_stage_from));
  for (size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].stage != Stage::kCpu) return n;
  return nodes.size();
}

}  // namespace

Executor::Executor(ExecutorConfig cfg, Graph graph) : cfg_(std::move(cfg)), graph_(std::move(graph)) {
  if (!cfg_.options.memory) cfg_.options.memory.emplace();
  if (cfg_.options.auto_threads) {
    // The search starts at the fixed default (one worker per available CPU) and measures counts up
    // to twice that (decode workers block on I/O and page faults). Tests may set both.
    const int cpus = AvailableCpus();
    if (cfg_.auto_start_threads <= 0) cfg_.auto_start_threads = cpus;
    if (cfg_.max_threads <= 0) cfg_.max_threads = 2 * cfg_.auto_start_threads;
    cfg_.auto_start_threads = std::min(cfg_.auto_start_threads, cfg_.max_threads);
    cfg_.options.num_threads = cfg_.auto_start_threads;
  }
  const PipelineOptions& o = cfg_.options;
  gpu_ = GpuContext::ForGraph(graph_, o.device_id);
  const size_t num_nodes = graph_.nodes().size();
  const size_t split = DeviceStageStart(graph_, cfg_.device_stage_from);
  stats_ = std::make_unique<ExecutorStats>(num_nodes);
  runner_ = std::make_unique<NodeRunner>(cfg_, graph_, split, gpu_.get(), *stats_, stop_);
  // Without pipelining, one slot per ring.
  const bool auto_depth = o.auto_queue_depth && o.exec_pipelined;
  const int cpu_depth = !o.exec_pipelined ? 1 : auto_depth ? PipelineOptions::kMaxAutoQueueDepth : o.cpu_queue_depth;
  const int dev_depth = split == num_nodes ? 0
                        : !o.exec_pipelined ? 1
                        : auto_depth        ? PipelineOptions::kMaxAutoQueueDepth
                                            : o.gpu_queue_depth;
  cpu_failed_.resize(static_cast<size_t>(cpu_depth));
  for (int s = 0; s < cpu_depth; ++s) {
    cpu_slots_.push_back(runner_->MakeSlot(0, split));
    if (gpu_) gpu_->AddCpuSlot();
  }
  for (int s = 0; s < dev_depth; ++s) {
    dev_slots_.push_back(runner_->MakeSlot(split, num_nodes));
    if (gpu_) gpu_->AddDeviceSlot();
  }
  for (size_t n = 0; n < num_nodes; ++n)
    stats_->RecordMemory(static_cast<int>(n), (n < split ? cpu_slots_[0] : dev_slots_[0])[n]);
  queues_ = std::make_unique<SlotQueues>(cpu_depth, dev_depth);
  if (o.auto_threads || auto_depth || o.memory_budget > 0) {
    TuneLimits limits;
    limits.tune_threads = o.auto_threads;
    limits.tune_depth = auto_depth;
    limits.default_threads = runner_->pool().active_threads();
    limits.max_threads = runner_->pool().num_threads();
    limits.max_depth = cpu_depth;
    limits.fixed_depth = cpu_depth;
    limits.memory_budget = o.memory_budget;
    const int depth = Autotuner::InitialDepth(limits);
    tuner_ = std::make_unique<Autotuner>(limits, runner_->pool().active_threads(), depth);
    queues_->SetDepthLimit(depth);
  }
  log_ = std::make_unique<CheckpointLog>(graph_, runner_->ops(), o.enable_checkpointing);
  if (o.exec_async) {
    cpu_thread_ = std::thread([this] { StageThread(kCpuStage, cpu_cv_); });
    if (queues_->two_stage()) device_thread_ = std::thread([this] { StageThread(kDeviceStage, device_cv_); });
  }
}

Executor::~Executor() {
  {
    std::lock_guard lk(mu_);
    stop_.store(true);
  }
  cpu_cv_.notify_all();
  device_cv_.notify_all();
  consumer_cv_.notify_all();
  if (cpu_thread_.joinable()) cpu_thread_.join();
  if (device_thread_.joinable()) device_thread_.join();
  runner_.reset();  // the operators go (readers join their loader threads) before the slots' buffers
}

void Executor::Schedule() {
  {
    std::lock_guard lk(mu_);
    if (queues_->error()) std::rethrow_exception(queues_->error());
    queues_->Schedule();
  }
  cpu_cv_.notify_one();
}

bool Executor::Runnable(int stages) const {
  return ((stages & kDeviceStage) && queues_->DeviceRunnable()) || ((stages & kCpuStage) && queues_->CpuRunnable());
}

bool Executor::Step(std::unique_lock<std::mutex>& lk, int stages) {
  if ((stages & kDeviceStage) && queues_->DeviceRunnable()) {
    RunDeviceStage(lk);
    return true;
  }
  if ((stages & kCpuStage) && queues_->CpuRunnable()) {
    RunCpuStage(lk);
    return true;
  }
  return false;
}

void Executor::StageThread(int stages, std::condition_variable& cv) {
  std::unique_lock lk(mu_);
  for (;;) {
    cv.wait(lk, [&] { return stop_.load() || Runnable(stages); });
    if (stop_.load()) return;
    Step(lk, stages);
  }
}

void Executor::RunCpuStage(std::unique_lock<std::mutex>& lk) {
  const SlotQueues::CpuJob job = queues_->StartCpu();
  const bool last_stage = !queues_->two_stage();
  // Under mu_, before this iteration's operators run: Checkpoint() reads states live only while
  // no iteration past the consumer's has started.
  std::exception_ptr err;
  try {
    log_->Record(job.iteration);
  } catch (...) {  // e.g. a lazily initialized reader whose dataset is missing
    err = std::current_exception();
  }
  lk.unlock();
  SlotOutputs& outs = cpu_slots_[static_cast<size_t>(job.slot)];
  std::vector<FailedSample>& failed = cpu_failed_[static_cast<size_t>(job.slot)];
  failed.clear();
  OutputRefs refs;
  if (!err) {
    try {
      if (gpu_) gpu_->WaitConsumed(job.slot);
      TuneBeforeCpuBatch();
      const auto t0 = Clock::now();
      runner_->RunNodes(0, runner_->split(), outs, outs, job.iteration, failed);
      if (last_stage) {
        refs = runner_->CollectOutputs(outs, outs);
        runner_->ReplaceFailedRows(failed, refs);
      }
      const double ms = MsSince(t0);
      stats_->RecordCpuStage(ms, last_stage);
      err = TuneAfterCpuBatch(ms, outs, last_stage ? refs : OutputRefs{});
    } catch (...) {
      err = std::current_exception();
    }
  }
  lk.lock();
  if (stop_.load()) return;  // shutting down: nobody takes this batch
  if (tuner_) queues_->SetDepthLimit(tuner_->Poll().depth);
  queues_->FinishCpu(job, err, std::move(refs), last_stage ? std::move(failed) : std::vector<FailedSample>{});
  if (last_stage) consumer_cv_.notify_all();
  else device_cv_.notify_one();
}

void Executor::RunDeviceStage(std::unique_lock<std::mutex>& lk) {
  const SlotQueues::DeviceJob job = queues_->StartDevice();
  lk.unlock();
  SlotOutputs& cpu = cpu_slots_[static_cast<size_t>(job.cpu_slot)];
  SlotOutputs& own = dev_slots_[static_cast<size_t>(job.slot)];
  std::exception_ptr err = job.error;
  OutputRefs refs;
  // The cpu stage's failures (its slot is this job's until FreeCpuSlot), then the device stage's.
  std::vector<FailedSample> failed;
  if (!err) {
    try {
      failed = cpu_failed_[static_cast<size_t>(job.cpu_slot)];
      const auto t0 = Clock::now();
      runner_->RunNodes(runner_->split(), graph_.nodes().size(), cpu, own, job.iteration, failed);
      refs = runner_->CollectOutputs(cpu, own);
      runner_->ReplaceFailedRows(failed, refs);
      if (gpu_) gpu_->RecordReady(job.slot);
      const double ms = MsSince(t0);
      stats_->RecordDeviceStage(ms);
    } catch (...) {
      err = std::current_exception();
    }
  }
  // After the device stage ran (even partly): copies from the cpu slot may still be in flight.
  if (gpu_ && !job.error) {
    try {
      gpu_->RecordConsumed(job.cpu_slot);
    } catch (...) {
      if (!err) err = std::current_exception();
    }
  }
  lk.lock();
  queues_->FreeCpuSlot(job);
  cpu_cv_.notify_one();
  if (stop_.load()) return;
  queues_->FinishDevice(job, err, std::move(refs), std::move(failed));
  consumer_cv_.notify_all();
}

std::vector<Batch> Executor::TakeNext() {
  const auto t0 = Clock::now();
  std::unique_lock lk(mu_);
  if (queues_->error() && !queues_->has_ready()) std::rethrow_exception(queues_->error());
  if (queues_->idle()) throw Error("no batch is scheduled: call schedule_run() before share_outputs()/outputs()");
  if (queues_->all_held())
    throw Error("all " + std::to_string(queue_depth()) +
                " output buffers are held by the caller: call release_outputs() before taking more outputs");
  if (cfg_.options.exec_async) {
    consumer_cv_.wait(lk, [&] { return stop_.load() || queues_->has_ready(); });
  } else {
    while (!queues_->has_ready() && !queues_->error() && Step(lk, kBothStages)) {
    }
  }
  if (!queues_->has_ready()) {
    if (queues_->error()) std::rethrow_exception(queues_->error());
    throw Error("the pipeline is shutting down");
  }
  const int occupancy = queues_->ready_count();
  SlotQueues::Ready r = queues_->TakeReady();
  log_->Trim(queues_->next_to_take() - queue_depth());
  if (r.error) {
    lk.unlock();
    cpu_cv_.notify_one();
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
    out.emplace_back(r.outputs[i], on_gpu ? gpu_->ready_event(r.slot) : nullptr, on_gpu ? gpu_->device() : -1);
  }
  // Logged when the batch is handed out: the log does not depend on how far the stages run ahead.
  for (const FailedSample& f : r.failed) {
    stats_->RecordReplaced(f.node);
    error_log_.Add(f.record);
  }
  r.failed.clear();
  queues_->Hold(std::move(r));
  lk.unlock();
  const double wait_ms = MsSince(t0);
  stats_->RecordTake(occupancy, wait_ms);
  if (tuner_) tuner_->OnTake(wait_ms);
  return out;
}

void Executor::TuneBeforeCpuBatch() {
  if (!tuner_) return;
  const int threads = tuner_->Poll().threads;
  ThreadPool& pool = runner_->pool();
  if (threads != pool.active_threads()) pool.Resize(threads);  // waits for the device stage's loop
}

std::exception_ptr Executor::TuneAfterCpuBatch(double ms, const SlotOutputs& slot, const OutputRefs& outputs) {
  if (!tuner_) return nullptr;
  // Host memory only (the device stage's buffers are not the budget's); the bytes the batch wrote (what
  // is resident), not what the buffers reserved for larger batches.
  size_t slot_bytes = 0, output_bytes = 0;
  for (const auto& node : slot)
    for (const auto& tl : node)
      if (tl && tl->kind() == StorageKind::kHost) slot_bytes += tl->used_bytes();
  for (const auto& tl : outputs)
    if (tl && tl->kind() == StorageKind::kHost) output_bytes += tl->used_bytes();
  if (auto message = tuner_->OnCpuBatch(ms, slot_bytes, output_bytes)) {
    Error::Context c;
    c.argument = "memory_budget";
    return std::make_exception_ptr(Error(*message, c));
  }
  return nullptr;
}

void Executor::Release() {
  std::optional<SlotQueues::Ready> released;
  {
    std::lock_guard lk(mu_);
    released = queues_->Release();
    if (!released) return;
  }
  released.reset();  // outside mu_: a last reference returns its buffer to the spares
  cpu_cv_.notify_one();
  device_cv_.notify_one();
}

PipelineCheckpoint Executor::Checkpoint(int rewind) const {
  if (!log_->recording()) throw Error("checkpoints need a pipeline built with enable_checkpointing=True");
  std::lock_guard lk(mu_);
  const int64_t taken = queues_->next_to_take();
  if (rewind < 0 || rewind > taken || rewind > queue_depth())
    throw Error("cannot take a checkpoint " + std::to_string(rewind) + " batch(es) back");
  PipelineCheckpoint cp;
  cp.seed = cfg_.seed;
  cp.iteration = taken - rewind;
  // Nothing past the consumer has started: the operators are there.
  cp.operators = cp.iteration == queues_->next_iteration() ? log_->Live() : log_->At(cp.iteration);
  return cp;
}

void Executor::Restore(const PipelineCheckpoint& cp) {
  std::lock_guard lk(mu_);
  if (cp.seed != cfg_.seed)
    throw Error("the checkpoint was taken with seed " + std::to_string(cp.seed) + ", this pipeline has seed " +
                std::to_string(cfg_.seed));
  if (queues_->started()) throw Error("a checkpoint can only be restored before the pipeline runs");
  log_->Restore(cp.operators);
  queues_->StartAt(cp.iteration);
}

std::vector<SampleErrorRecord> Executor::ErrorLog() const {
  std::lock_guard lk(mu_);
  return error_log_.Records();
}

ExecutorStatistics Executor::Statistics() const {
  ExecutorStats::Shape shape;
  shape.memory_stats = cfg_.options.enable_memory_stats;
  shape.queue_capacity = queue_depth();
  shape.cpu_queue_capacity = static_cast<int>(cpu_slots_.size());
  ExecutorStatistics s = stats_->Snapshot(graph_, shape);
  if (runner_) {
    const auto& ops = runner_->ops();
    for (size_t n = 0; n < s.operators.size() && n < ops.size(); ++n)
      if (const auto* c = dynamic_cast<const OperatorCounters*>(ops[n].get())) s.operators[n].counters = c->counters();
  }
  if (tuner_) s.autotune = tuner_->Snapshot();
  return s;
}

}  // namespace sluice
