#include "pipeline/slot_queues.h"

namespace sluice {

SlotQueues::SlotQueues(int cpu_slots, int device_slots) : cpu_slots_(cpu_slots), device_slots_(device_slots) {
  for (int s = 0; s < cpu_slots; ++s) cpu_free_.push_back(s);
  for (int s = 0; s < device_slots; ++s) device_free_.push_back(s);
}

int SlotQueues::TakeSlot(std::deque<int>& free) const {
  // Without a limit, the slot free the longest (a consumer's late reference to its buffers is
  // then most likely gone); under one, the lowest.
  auto it = limit_ != kNoLimit ? std::min_element(free.begin(), free.end()) : free.begin();
  const int slot = *it;
  free.erase(it);
  return slot;
}

SlotQueues::CpuJob SlotQueues::StartCpu() {
  const int slot = TakeSlot(cpu_free_);
  --scheduled_;
  ++in_flight_;
  return {slot, next_iteration_++};
}

void SlotQueues::FinishCpu(const CpuJob& job, std::exception_ptr error, OutputRefs outputs,
                           std::vector<FailedSample> failed) {
  if (!two_stage()) {
    MakeReady(job.slot, std::move(error), std::move(outputs), std::move(failed));
    return;
  }
  // A failure stops the cpu stage now, but reaches the consumer after the batches before it.
  if (error) cpu_failed_ = true;
  staged_.push_back({job.slot, -1, job.iteration, std::move(error)});
}

SlotQueues::DeviceJob SlotQueues::StartDevice() {
  DeviceJob job = staged_.front();
  staged_.pop_front();
  job.slot = TakeSlot(device_free_);
  return job;
}

void SlotQueues::FinishDevice(const DeviceJob& job, std::exception_ptr error, OutputRefs outputs,
                              std::vector<FailedSample> failed) {
  MakeReady(job.slot, std::move(error), std::move(outputs), std::move(failed));
}

void SlotQueues::MakeReady(int slot, std::exception_ptr error, OutputRefs outputs, std::vector<FailedSample> failed) {
  --in_flight_;
  if (error && !error_) error_ = error;
  ready_.push_back({slot, std::move(error), std::move(outputs), std::move(failed)});
}

SlotQueues::Ready SlotQueues::TakeReady() {
  Ready r = std::move(ready_.front());
  ready_.pop_front();
  ++next_to_take_;
  if (r.error) output_free().push_back(r.slot);
  return r;
}

std::optional<SlotQueues::Ready> SlotQueues::Release() {
  if (held_.empty()) return std::nullopt;
  Ready r = std::move(held_.front());
  held_.pop_front();
  output_free().push_back(r.slot);
  return r;
}

}  // namespace sluice
