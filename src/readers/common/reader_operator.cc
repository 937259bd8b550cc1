#include "readers/common/reader_operator.h"

#include <pthread.h>

#include <algorithm>

#include <sluice/error.h>

#include "operators/on_error_arg.h"
#include "readers/common/sharding.h"

namespace sluice {

void AddCommonReaderArgs(OpSchema& s) {
  s.Reader();
  s.Arg("random_shuffle", ArgType::kBool, false,
        "Shuffle with a buffer of initial_fill samples: the buffer is filled, then each sample is drawn "
        "uniformly from it and its slot refilled with the next one. Epochs never mix.");
  s.Arg("initial_fill", ArgType::kInt, int64_t{1024}, "Size of the shuffle buffer (ignored without random_shuffle).");
  s.Arg("num_shards", ArgType::kInt, int64_t{1}, "Number of parts the data is split into.");
  s.Arg("shard_id", ArgType::kInt, int64_t{0}, "Index of the shard to read (0 <= shard_id < num_shards).");
  s.Arg("tensor_init_bytes", ArgType::kInt, int64_t{1048576}, "Bytes to preallocate per sample.");
  s.Arg("stick_to_shard", ArgType::kBool, false,
        "Keep reading the same shard every epoch instead of moving to shard (shard_id + epoch) % num_shards.");
  s.Arg("read_ahead", ArgType::kBool, false,
        "Ask the kernel to read the accessed files ahead (madvise / posix_fadvise WILLNEED).");
  s.Arg("prefetch_queue_depth", ArgType::kInt, int64_t{1},
        "Number of batches the reader's own loader thread prepares ahead.");
  s.Arg("skip_cached_images", ArgType::kBool, false,
        "Accepted for DALI compatibility. Sluice has no decoder cache, so nothing is ever skipped.");
  s.Arg("lazy_init", ArgType::kBool, false, "List and index the dataset at the first run instead of at build.");
  s.Arg("pad_last_batch", ArgType::kBool, false,
        "Pad the shard by repeating its last sample until ceil(N / num_shards) samples were returned and the "
        "batch is full, so every shard returns the same number of full batches per epoch.");
  s.Arg("dont_use_mmap", ArgType::kBool, false, "Read with pread instead of mapping files into memory.");
  AddOnErrorArg(s,
                "cannot be read (a file deleted, unreadable or changed since the dataset was listed, an archive changed "
                "since it was indexed)",
                "the reader, the path and the reason", "was read");
}

ReaderOperator::ReaderOperator(const OpSpec& spec) : Operator(spec) {
  opt_.random_shuffle = Arg<bool>("random_shuffle");
  opt_.initial_fill = Arg<int64_t>("initial_fill");
  opt_.num_shards = static_cast<int>(Arg<int64_t>("num_shards"));
  opt_.shard_id = static_cast<int>(Arg<int64_t>("shard_id"));
  opt_.tensor_init_bytes = Arg<int64_t>("tensor_init_bytes");
  opt_.stick_to_shard = Arg<bool>("stick_to_shard");
  opt_.read_ahead = Arg<bool>("read_ahead");
  opt_.prefetch_queue_depth = static_cast<int>(Arg<int64_t>("prefetch_queue_depth"));
  opt_.skip_cached_images = Arg<bool>("skip_cached_images");
  opt_.lazy_init = Arg<bool>("lazy_init");
  opt_.pad_last_batch = Arg<bool>("pad_last_batch");
  opt_.dont_use_mmap = Arg<bool>("dont_use_mmap");
  opt_.replace_on_error = ReplacesOnError(*this);
  opt_.seed = Arg<int64_t>("seed");
  opt_.bytes_per_sample_hint = Arg<std::vector<int64_t>>("bytes_per_sample_hint");
  if (opt_.num_shards < 1) ThrowArgError("num_shards", "must be at least 1, got " + std::to_string(opt_.num_shards));
  if (opt_.shard_id < 0 || opt_.shard_id >= opt_.num_shards)
    ThrowArgError("shard_id", "must be in [0, num_shards) = [0, " + std::to_string(opt_.num_shards) + "), got " +
                                  std::to_string(opt_.shard_id));
  if (opt_.random_shuffle && opt_.initial_fill < 1)
    ThrowArgError("initial_fill", "must be at least 1, got " + std::to_string(opt_.initial_fill));
  if (opt_.prefetch_queue_depth < 1)
    ThrowArgError("prefetch_queue_depth", "must be at least 1, got " + std::to_string(opt_.prefetch_queue_depth));
  if (opt_.tensor_init_bytes < 0)
    ThrowArgError("tensor_init_bytes", "must not be negative, got " + std::to_string(opt_.tensor_init_bytes));
  for (int64_t h : opt_.bytes_per_sample_hint)
    if (h < 0) ThrowArgError("bytes_per_sample_hint", "must not be negative");
}

ReaderOperator::~ReaderOperator() { StopLoader(); }

void ReaderOperator::EnsureInit() const {
  std::call_once(init_once_, [this] {
    auto* self = const_cast<ReaderOperator*>(this);
    try {
      const int64_t n = self->InitDataset();
      ValidateSharding(n, opt_.shard_id, opt_.num_shards, DatasetName());
      num_samples_ = n;
    } catch (const Error& e) {
      Error::Context c;
      c.op = name();
      throw e.WithContext(c);
    }
  });
}

void ReaderOperator::InitEagerly() {
  if (!opt_.lazy_init) EnsureInit();
}

int64_t ReaderOperator::num_samples() const {
  EnsureInit();
  return num_samples_;
}

SequencerOptions ReaderOperator::MakeSequencerOptions(int batch_size, uint64_t seed) const {
  SequencerOptions s;
  s.num_samples = num_samples_;
  s.shard_id = opt_.shard_id;
  s.num_shards = opt_.num_shards;
  s.stick_to_shard = opt_.stick_to_shard;
  s.pad_last_batch = opt_.pad_last_batch;
  s.random_shuffle = opt_.random_shuffle;
  s.initial_fill = opt_.initial_fill;
  s.seed = seed;
  s.batch_size = batch_size;
  AdjustSequencer(s);
  return s;
}

std::optional<ReaderMeta> ReaderOperator::reader_meta() const {
  EnsureInit();
  const SequencerOptions s = MakeSequencerOptions(1, 0);
  return MakeReaderMeta(s.num_samples, s.shard_id, s.num_shards, s.pad_last_batch,
                        s.stick_to_shard || s.shuffle_after_epoch);
}

size_t ReaderOperator::HintFor(int output) const {
  const auto& h = opt_.bytes_per_sample_hint;
  if (h.empty()) return 0;
  if (h.size() == 1) return static_cast<size_t>(h[0]);
  return output < static_cast<int>(h.size()) ? static_cast<size_t>(h[static_cast<size_t>(output)]) : 0;
}

void ReaderOperator::PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg) {
  for (int o = 0; o < static_cast<int>(outs.size()); ++o) {
    const size_t bytes = std::max(static_cast<size_t>(opt_.tensor_init_bytes), HintFor(o));
    outs[static_cast<size_t>(o)].Reserve(batch_size, bytes, cfg, true);
  }
}

void ReaderOperator::StopLoader() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  space_cv_.notify_all();
  ready_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  // Batches prepared but not handed out go back to the free list (the position is the consumer's).
  while (!ready_.empty()) {
    free_.push_back(std::move(ready_.front()));
    ready_.pop_front();
  }
}

void ReaderOperator::StartLoader(int batch_size, uint64_t seed, const MemoryConfig& memory,
                                 const StateMap* restore) {
  StopLoader();
  batch_size_ = batch_size;
  seed_ = seed;
  memory_ = memory;
  // Loader buffers keep their capacity: files differ in size, and shrinking would reallocate
  // nearly every batch. Each output of a batch is one contiguous buffer: its touched size is the
  // largest batch seen, reached within an epoch (presized per-sample buffers would each be touched
  // a little deeper whenever a bigger file lands in them, and resident memory would creep up
  // for many epochs).
  memory_.host_shrink_threshold = 0;
  seq_ = std::make_unique<SampleSequencer>(MakeSequencerOptions(batch_size, seed), DatasetName());
  if (restore) seq_->RestoreState(*restore);
  consumer_epoch_ = seq_->epoch();
  consumer_pos_ = seq_->position();
  for (auto& b : free_) b->error = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
    loader_exited_ = false;
  }
  thread_ = std::thread([this] { LoaderMain(); });
}

void ReaderOperator::LoaderMain() {
  pthread_setname_np(pthread_self(), "sluice-reader");
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(batch_size_));
  for (;;) {
    std::unique_ptr<PreparedBatch> b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      space_cv_.wait(lock, [&] { return stop_ || static_cast<int>(ready_.size()) < opt_.prefetch_queue_depth; });
      if (stop_) break;
      if (!free_.empty()) {
        b = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!b) {
      b = std::make_unique<PreparedBatch>();
      b->outputs.resize(static_cast<size_t>(NumOutputs()));
      PresizeOutputs(b->outputs, batch_size_, memory_);
    }
    bool failed = false;
    try {
      indices.clear();
      seq_->NextBatch(&indices);
      ReadBatchReplacingFailures(indices, *b);
      b->epoch = seq_->epoch();
      b->position = seq_->position();
    } catch (...) {
      b->error = std::current_exception();
      failed = true;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.push_back(std::move(b));
      if (failed) loader_exited_ = true;
    }
    ready_cv_.notify_one();
    if (failed) return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  loader_exited_ = true;
  ready_cv_.notify_all();
}

void ReaderOperator::SampleReadFailed(int sample, const SourceInfo& source, const Error& error) {
  if (!opt_.replace_on_error) {
    Error::Context c;
    c.op = name();
    c.source = source.ToString();
    c.sample = sample;
    throw error.WithContext(c);
  }
  read_failures_.push_back({sample, source, error.message()});
}

void ReaderOperator::ReadBatchReplacingFailures(const std::vector<int64_t>& indices, PreparedBatch& b) {
  read_failures_.clear();
  ReadBatch(indices, b.outputs, memory_);
  b.failed.clear();
  if (read_failures_.empty()) return;
  // Rows that failed are read again from the next row that did not (wrapping around), so that the
  // operators after the reader see valid data; the executor then replaces the whole row in every
  // output (pipeline/sample_replacement.h). A stand-in that fails in its turn (its file vanished
  // between the two reads) fails its own row too, and the batch is read again.
  const int n = static_cast<int>(indices.size());
  std::vector<char> bad(static_cast<size_t>(n), 0);
  std::vector<int64_t> substituted(indices);
  for (;;) {
    for (ReadFailure& f : read_failures_) {
      if (f.sample < 0 || f.sample >= n || bad[static_cast<size_t>(f.sample)]) continue;
      bad[static_cast<size_t>(f.sample)] = 1;
      b.failed.push_back(std::move(f));
    }
    read_failures_.clear();
    std::vector<int> ok;
    for (int i = 0; i < n; ++i)
      if (!bad[static_cast<size_t>(i)]) ok.push_back(i);
    if (ok.empty()) {
      Error::Context c;
      c.op = name();
      c.source = b.failed.front().source.ToString();
      c.sample = b.failed.front().sample;
      throw Error("every sample of the batch failed to read (on_error=\"replace\" needs at least one good sample); "
                  "first error: " + b.failed.front().message, c);
    }
    for (int i = 0; i < n; ++i) {
      if (!bad[static_cast<size_t>(i)]) continue;
      auto it = std::upper_bound(ok.begin(), ok.end(), i);
      substituted[static_cast<size_t>(i)] = indices[static_cast<size_t>(it == ok.end() ? ok.front() : *it)];
    }
    ReadBatch(substituted, b.outputs, memory_);
    if (read_failures_.empty()) break;
  }
  std::sort(b.failed.begin(), b.failed.end(), [](const ReadFailure& x, const ReadFailure& y) { return x.sample < y.sample; });
}

void ReaderOperator::Rethrow(std::exception_ptr e, int64_t iteration) const {
  Error::Context c;
  c.op = name();
  c.iteration = iteration;
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    throw err.WithContext(c);
  } catch (const std::exception& err) {
    throw Error(err.what(), c);
  }
}

std::vector<OutputDesc> ReaderOperator::Setup(Workspace& ws) {
  std::lock_guard<std::mutex> consumer(consumer_mu_);
  if (failed_) Rethrow(failed_, ws.iteration());
  EnsureInit();
  if (ws.num_outputs() != NumOutputs())
    throw Error("reader has " + std::to_string(NumOutputs()) + " outputs but the workspace has " +
                    std::to_string(ws.num_outputs()),
                OpContext());
  if (!thread_.joinable() || ws.batch_size() != batch_size_) {
    const uint64_t seed = opt_.seed >= 0 ? static_cast<uint64_t>(opt_.seed) : ws.op_seed();
    std::optional<StateMap> restore;
    if (pending_restore_) restore = std::move(pending_restore_);
    else if (thread_.joinable()) restore = seq_->StateAt(consumer_epoch_, consumer_pos_);  // batch size changed: continue from here
    pending_restore_.reset();
    try {
      StartLoader(ws.batch_size(), seed, ws.memory(), restore ? &*restore : nullptr);
    } catch (...) {
      Rethrow(std::current_exception(), ws.iteration());
    }
  }
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mu_);
    ready_cv_.wait(lock, [&] { return !ready_.empty() || loader_exited_; });
    if (ready_.empty()) throw Error("reader's loader thread stopped", OpContext());
    std::unique_ptr<PreparedBatch> b = std::move(ready_.front());
    ready_.pop_front();
    error = b->error;
    if (!error) {
      // Hand the batch over and give its (now the executor's old) buffers back in the same critical
      // section, so the loader always finds them: a loader woken before that would allocate a whole
      // new batch, and memory would step up at random times.
      for (int o = 0; o < NumOutputs(); ++o) std::swap(ws.Output(o), b->outputs[static_cast<size_t>(o)]);
      for (const ReadFailure& f : b->failed) ws.ReportFailedSample(f.sample, f.source, f.message);
      consumer_epoch_ = b->epoch;
      consumer_pos_ = b->position;
      free_.push_back(std::move(b));
    }
  }
  space_cv_.notify_one();
  if (error) {
    failed_ = error;
    Rethrow(failed_, ws.iteration());
  }
  return {};
}

StateMap ReaderOperator::SaveState() const {
  std::lock_guard<std::mutex> consumer(consumer_mu_);
  if (pending_restore_) return *pending_restore_;
  // seq_'s options are fixed while the loader runs; StateAt reads only them.
  if (seq_) return seq_->StateAt(consumer_epoch_, consumer_pos_);
  // Not started yet: the initial state (the batch size is not part of the state).
  EnsureInit();
  // The start is the same whatever the seed; a pipeline-derived seed is not known yet ("*").
  const uint64_t seed = opt_.seed >= 0 ? static_cast<uint64_t>(opt_.seed) : 0;
  StateMap s = SampleSequencer(MakeSequencerOptions(1, seed), DatasetName()).SaveState();
  if (opt_.random_shuffle && opt_.seed < 0) s["seed"] = "*";
  return s;
}

void ReaderOperator::RestoreState(const StateMap& state) {
  std::lock_guard<std::mutex> consumer(consumer_mu_);
  try {
    EnsureInit();
    if (!seq_) {
      // Check what can be checked now; the rest (a pipeline-derived seed, pad_last_batch's epoch
      // length, which depends on the batch size) when the loader starts with it.
      const uint64_t seed = opt_.seed >= 0 ? static_cast<uint64_t>(opt_.seed) : 0;
      SampleSequencer(MakeSequencerOptions(1, seed), DatasetName()).CheckState(state, opt_.seed >= 0, false);
      pending_restore_ = state;
      failed_ = nullptr;
      return;
    }
    // Check first: a bad state leaves the reader where it was.
    seq_->CheckState(state);  // reads only seq_'s options, fixed while the loader runs
    failed_ = nullptr;
    StartLoader(batch_size_, seed_, memory_, &state);
  } catch (const Error& e) {
    throw e.WithContext(OpContext());
  }
}

void ReaderOperator::RestoreState(const std::string& text) {
  StateMap state;
  try {
    state = SampleSequencer::ParseStateText(text);
  } catch (const Error& e) {
    throw e.WithContext(OpContext());
  }
  RestoreState(state);
}

}  // namespace sluice
