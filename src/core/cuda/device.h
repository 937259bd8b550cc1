// The CUDA runtime as the engine sees it: device selection, streams, events and memory counters,
// behind an interface with no CUDA types, so CPU code (the executor) needs no CUDA headers.
//
// Nothing here runs at static initialisation: the first call that needs the device is
// InitDevice(), made by an executor whose graph has "mixed" or "gpu" operators. A CPU-only
// pipeline (device_id = -1, or any device_id with only CPU operators) never reaches this file.
// Without SLUICE_WITH_CUDA every function except BuiltWithCuda/DeviceCount throws sluice::Error.
// Thread-safety: all functions may be called from any thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace sluice::cuda {

// True when the library was compiled with the CUDA backend.
bool BuiltWithCuda();
// Number of usable devices; 0 without CUDA, without a driver or without a device. Never throws.
// (Creates no context, but does load the driver: call it only when a GPU is wanted.)
int DeviceCount();

// Makes `device_id` current on the calling thread and, the first time, installs the pinned and
// device allocators (SetAllocator). Throws sluice::Error when the device does not exist.
void InitDevice(int device_id);
// cudaSetDevice for the calling thread (each thread has its own current device).
void SetDevice(int device_id);

// A non-blocking stream on the current device.
void* CreateStream();
void DestroyStream(void* stream) noexcept;
void StreamSynchronize(void* stream);
// An event without timing, for ordering only.
void* CreateEvent();
void DestroyEvent(void* event) noexcept;
void RecordEvent(void* event, void* stream);
void EventSynchronize(void* event);
// Makes `stream` wait (on the device, without blocking the host) for the work recorded in `event`.
// `stream` may be any stream of the event's device, the special handles 1 (legacy default stream)
// and 2 (per-thread default stream) included, as DLPack consumers pass them.
void StreamWaitEvent(void* stream, void* event);
// cudaMemcpyAsync(cudaMemcpyDefault) on `stream`: either pointer may be host (pinned or not) or
// device memory.
void MemcpyAsync(void* dst, const void* src, size_t bytes, void* stream);
// An event (as CreateEvent) owned by a shared_ptr that destroys it; for events whose lifetime
// follows the batches that refer to them rather than the executor's.
std::shared_ptr<void> MakeSharedEvent();
// Records a new event on `stream` of device `device_id` (switching the calling thread's current
// device for the call only) and returns it: a fence a producer's stream can wait for. Used when a
// consumer stream gives a buffer back (it may still have work queued that reads it).
std::shared_ptr<void> RecordFence(int device_id, void* stream);

// Bytes currently allocated (and the peak) by the CUDA backend's allocators.
struct MemoryCounters {
  size_t device_bytes = 0, device_peak = 0;
  size_t pinned_bytes = 0, pinned_peak = 0;
  int64_t device_allocations = 0, pinned_allocations = 0;
};
MemoryCounters GetMemoryCounters();

}  // namespace sluice::cuda
