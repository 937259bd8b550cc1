// Sluice's stable C++ API: build a pipeline of operators, run it, read its outputs.
//
// Supported for embedding Sluice in native applications. Names and semantics follow NVIDIA DALI's
// Python Pipeline. Thread-safety: a Pipeline is used from one thread at a time; outputs may be read
// from any thread while they are valid.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/error.h>
#include <sluice/external_sample.h>
#include <sluice/memory_config.h>
#include <sluice/reader_meta.h>
#include <sluice/sample_error.h>
#include <sluice/source_info.h>
#include <sluice/tensor_shape.h>
#include <sluice/value.h>

namespace sluice {

class TensorList;  // internal

// One operator instance to add to a pipeline.
struct OperatorDef {
  std::string op;                                  // registry name, e.g. "decoders.image"
  std::string name;                                // instance name; empty: "<op>#<n>"
  std::string device = "cpu";                      // "cpu", "mixed" or "gpu"
  std::vector<std::string> inputs;                 // edge names
  std::map<std::string, std::string> arg_inputs;   // per-sample argument -> edge name
  std::map<std::string, Value> args;               // constant arguments
  std::vector<std::string> outputs;                // edge names; empty: "<name>[0]", "<name>[1]", ...

  OperatorDef() = default;
  explicit OperatorDef(std::string op_name, std::string dev = "cpu") : op(std::move(op_name)), device(std::move(dev)) {}
  OperatorDef& Input(std::string edge) { inputs.push_back(std::move(edge)); return *this; }
  OperatorDef& Arg(const std::string& arg, Value v) { args[arg] = std::move(v); return *this; }
  OperatorDef& ArgInput(const std::string& arg, std::string edge) { arg_inputs[arg] = std::move(edge); return *this; }
  OperatorDef& Output(std::string edge) { outputs.push_back(std::move(edge)); return *this; }
  OperatorDef& Name(std::string n) { name = std::move(n); return *this; }
};

struct PipelineOptions {
  int batch_size = 1;
  int num_threads = 1;
  int device_id = -1;          // -1: CPU only; never touches CUDA
  int64_t seed = -1;           // -1: a random seed
  bool exec_pipelined = true;  // run ahead of the consumer, up to the queue depth
  bool exec_async = true;      // run on a background thread
  int cpu_queue_depth = 2;     // prefetch_queue_depth, or its cpu_size
  int gpu_queue_depth = 2;     // prefetch_queue_depth's gpu_size
  // Autotuning (a Sluice extension; DALI has none). auto_threads: num_threads is ignored; the
  // executor starts with one worker per available CPU (affinity mask, cgroup quota), measures the
  // consumer's throughput there, then hill-climbs on it up to twice the CPUs (and below when the
  // consumer is the bottleneck), keeping a count only when it is measurably faster; it never
  // settles below the default's measured throughput. auto_queue_depth: the queue depths
  // are ignored; the rings get kMaxAutoQueueDepth slots and the executor uses as many as the
  // variance of the stage times asks for. memory_budget (bytes, 0: none): the host buffers of the
  // cpu stage's slots plus one batch's outputs (held by the consumer while the next is made) stay
  // within it by lowering the depth; a batch that cannot fit fails the pipeline with an error
  // naming memory_budget. Decisions: ExecutorStatistics::autotune.
  bool auto_threads = false;
  bool auto_queue_depth = false;
  size_t memory_budget = 0;
  static constexpr int kMaxAutoQueueDepth = 4;
  size_t bytes_per_sample = 0;  // presizing hint for every output buffer
  bool set_affinity = false;
  bool enable_memory_stats = false;
  // Operator fusion (a Sluice graph pass): a CPU resize whose only reader is a
  // crop_mirror_normalize runs as one step per sample, without materialising the resized batch.
  // Results are identical either way; false keeps every operator separate (per-operator
  // statistics, or comparing).
  bool fuse_operators = true;
  // Checkpointing, as DALI's: with enable_checkpointing, Pipeline::Checkpoint() can save where the
  // pipeline stands; a pipeline built with `checkpoint` set to such a text (same operators and
  // options) continues with the batches the saved one would have returned next. The checkpoint's
  // seed replaces `seed`.
  bool enable_checkpointing = false;
  std::optional<std::string> checkpoint;
  // Memory policy; default: MemoryConfig::ProcessDefault() at construction (the SLUICE_*/DALI_*
  // variables, with the values set through MemoryConfig::SetDefault* on top).
  std::optional<MemoryConfig> memory;

  // Throws sluice::Error naming the first invalid option ("batch_size must be at least 1, got 0").
  // The one place options are checked: Pipeline's constructor calls it.
  void Validate() const;
};

// A read-only view of one output batch. It shares ownership of the buffers: the data stays valid
// as long as the view (or a copy) exists, and the pipeline writes the next batches elsewhere.
class Batch {
 public:
  Batch() = default;
  int num_samples() const;
  DType dtype() const;
  const std::string& layout() const;
  const TensorShape& shape(int i) const;
  const std::vector<TensorShape>& shapes() const;
  const void* data(int i) const;
  size_t nbytes(int i) const;
  const SourceInfo& source(int i) const;
  bool is_dense() const;       // every sample has the same shape
  bool is_contiguous() const;  // one buffer, samples back to back (64-byte aligned)
  // Dense-and-contiguous batches are also one (N, ...) tensor starting at data(0) if each
  // sample's size is a multiple of 64 bytes; this says whether that holds.
  bool is_single_tensor() const;
  // "cpu" or "gpu". A "gpu" batch's data() are device pointers on device_id().
  std::string device() const;
  int device_id() const { return device_id_; }  // -1 for "cpu" batches

  // Stream ordering of "gpu" batches. A batch is handed out as soon as its CUDA work is queued on
  // the pipeline's stream, so that the host never waits for the GPU. Before reading it, either
  //   WaitOn(stream): `stream` (a cudaStream_t; 1 and 2 mean the legacy and the per-thread default
  //                   stream, as in DLPack) waits for the batch on the device, or
  //   Synchronize():  the calling thread waits; any stream and host copies may then read it.
  // When reads are still queued on a stream as the batch is let go, ReleaseOn(stream) makes the
  // pipeline's next writes into these buffers wait for them (like torch's record_stream; call it
  // after queuing the last read). All three do nothing for "cpu" batches.
  void WaitOn(void* cuda_stream) const;
  void Synchronize() const;
  void ReleaseOn(void* cuda_stream) const;
  // A host copy of a "gpu" batch (DALI's TensorListGPU.as_cpu()): the same shapes, dtype, layout
  // and sources, one contiguous buffer when the batch is contiguous. Waits for the batch. A "cpu"
  // batch is returned as it is.
  Batch ToHost() const;

  const TensorList& impl() const { return *impl_; }

  explicit Batch(std::shared_ptr<const TensorList> impl, std::shared_ptr<void> ready_event = nullptr,
                 int device_id = -1)
      : impl_(std::move(impl)), ready_event_(std::move(ready_event)), device_id_(device_id) {}

 private:
  std::shared_ptr<const TensorList> impl_;
  std::shared_ptr<void> ready_event_;  // cudaEvent_t recorded after the batch's last GPU work
  int device_id_ = -1;
};

struct OperatorStatistics {
  std::string name;
  std::string op;
  std::string device;
  // One entry per output (with enable_memory_stats). See DALI's executor_statistics().
  std::vector<size_t> real_memory_size;
  std::vector<size_t> max_real_memory_size;
  std::vector<size_t> reserved_memory_size;
  std::vector<size_t> max_reserved_memory_size;
  bool memory_is_fallback = false;  // pinned memory served from ordinary host memory
  int64_t replaced_samples = 0;     // rows this operator failed on and that were replaced (on_error="replace"), in batches taken
  // Always collected.
  int64_t batches = 0;
  double total_time_ms = 0;   // Setup + Run, all batches
  double last_batch_ms = 0;
  // The operator's own counts, by name (experimental.inputs.video: "decoder_starts"); most have none.
  std::vector<std::pair<std::string, int64_t>> counters;
  double mean_batch_ms() const { return batches ? total_time_ms / static_cast<double>(batches) : 0.0; }
};

// One decision of the autotuner: from batch `batch` (taken) on, `threads` workers and `depth` slots.
struct AutotuneChange {
  int64_t batch = 0;
  int threads = 0;
  int depth = 0;
  std::string reason;
};

// One step of the thread search (num_threads="auto"): a count measured over a few windows.
struct AutotuneTrial {
  int threads = 0;
  double batches_per_s = 0;  // the median of the step's windows (batches taken by the consumer)
  double wait_fraction = 0;  // the consumer's wait over its period in the median window
  bool kept = false;         // the best count after this step (the default's baseline always is)
};

// What the autotuner chose and the measurements it chose from (PipelineOptions' auto_threads,
// auto_queue_depth, memory_budget).
struct AutotuneStatistics {
  bool enabled = false;  // any of the three is set
  bool auto_threads = false;
  bool auto_queue_depth = false;
  size_t memory_budget = 0;
  int threads = 0;       // workers now
  int max_threads = 0;   // the pool's bound: the most threads the search measures (2 x the CPUs)
  int depth = 0;         // slots of the cpu ring in use now
  int max_depth = 0;     // the ring's size
  // The last window of batches measured (means per batch).
  int window_batches = 0;
  double stage_ms = 0;
  double stage_stddev_ms = 0;
  double period_ms = 0;  // between two batches taken
  double wait_ms = 0;    // the consumer's wait for a batch
  size_t slot_bytes = 0;    // one slot's host buffers (largest seen)
  size_t output_bytes = 0;  // one batch's pipeline outputs
  size_t needed_bytes = 0;  // depth * slot_bytes + output_bytes
  std::vector<AutotuneChange> changes;  // oldest first (the first: the initial choice)
  // The thread search (auto_threads): where it started (the fixed default: the available CPUs),
  // its phase ("baseline", "up", "down", "settled"), how often it started (1 + restarts after the
  // workload changed), the best count and its rate, and every step measured (the last 32).
  int default_threads = 0;
  std::string search_phase;
  int searches = 0;
  int best_threads = 0;
  double best_batches_per_s = 0;
  std::vector<AutotuneTrial> trials;
};

struct ExecutorStatistics {
  std::vector<OperatorStatistics> operators;  // in execution order
  // Queue occupancy: ready batches waiting for the consumer, sampled whenever one is taken.
  double mean_queue_occupancy = 0;
  int max_queue_occupancy = 0;
  int queue_capacity = 0;      // the ring the consumer takes from (gpu_queue_depth with a device stage)
  int cpu_queue_capacity = 0;  // the cpu stage's ring (the same ring without mixed/gpu operators)
  int64_t batches_produced = 0;
  double consumer_wait_ms = 0;  // time Outputs/ShareOutputs spent waiting for a batch
  // Mean wall time per batch of each stage: the cpu operators, and the mixed + gpu operators (the
  // host's time to run and enqueue them; 0 for pipelines without them).
  double cpu_stage_ms = 0;
  double device_stage_ms = 0;
  AutotuneStatistics autotune;
};

// Schema introspection (for bindings and docs).
struct ArgumentInfo {
  std::string name;
  ArgType type;
  bool required;
  std::optional<Value> default_value;
  std::string doc;
  bool per_sample;
  std::string constraint;  // what a value may be beyond its type ("in [0, 1]", "one of ..."), or ""
};
struct OperatorInfo {
  std::string name;
  std::string doc;       // full documentation text
  std::vector<std::string> backends;
  int min_inputs;
  int max_inputs;
  std::vector<std::string> input_names;
  // Per input: the layouts it accepts and how one without a layout is read ("HWC or CHW; none: read
  // as HWC"), checked for every batch; "" where any layout is accepted.
  std::vector<std::string> input_layouts;
  int num_outputs;       // -1 when it depends on the arguments
  std::vector<ArgumentInfo> arguments;
  bool is_random;
  bool is_reader;
  // DALI's deprecated arguments it accepts: old name -> new name, or "" for one ignored.
  std::map<std::string, std::string> deprecated_arguments;
};
std::vector<std::string> ListOperators();
OperatorInfo GetOperatorInfo(const std::string& name);  // throws for unknown names, with a suggestion

// Checks one operator call against its schema exactly as Pipeline::AddOperator does (operator and
// argument names, types, ranges, enumerations, layouts, argument inputs, input count) and returns
// it normalised: arguments coerced to the schema's types, `name` set ("<op>" when empty) and
// `outputs` filled with one edge name per output. Throws sluice::Error naming the operator and the
// argument. Bindings call it where the user writes the call, so errors point there. A device the
// operator has no backend for, where it has a CPU one, is not an error here: Pipeline::Build names
// every such operator of the pipeline in one error, with its CPU alternative.
OperatorDef ValidateOperator(OperatorDef def);

class Pipeline {
 public:
  explicit Pipeline(PipelineOptions options);
  ~Pipeline();  // stops the executor promptly, even mid-run or after a failure
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Adds an operator; returns the names of its output edges. Validation of the operator name and
  // arguments happens here (unknown operator or argument, wrong type) so errors point at the call.
  std::vector<std::string> AddOperator(OperatorDef def);
  // The edges the pipeline returns, in order.
  void SetOutputs(std::vector<std::string> edges);
  // Validates the graph, prunes unused operators, creates operators, preallocates. Idempotent.
  void Build();

  // run(): schedules what is needed and returns the next batch's outputs.
  std::vector<Batch> Run();
  // How many iterations fill the prefetch queues: the first run() schedules this many. The cpu
  // queue depth, plus the gpu queue depth when the pipeline has mixed/gpu operators; 1 without
  // exec_pipelined. Needs a built pipeline.
  int PrefetchDepth();
  // The scheduled API: schedule_run() then share_outputs() ... release_outputs().
  void ScheduleRun();
  std::vector<Batch> ShareOutputs();
  void ReleaseOutputs();
  // outputs(): the next scheduled batch; releases the previous one (the run() family).
  std::vector<Batch> Outputs();

  // external_source: queues one batch of host samples for the named external_source operator;
  // experimental.inputs.video: queues each sample (encoded video bytes, uint8 1-D) as one video.
  using ExternalSample = sluice::ExternalSample;  // sluice/external_sample.h
  void FeedInput(const std::string& op_name, const std::vector<ExternalSample>& samples,
                 const std::string& layout = "");

  // With enable_checkpointing: the checkpoint text after the last batch taken, or `rewind` batches
  // earlier (batches a framework iterator took but has not handed out yet; at most the queue
  // depth). `external_data` (a framework iterator's own position) travels with it.
  std::string Checkpoint(const std::string& external_data = "", int rewind = 0) const;
  // The external_data of the checkpoint this pipeline was built from ("" without one).
  std::string CheckpointExternalData() const;

  ExecutorStatistics GetExecutorStatistics() const;
  // Rows replaced after errors (on_error="replace"), oldest first, logged as their batch is taken
  // (the last 10,000 are kept). Replacement is per row across every output: see docs/engine.md, "Bad data in training".
  std::vector<SampleErrorRecord> GetErrorLog() const;
  ReaderMeta GetReaderMeta(const std::string& reader_name) const;  // throws for unknown names
  std::map<std::string, ReaderMeta> GetReaderMeta() const;
  int64_t EpochSize(const std::string& reader_name) const;  // padded epoch size, as DALI
  // Drains scheduled batches and lets readers start their next epoch where they are.
  void Reset();

  const PipelineOptions& options() const;
  int64_t seed() const;
  bool built() const;
  std::vector<std::string> output_names() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
