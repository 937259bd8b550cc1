// The base of every reader operator: DALI's common reader arguments, the sample order (sharding,
// padding, shuffling via SampleSequencer), and the reader's own loader thread that prepares
// batches ahead into a bounded queue of `prefetch_queue_depth` batches.
//
// Concurrency: one loader thread per reader, started at the first Setup (when the batch size and
// the pipeline's seed are known). The loader owns the sequencer and the batch being filled; the
// queue (ready_ / free_) and the flags are guarded by mu_ (the only lock; never held while reading
// data). Stopping sets stop_ and wakes every waiter; the loader finishes its current batch and
// exits, so StopLoader() returns within one batch's read time. Setup hands a prepared batch over
// by swapping TensorLists into the workspace (no copy) and recycles what it gets back.
//
// Subclasses: implement InitDataset (list files / parse indices; called in the constructor via
// InitEagerly(), or at first use with lazy_init), ReadBatch (runs on the loader thread; must only
// read state that InitDataset built), and call StopLoader() first in their destructor.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sluice/memory_config.h>
#include <sluice/reader_meta.h>

#include "core/tensor_list.h"
#include "operators/operator.h"
#include "readers/common/sample_sequencer.h"

namespace sluice {

// Adds DALI's common reader arguments (random_shuffle, initial_fill, num_shards, shard_id,
// tensor_init_bytes, stick_to_shard, read_ahead, prefetch_queue_depth, skip_cached_images,
// lazy_init, pad_last_batch, dont_use_mmap) with DALI's defaults, and marks the schema a reader.
void AddCommonReaderArgs(OpSchema& schema);

struct ReaderOptions {
  bool random_shuffle = false;
  int64_t initial_fill = 1024;
  int num_shards = 1;
  int shard_id = 0;
  int64_t tensor_init_bytes = 1048576;
  bool stick_to_shard = false;
  bool read_ahead = false;
  int prefetch_queue_depth = 1;
  bool skip_cached_images = false;  // accepted for compatibility; Sluice has no decoder cache
  bool lazy_init = false;
  bool pad_last_batch = false;
  bool dont_use_mmap = false;
  bool replace_on_error = false;  // on_error="replace"
  int64_t seed = -1;  // -1: the pipeline's per-operator seed
  std::vector<int64_t> bytes_per_sample_hint;
};

class ReaderOperator : public Operator {
 public:
  explicit ReaderOperator(const OpSpec& spec);
  ~ReaderOperator() override;

  // Hands over the next prepared batch (outputs resized here, so it returns {}). Rethrows a
  // loader failure with the operator's name; a failed reader keeps failing.
  std::vector<OutputDesc> Setup(Workspace& ws) final;
  void Run(Workspace& ws) final {}
  std::optional<ReaderMeta> reader_meta() const final;

  // The reader's position (SampleSequencer's state): the state after the last batch Setup
  // returned (the initial state before the first). Restoring it (before or after the first batch)
  // makes the following batches identical to those the saved reader would have returned.
  // Thread-safe with respect to Setup (they serialise on consumer_mu_); an asynchronous executor
  // that has already run ahead must drop its queued batches itself when it restores. A bad state
  // throws (naming this operator and the key) and leaves the reader where it was; before the
  // first batch the seed (when it is the pipeline's) and pad_last_batch's epoch length are checked
  // when the loader starts.
  bool has_state() const final { return true; }
  StateMap SaveState() const final;
  void RestoreState(const StateMap& state) final;
  // The same state in SampleSequencer's one-line text form (messages, tests).
  std::string SerializeState() const { return SampleSequencer::StateText(SaveState()); }
  void RestoreState(const std::string& text);

  const ReaderOptions& options() const { return opt_; }
  int64_t num_samples() const;  // initializes if needed

 protected:
  // Builds the dataset description; returns the number of samples. Throws sluice::Error.
  virtual int64_t InitDataset() = 0;
  // Names the dataset in messages (paths).
  virtual std::string DatasetName() const = 0;
  virtual int NumOutputs() const = 0;
  // Fills `outs` (NumOutputs() lists this reader owns; resize them with `cfg`) with the samples
  // `indices`, setting each sample's SourceInfo. Runs on the loader thread.
  virtual void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                         const MemoryConfig& cfg) = 0;
  // Presizing of a new batch's outputs (tensor_init_bytes / bytes_per_sample_hint). The default
  // reserves max(tensor_init_bytes, hint) per sample for every output.
  virtual void PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg);
  // Reader-specific sequencing (readers.file's shuffle_after_epoch).
  virtual void AdjustSequencer(SequencerOptions&) const {}

  // ReadBatch calls this for a sample it cannot read (its row may then hold anything; ReadBatch
  // goes on with the next sample). With on_error="raise" it throws `error` naming this reader, the
  // source and the sample; with "replace" it records the failure: the row is read again from
  // another sample and reported to the executor, which replaces the whole row.
  void SampleReadFailed(int sample, const SourceInfo& source, const Error& error);

  // Subclass constructors call this last: initializes now unless lazy_init.
  void InitEagerly();
  // Stops and joins the loader thread. Idempotent. Subclass destructors call it first.
  void StopLoader();
  // Error context naming this operator.
  Error::Context OpContext(const std::string& argument = "", const std::string& source = "") const {
    Error::Context c;
    c.op = name();
    c.argument = argument;
    c.source = source;
    return c;
  }
  // Per-output presize hint: bytes_per_sample_hint[o] (one value applies to all), else 0.
  size_t HintFor(int output) const;

 private:
  struct ReadFailure {
    int sample = -1;
    SourceInfo source;
    std::string message;
  };
  struct PreparedBatch {
    std::vector<TensorList> outputs;
    std::vector<ReadFailure> failed;  // rows read from another sample (on_error="replace")
    int64_t epoch = 0, position = 0;  // sequencer state after this batch
    std::exception_ptr error;
  };

  void EnsureInit() const;
  SequencerOptions MakeSequencerOptions(int batch_size, uint64_t seed) const;
  void StartLoader(int batch_size, uint64_t seed, const MemoryConfig& memory, const StateMap* restore);
  void LoaderMain();
  // ReadBatch, then (on_error="replace") the failed rows read again from rows that did not fail.
  void ReadBatchReplacingFailures(const std::vector<int64_t>& indices, PreparedBatch& b);
  [[noreturn]] void Rethrow(std::exception_ptr e, int64_t iteration) const;

  ReaderOptions opt_;
  // Dataset initialisation (constructor, first Setup or first reader_meta()).
  mutable std::once_flag init_once_;
  mutable int64_t num_samples_ = 0;

  // Consumer side: Setup / SaveState / RestoreState hold consumer_mu_ (lock order: consumer_mu_,
  // then mu_; an executor may hold its own lock around SaveState, taken before consumer_mu_).
  mutable std::mutex consumer_mu_;
  int batch_size_ = 0;
  uint64_t seed_ = 0;
  MemoryConfig memory_;
  std::unique_ptr<SampleSequencer> seq_;   // owned by the loader thread while it runs
  std::vector<ReadFailure> read_failures_;  // loader thread: SampleReadFailed's records of one ReadBatch
  int64_t consumer_epoch_ = 0, consumer_pos_ = 0;  // sequencer's place after the last batch handed out
  std::optional<StateMap> pending_restore_;        // RestoreState before the loader started
  std::exception_ptr failed_;

  // Loader thread and queue.
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable ready_cv_;  // a batch became ready or the loader stopped
  std::condition_variable space_cv_;  // a slot became free or stop was requested
  std::deque<std::unique_ptr<PreparedBatch>> ready_;  // guarded by mu_
  std::vector<std::unique_ptr<PreparedBatch>> free_;  // guarded by mu_
  bool stop_ = false;                                  // guarded by mu_
  bool loader_exited_ = false;                         // guarded by mu_
};

}  // namespace sluice
