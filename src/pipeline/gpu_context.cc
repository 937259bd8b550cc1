#include "pipeline/gpu_context.h"

#include <algorithm>

#include "core/cuda/device.h"

namespace sluice {

std::unique_ptr<GpuContext> GpuContext::ForGraph(const Graph& graph, int device_id) {
  const auto& nodes = graph.nodes();
  if (std::none_of(nodes.begin(), nodes.end(), [](const GraphNode& n) { return n.stage != Stage::kCpu; }))
    return nullptr;
  std::unique_ptr<GpuContext> g(new GpuContext);
  g->device_ = device_id >= 0 ? device_id : 0;
  cuda::InitDevice(g->device_);
  g->stream_ = cuda::CreateStream();
  return g;
}

GpuContext::~GpuContext() {
  if (stream_) {
    try {
      cuda::StreamSynchronize(stream_);
    } catch (...) {  // a failed stream is being torn down anyway
    }
  }
  // The events are shared with batches that may outlive the executor; each goes with its last owner.
  cuda::DestroyStream(stream_);
}

void GpuContext::AddCpuSlot() { consumed_events_.push_back(cuda::MakeSharedEvent()); }
void GpuContext::AddDeviceSlot() { ready_events_.push_back(cuda::MakeSharedEvent()); }
void GpuContext::UseDevice() const { cuda::SetDevice(device_); }

void GpuContext::WaitConsumed(int cpu_slot) const {
  cuda::EventSynchronize(consumed_events_[static_cast<size_t>(cpu_slot)].get());
}

void GpuContext::RecordConsumed(int cpu_slot) const {
  cuda::RecordEvent(consumed_events_[static_cast<size_t>(cpu_slot)].get(), stream_);
}

void GpuContext::RecordReady(int device_slot) const {
  cuda::RecordEvent(ready_events_[static_cast<size_t>(device_slot)].get(), stream_);
}

}  // namespace sluice
