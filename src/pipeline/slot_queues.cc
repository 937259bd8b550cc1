#include "pipeline/slot_queues.h"

namespace sluice {

SlotQueues::SlotQueues(int cpu_slots, int device_slots) : cpu_slots_(cpu_slots), device_slots_(device_slots) {
  for (int s = 0; s < cpu_slots; ++s) cpu_free_.push_back(s);
  for (int s = 0; s < device_slots; ++s) device_free_.push_back(s);
}

SlotQueues::CpuJob SlotQueues::StartCpu() {
  const int slot = cpu_free_.front();
  cpu_free_.pop_front();
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
  job.slot = device_free_.front();
  device_free_.pop_front();
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
