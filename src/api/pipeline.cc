#include <sluice/pipeline.h>

#include <map>
#include <random>

#include "operators/registry.h"
#include "operators/fed_input.h"
#include "pipeline/checkpoint.h"
#include "pipeline/executor.h"
#include "pipeline/graph.h"
#include "pipeline/operator_fusion.h"
#include "pipeline/roi_decode.h"
#include "pipeline/scaled_decode.h"

namespace sluice {

struct Pipeline::Impl {
  PipelineOptions options;
  MemoryConfig memory;
  uint64_t seed = 0;
  std::vector<OpSpec> specs;
  std::vector<std::string> outputs;
  std::map<std::string, int> name_counts;
  std::unique_ptr<Executor> executor;
  enum class Mode { kNone, kRun, kShare } mode = Mode::kNone;
  bool prefetched = false;
  std::string restored_external_data;

  Executor& exec() {
    if (!executor) throw Error("the pipeline is not built: call build() first");
    return *executor;
  }
  void SetMode(Mode m) {
    if (mode != Mode::kNone && mode != m)
      throw Error("cannot mix run()/outputs() with share_outputs()/release_outputs() on one pipeline; "
                  "use one family of run methods");
    mode = m;
  }
  int NodeByName(const std::string& name) const {
    const auto& nodes = executor->graph().nodes();
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].spec.name == name) return static_cast<int>(i);
    return -1;
  }
};

void PipelineOptions::Validate() const {
  auto at_least = [](const char* name, int64_t v, int64_t lo) {
    if (v < lo) throw Error(std::string(name) + " must be at least " + std::to_string(lo) + ", got " + std::to_string(v));
  };
  at_least("batch_size", batch_size, 1);
  if (!auto_threads) at_least("num_threads", num_threads, 1);
  if (device_id < -1)
    throw Error("device_id must be -1 (CPU only) or a CUDA device index, got " + std::to_string(device_id));
  if (!auto_queue_depth) {
    at_least("cpu_queue_depth (prefetch_queue_depth)", cpu_queue_depth, 1);
    at_least("gpu_queue_depth (prefetch_queue_depth's gpu_size)", gpu_queue_depth, 1);
  }
  if (memory) memory->Validate();
}

Pipeline::Pipeline(PipelineOptions options) : impl_(std::make_unique<Impl>()) {
  options.Validate();
  impl_->options = options;
  // Resolved once (MemoryConfig::ProcessDefault: the environment and the backend setters).
  impl_->memory = options.memory ? *options.memory : MemoryConfig::ProcessDefault();
  impl_->seed = options.seed >= 0 ? static_cast<uint64_t>(options.seed) : std::random_device{}();
}

Pipeline::~Pipeline() = default;

std::vector<std::string> Pipeline::AddOperator(OperatorDef def) {
  if (impl_->executor) throw Error("cannot add operators to a built pipeline");
  OpSpec spec;
  spec.op = std::move(def.op);
  spec.device = std::move(def.device);
  spec.inputs = std::move(def.inputs);
  spec.arg_inputs = std::move(def.arg_inputs);
  spec.args = std::move(def.args);
  spec.outputs = std::move(def.outputs);
  spec.name = def.name.empty() ? spec.op + "#" + std::to_string(impl_->name_counts[spec.op]++) : def.name;
  spec = ValidateSpec(std::move(spec), MissingBackend::kDeferToBuild);  // Build names every missing backend
  impl_->specs.push_back(spec);
  return spec.outputs;
}

void Pipeline::SetOutputs(std::vector<std::string> edges) {
  if (impl_->executor) throw Error("cannot change the outputs of a built pipeline");
  impl_->outputs = std::move(edges);
}

void Pipeline::Build() {
  if (impl_->executor) return;
  ExecutorConfig cfg;
  cfg.options = impl_->options;
  cfg.options.memory = impl_->memory;
  cfg.seed = impl_->seed;
  const PipelineOptions& o = cfg.options;
  std::optional<PipelineCheckpoint> restored;
  if (o.checkpoint) {
    try {
      restored = PipelineCheckpoint::Parse(*o.checkpoint);
    } catch (const Error& e) {
      Error::Context c;
      c.argument = "checkpoint";
      throw e.WithContext(c);
    }
    cfg.seed = restored->seed;
  }
  if (auto missing = MissingBackendsError(impl_->specs)) throw *missing;
  for (const auto& s : impl_->specs) {
    if (s.device != "cpu" && o.device_id < 0) {
      Error::Context c;
      c.op = s.name;
      throw Error("operator runs on device '" + s.device + "' but the pipeline has no device_id (CPU only)", c);
    }
  }
  std::vector<OpSpec> specs = impl_->specs;
  ApplyScaledDecode(specs, impl_->outputs);
  ApplyRoiDecode(specs, impl_->outputs);  // after scaled decode: it keeps the scale chosen there
  if (o.fuse_operators) ApplyOperatorFusion(specs, impl_->outputs);  // last: it takes the chains as set up
  auto executor = std::make_unique<Executor>(cfg, Graph(specs, impl_->outputs));
  if (restored) {
    try {
      executor->Restore(*restored);
    } catch (const Error& e) {
      Error::Context c;
      c.argument = "checkpoint";
      throw e.WithContext(c);
    }
    impl_->seed = restored->seed;
    impl_->restored_external_data = restored->external_data;
  }
  impl_->executor = std::move(executor);
}

std::string Pipeline::Checkpoint(const std::string& external_data, int rewind) const {
  if (!impl_->executor) throw Error("the pipeline is not built: call build() first");
  PipelineCheckpoint cp = impl_->executor->Checkpoint(rewind);
  cp.external_data = external_data;
  return cp.Serialize();
}

std::string Pipeline::CheckpointExternalData() const { return impl_->restored_external_data; }

std::vector<Batch> Pipeline::Run() {
  impl_->SetMode(Impl::Mode::kRun);
  Executor& ex = impl_->exec();
  // The first run fills the prefetch queue, as DALI does; later runs keep it full.
  const int n = impl_->prefetched ? 1 : ex.prefetch_depth();
  impl_->prefetched = true;
  for (int i = 0; i < n; ++i) ex.Schedule();
  return Outputs();
}

int Pipeline::PrefetchDepth() { return impl_->exec().prefetch_depth(); }

void Pipeline::ScheduleRun() { impl_->exec().Schedule(); }

std::vector<Batch> Pipeline::Outputs() {
  impl_->SetMode(Impl::Mode::kRun);
  Executor& ex = impl_->exec();
  ex.Release();
  return ex.TakeNext();
}

std::vector<Batch> Pipeline::ShareOutputs() {
  impl_->SetMode(Impl::Mode::kShare);
  return impl_->exec().TakeNext();
}

void Pipeline::ReleaseOutputs() {
  impl_->SetMode(Impl::Mode::kShare);
  impl_->exec().Release();
}

void Pipeline::FeedInput(const std::string& op_name, const std::vector<ExternalSample>& samples,
                         const std::string& layout) {
  Executor& ex = impl_->exec();
  int n = impl_->NodeByName(op_name);
  auto* src = n < 0 ? nullptr : dynamic_cast<FedInput*>(&ex.op(n));
  if (!src)
    throw Error("there is no external_source or experimental.inputs.video operator named '" + op_name +
                "' in the pipeline");
  src->Feed(samples, layout, impl_->memory);
}

ExecutorStatistics Pipeline::GetExecutorStatistics() const {
  if (!impl_->executor) throw Error("the pipeline is not built: call build() first");
  return impl_->executor->Statistics();
}

std::vector<SampleErrorRecord> Pipeline::GetErrorLog() const {
  if (!impl_->executor) throw Error("the pipeline is not built: call build() first");
  return impl_->executor->ErrorLog();
}

ReaderMeta Pipeline::GetReaderMeta(const std::string& reader_name) const {
  if (!impl_->executor) throw Error("the pipeline is not built: call build() first");
  int n = impl_->NodeByName(reader_name);
  if (n >= 0) {
    if (auto m = impl_->executor->op(n).reader_meta()) return *m;
    throw Error("operator '" + reader_name + "' is not a reader");
  }
  std::vector<std::string> readers;
  for (const auto& [name, meta] : GetReaderMeta()) readers.push_back(name);
  std::string msg = "no reader named '" + reader_name + "' in the pipeline";
  std::string hint = Suggest(reader_name, readers);
  if (!hint.empty()) msg += " (did you mean '" + hint + "'?)";
  throw Error(msg);
}

std::map<std::string, ReaderMeta> Pipeline::GetReaderMeta() const {
  if (!impl_->executor) throw Error("the pipeline is not built: call build() first");
  std::map<std::string, ReaderMeta> out;
  const auto& nodes = impl_->executor->graph().nodes();
  for (size_t i = 0; i < nodes.size(); ++i)
    if (auto m = impl_->executor->op(static_cast<int>(i)).reader_meta()) out[nodes[i].spec.name] = *m;
  return out;
}

int64_t Pipeline::EpochSize(const std::string& reader_name) const {
  return GetReaderMeta(reader_name).epoch_size_padded;
}

void Pipeline::Reset() {
  // Readers continue with their next epoch where they are (prefetched batches belong to it), as in
  // DALI; operators drop per-epoch state they keep (external sources: fed data not yet used).
  if (!impl_->executor) return;
  const int n = static_cast<int>(impl_->executor->graph().nodes().size());
  for (int i = 0; i < n; ++i) impl_->executor->op(i).Reset();
}

const PipelineOptions& Pipeline::options() const { return impl_->options; }
int64_t Pipeline::seed() const { return static_cast<int64_t>(impl_->seed); }
bool Pipeline::built() const { return impl_->executor != nullptr; }
std::vector<std::string> Pipeline::output_names() const { return impl_->outputs; }

}  // namespace sluice
