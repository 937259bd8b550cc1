#include "core/cuda/device.h"

#include <sluice/error.h>

#ifdef SLUICE_WITH_CUDA
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "core/allocator.h"
#include "core/cuda/cuda_check.h"

namespace sluice::cuda {
namespace {

struct Counters {
  std::atomic<size_t> device{0}, device_peak{0}, pinned{0}, pinned_peak{0};
  std::atomic<int64_t> device_allocs{0}, pinned_allocs{0};
};
Counters& GlobalCounters() {
  static Counters c;
  return c;
}
void AddPeak(std::atomic<size_t>& cur, std::atomic<size_t>& peak, size_t n) {
  const size_t now = cur.fetch_add(n) + n;
  size_t p = peak.load();
  while (now > p && !peak.compare_exchange_weak(p, now)) {
  }
}

// Device memory from cudaMalloc. Buffers are grow-only, so allocations happen while a pipeline
// warms up and not in steady state; no caching layer is needed. Deallocate ignores errors: at
// process exit the runtime may already be unloaded.
class DeviceAllocator : public Allocator {
 public:
  void* Allocate(size_t bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw Error("out of device memory allocating " + std::to_string(bytes) + " bytes (" + cudaGetErrorString(e) + ")");
    }
    auto& c = GlobalCounters();
    AddPeak(c.device, c.device_peak, bytes);
    ++c.device_allocs;
    return p;
  }
  void Deallocate(void* p, size_t bytes) override {
    if (!p) return;
    if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
    GlobalCounters().device -= bytes;
  }
  StorageKind kind() const override { return StorageKind::kDevice; }
};

// Page-locked host memory from cudaHostAlloc (portable: usable from any device's streams).
// Buffers allocated before this allocator was installed came from the host fallback; they are
// recognised (not in live_) and returned to free().
class PinnedAllocator : public Allocator {
 public:
  void* Allocate(size_t bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw Error("out of pinned memory allocating " + std::to_string(bytes) + " bytes (" + cudaGetErrorString(e) + ")");
    }
    {
      std::lock_guard lk(mu_);
      live_.insert(p);
    }
    auto& c = GlobalCounters();
    AddPeak(c.pinned, c.pinned_peak, bytes);
    ++c.pinned_allocs;
    return p;
  }
  void Deallocate(void* p, size_t bytes) override {
    if (!p) return;
    bool ours;
    {
      std::lock_guard lk(mu_);
      ours = live_.erase(p) > 0;
    }
    if (!ours) {
      std::free(p);
      return;
    }
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
    GlobalCounters().pinned -= bytes;
  }
  StorageKind kind() const override { return StorageKind::kPinned; }

 private:
  std::mutex mu_;
  std::unordered_set<void*> live_;
};

std::once_flag g_allocators_once;

}  // namespace

bool BuiltWithCuda() { return true; }

int DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

void SetDevice(int device_id) { SLUICE_CUDA_CHECK(cudaSetDevice(device_id)); }

void InitDevice(int device_id) {
  const int n = DeviceCount();
  if (n == 0) throw Error("a GPU operator needs a CUDA device, but none is available (no CUDA device)");
  if (device_id < 0 || device_id >= n)
    throw Error("device_id " + std::to_string(device_id) + " is out of range: " + std::to_string(n) +
                " CUDA device(s) available");
  SetDevice(device_id);
  SLUICE_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context now, not inside a batch
  std::call_once(g_allocators_once, [] {
    SetAllocator(StorageKind::kPinned, std::make_shared<PinnedAllocator>());
    SetAllocator(StorageKind::kDevice, std::make_shared<DeviceAllocator>());
  });
}

void* CreateStream() {
  cudaStream_t s = nullptr;
  SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}
void DestroyStream(void* s) noexcept {
  if (s && cudaStreamDestroy(static_cast<cudaStream_t>(s)) != cudaSuccess) (void)cudaGetLastError();
}
void StreamSynchronize(void* s) { SLUICE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(s))); }

void* CreateEvent() {
  cudaEvent_t e = nullptr;
  SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return e;
}
void DestroyEvent(void* e) noexcept {
  if (e && cudaEventDestroy(static_cast<cudaEvent_t>(e)) != cudaSuccess) (void)cudaGetLastError();
}
void RecordEvent(void* e, void* s) {
  SLUICE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(e), static_cast<cudaStream_t>(s)));
}
void EventSynchronize(void* e) { SLUICE_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(e))); }
void MemcpyAsync(void* dst, const void* src, size_t bytes, void* s) {
  if (bytes) SLUICE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(s)));
}
void StreamWaitEvent(void* s, void* e) {
  SLUICE_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(s), static_cast<cudaEvent_t>(e), 0));
}

std::shared_ptr<void> MakeSharedEvent() { return std::shared_ptr<void>(CreateEvent(), DestroyEvent); }

std::shared_ptr<void> RecordFence(int device_id, void* stream) {
  int previous = 0;
  SLUICE_CUDA_CHECK(cudaGetDevice(&previous));
  if (previous != device_id) SetDevice(device_id);
  std::shared_ptr<void> fence;
  try {
    fence = MakeSharedEvent();
    RecordEvent(fence.get(), stream);
  } catch (...) {
    if (previous != device_id) (void)cudaSetDevice(previous);
    throw;
  }
  if (previous != device_id) SetDevice(previous);
  return fence;
}

MemoryCounters GetMemoryCounters() {
  auto& c = GlobalCounters();
  MemoryCounters m;
  m.device_bytes = c.device.load();
  m.device_peak = c.device_peak.load();
  m.pinned_bytes = c.pinned.load();
  m.pinned_peak = c.pinned_peak.load();
  m.device_allocations = c.device_allocs.load();
  m.pinned_allocations = c.pinned_allocs.load();
  return m;
}

}  // namespace sluice::cuda

#else  // !SLUICE_WITH_CUDA

namespace sluice::cuda {
namespace {
[[noreturn]] void NoCuda() { throw Error("this build of Sluice has no CUDA backend (built without CUDA)"); }
}  // namespace

bool BuiltWithCuda() { return false; }
int DeviceCount() { return 0; }
void InitDevice(int) { NoCuda(); }
void SetDevice(int) { NoCuda(); }
void* CreateStream() { NoCuda(); }
void DestroyStream(void*) noexcept {}
void StreamSynchronize(void*) { NoCuda(); }
void* CreateEvent() { NoCuda(); }
void DestroyEvent(void*) noexcept {}
void RecordEvent(void*, void*) { NoCuda(); }
void EventSynchronize(void*) { NoCuda(); }
void StreamWaitEvent(void*, void*) { NoCuda(); }
void MemcpyAsync(void*, const void*, size_t, void*) { NoCuda(); }
std::shared_ptr<void> MakeSharedEvent() { NoCuda(); }
std::shared_ptr<void> RecordFence(int, void*) { NoCuda(); }
MemoryCounters GetMemoryCounters() { return {}; }

}  // namespace sluice::cuda
#endif
