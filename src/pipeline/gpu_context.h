// The CUDA side of an executor whose graph has mixed/gpu operators: the device, the pipeline's
// stream and the events that order the two stages' slots.
//  - ready event, one per device slot: recorded after the slot's last GPU operator and handed out
//    with its batch (Batch::WaitOn orders the consumer's stream after it);
//  - consumed event, one per cpu slot: recorded after the device stage that read the slot; the
//    cpu stage waits for it before writing the slot again (copies from host memory may still be
//    in flight).
// CPU-only graphs have no GpuContext and never touch CUDA. Not locked: a slot's events are used by
// the stage that owns the slot at the time (the executor's slot queues hand slots over under its
// mutex). Destroyed after the operators and the slots' buffers (the executor declares it first).
#pragma once
#include <memory>
#include <vector>

#include "pipeline/graph.h"

namespace sluice {

class GpuContext {
 public:
  // Null for graphs without mixed/gpu operators. Otherwise selects the device (-1 means 0),
  // installs the pinned and device allocators (first time only) and creates the stream, before
  // any operator or output buffer exists.
  static std::unique_ptr<GpuContext> ForGraph(const Graph& graph, int device_id);
  ~GpuContext();

  int device() const { return device_; }
  void* stream() const { return stream_; }
  void AddCpuSlot();
  void AddDeviceSlot();
  // The calling thread works on the pipeline's device from now on.
  void UseDevice() const;

  // Before the cpu stage writes `cpu_slot`: waits until the device stage's reads of it are done.
  void WaitConsumed(int cpu_slot) const;
  // After the device stage read `cpu_slot` (even partly).
  void RecordConsumed(int cpu_slot) const;
  // After the device stage wrote `device_slot`.
  void RecordReady(int device_slot) const;
  const std::shared_ptr<void>& ready_event(int device_slot) const {
    return ready_events_[static_cast<size_t>(device_slot)];
  }

 private:
  GpuContext() = default;
  int device_ = -1;
  void* stream_ = nullptr;
  std::vector<std::shared_ptr<void>> ready_events_;     // [device slot]
  std::vector<std::shared_ptr<void>> consumed_events_;  // [cpu slot]
};

}  // namespace sluice
