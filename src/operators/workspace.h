// What an operator sees during one batch: its inputs, outputs, argument inputs, threads and RNG.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <sluice/error.h>
#include <sluice/memory_config.h>
#include <sluice/sample_error.h>

#include "core/random.h"
#include "core/tensor_list.h"
#include "core/thread_pool.h"

// CUDA's stream handle type is `CUstream_st*` (cudaStream_t); declared here so that CPU code needs
// no CUDA headers.
struct CUstream_st;

namespace sluice {

// Filled by the executor for each operator invocation. Pointers are owned by the executor and
// valid for the duration of Setup+Run.
class Workspace {
 public:
  int batch_size() const { return batch_size_; }
  int64_t iteration() const { return iteration_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const TensorList& Input(int i) const { return *inputs_[static_cast<size_t>(i)]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  TensorList& Output(int i) { return *outputs_[static_cast<size_t>(i)]; }
  // The tensor given for a per-sample argument, or nullptr if the argument is constant.
  const TensorList* ArgInput(const std::string& name) const {
    auto it = arg_inputs_.find(name);
    return it == arg_inputs_.end() ? nullptr : it->second;
  }
  ThreadPool& pool() const { return *pool_; }
  const MemoryConfig& memory() const { return *memory_; }
  uint64_t op_seed() const { return op_seed_; }
  // An independent random stream for (this operator, this iteration, sample): the same whatever
  // thread runs the sample.
  RandomGenerator SampleRng(int sample) const {
    return RandomGenerator(DeriveSeed(op_seed_, static_cast<uint64_t>(iteration_), static_cast<uint64_t>(sample)));
  }

  // The pipeline's CUDA stream (cudaStream_t) for "mixed" and "gpu" operators: they enqueue their
  // copies and kernels on it and do not synchronize it (the executor records an event after the
  // batch and waits for it before handing the batch out). nullptr for CPU operators and CPU-only
  // pipelines.
  CUstream_st* stream() const { return static_cast<CUstream_st*>(stream_); }
  // The CUDA device of the pipeline (-1 for CPU-only pipelines).
  int device_id() const { return device_id_; }

  // Reports that sample `sample` of this batch could not be produced (on_error="replace"). The
  // operator still fills its outputs for that sample with valid data (e.g. a copy of another
  // sample) so that the operators after it run; the executor then replaces the whole row, in every
  // pipeline output of the iteration, by another row that no operator reported, and logs `error`
  // with `source`. Thread-safe (may be called from ForEachSample's tasks).
  void ReportFailedSample(int sample, const SourceInfo& source, std::string error) const {
    if (!failed_) throw Error("sample " + std::to_string(sample) + " failed: " + error);
    SampleErrorRecord rec;
    rec.sample = sample;
    rec.iteration = iteration_;
    rec.source = source.ToString();
    rec.path = source.path;
    rec.member = source.member;
    rec.offset = source.offset;
    rec.error = std::move(error);
    std::lock_guard lk(failed_->mu);
    failed_->records.push_back(std::move(rec));
  }

  // True once the pipeline is being destroyed; long-running operators should check it.
  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }

  // Executor side.
  int batch_size_ = 0;
  int64_t iteration_ = 0;
  uint64_t op_seed_ = 0;
  std::vector<const TensorList*> inputs_;
  std::vector<TensorList*> outputs_;
  std::map<std::string, const TensorList*> arg_inputs_;
  ThreadPool* pool_ = nullptr;
  const MemoryConfig* memory_ = nullptr;
  const std::atomic<bool>* cancel_ = nullptr;
  void* stream_ = nullptr;
  int device_id_ = -1;
  // Where ReportFailedSample writes (the executor's record of this iteration); null: it throws.
  struct FailedSamples {
    std::mutex mu;
    std::vector<SampleErrorRecord> records;
  };
  FailedSamples* failed_ = nullptr;
};

}  // namespace sluice
