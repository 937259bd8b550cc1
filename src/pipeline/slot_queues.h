// The executor's queue and slot policy: which slots of the two rings are free, which batches wait
// for the device stage, which are ready for the consumer and which the consumer holds; how many
// batches are scheduled and in flight; the iteration counters; the sticky error.
//
//   Schedule() -> [scheduled] -StartCpu-> cpu stage -FinishCpu-> [staged] -StartDevice-> device
//   stage -FinishDevice-> [ready] -TakeReady-> [held] -Release-> slot free again
//
// Without a device stage FinishCpu goes straight to [ready] and the cpu ring is the output ring.
// A cpu slot returns to its ring as soon as the device stage has read it; the consumer holds
// output slots. A failed batch reaches the consumer in batch order; a failed cpu stage starts no
// more batches; the first failure handed out stays (error()): a failed pipeline stays failed.
//
// A depth limit (SetDepthLimit: the autotuner's depth, or what memory_budget allows) caps how many
// slots of each ring are in use (running, staged, ready or held), always leaving one more than the
// consumer holds (a consumer holding `limit` batches still gets the next). Under a limit slots are
// taken lowest number first, so under a limit d only slots [0, d) are written and the others keep no memory.
//
// Bookkeeping only (slot numbers; the buffers are the executor's). Not thread-safe: the executor's
// mutex guards every call.
#pragma once
#include <cstdint>
#include <algorithm>
#include <deque>
#include <exception>
#include <optional>

#include "pipeline/node_runner.h"

namespace sluice {

class SlotQueues {
 public:
  SlotQueues(int cpu_slots, int device_slots);

  bool two_stage() const { return device_slots_ > 0; }
  int cpu_depth() const { return cpu_slots_; }
  // How many batches the consumer may hold at once (the output ring).
  int output_depth() const { return two_stage() ? device_slots_ : cpu_slots_; }

  struct CpuJob {
    int slot;
    int64_t iteration;
  };
  struct DeviceJob {
    int cpu_slot;
    int slot;
    int64_t iteration;
    std::exception_ptr error;  // the cpu stage's: the device stage only passes it on
  };
  struct Ready {
    int slot = -1;
    std::exception_ptr error;
    OutputRefs outputs;
    std::vector<FailedSample> failed;  // the rows replaced in this batch (sample_replacement.h)
  };

  void Schedule() { ++scheduled_; }
  // A batch may start its cpu stage / its device stage now.
  bool CpuRunnable() const {
    return scheduled_ > 0 && !cpu_free_.empty() && !error_ && !cpu_failed_ &&
           UnderLimit(cpu_slots_, cpu_free_, two_stage() ? 0 : held_.size());
  }
  bool DeviceRunnable() const {
    return !staged_.empty() && !device_free_.empty() && UnderLimit(device_slots_, device_free_, held_.size());
  }
  // At most `depth` slots of each ring in use (>= 1).
  void SetDepthLimit(int depth) { limit_ = depth; }
  int depth_limit() const { return limit_; }
  CpuJob StartCpu();
  // The cpu stage of `job` ended (failed with `error`): on to the device stage, or ready.
  void FinishCpu(const CpuJob& job, std::exception_ptr error, OutputRefs outputs, std::vector<FailedSample> failed = {});
  DeviceJob StartDevice();
  // The device stage of `job` read its cpu slot: the slot is free again.
  void FreeCpuSlot(const DeviceJob& job) { cpu_free_.push_back(job.cpu_slot); }
  void FinishDevice(const DeviceJob& job, std::exception_ptr error, OutputRefs outputs,
                    std::vector<FailedSample> failed = {});

  // Consumer side.
  bool has_ready() const { return !ready_.empty(); }
  int ready_count() const { return static_cast<int>(ready_.size()); }
  // Nothing ready, scheduled or under way.
  bool idle() const { return ready_.empty() && scheduled_ == 0 && in_flight_ == 0; }
  bool all_held() const { return static_cast<int>(held_.size()) >= output_depth(); }
  // The oldest ready batch. A failed one frees its slot at once; others the caller holds (Hold).
  Ready TakeReady();
  void Hold(Ready r) { held_.push_back(std::move(r)); }
  // The oldest held batch, its slot free again; nullopt when nothing is held.
  std::optional<Ready> Release();

  const std::exception_ptr& error() const { return error_; }
  int64_t next_iteration() const { return next_iteration_; }  // the next batch to start
  int64_t next_to_take() const { return next_to_take_; }      // the next batch the consumer takes
  bool started() const { return next_iteration_ != 0 || scheduled_ != 0 || in_flight_ != 0; }
  // Before the first Schedule(): continue the iteration count from `iteration`.
  void StartAt(int64_t iteration) { next_iteration_ = next_to_take_ = iteration; }

 private:
  std::deque<int>& output_free() { return two_stage() ? device_free_ : cpu_free_; }
  bool UnderLimit(int slots, const std::deque<int>& free, size_t held) const {
    const int in_use = slots - static_cast<int>(free.size());
    return in_use < std::max(limit_, static_cast<int>(held) + 1);
  }
  int TakeSlot(std::deque<int>& free) const;
  void MakeReady(int slot, std::exception_ptr error, OutputRefs outputs, std::vector<FailedSample> failed);

  int cpu_slots_;
  int device_slots_;
  std::deque<int> cpu_free_;
  std::deque<DeviceJob> staged_;  // cpu stage done, device stage not started
  std::deque<int> device_free_;
  std::deque<Ready> ready_;
  std::deque<Ready> held_;
  static constexpr int kNoLimit = 1 << 30;
  int limit_ = kNoLimit;  // SetDepthLimit
  int scheduled_ = 0;   // scheduled, not yet started
  int in_flight_ = 0;   // started, not yet ready
  bool cpu_failed_ = false;  // stops the cpu stage; the error reaches error_ in batch order
  int64_t next_iteration_ = 0;
  int64_t next_to_take_ = 0;
  std::exception_ptr error_;
};

}  // namespace sluice
