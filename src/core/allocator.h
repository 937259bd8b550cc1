// Allocators for the three storage kinds. Buffers allocate through this interface so that the
// CUDA backend can supply pinned and device allocators without the core knowing about CUDA.
#pragma once
#include <cstddef>
#include <memory>
#include <string_view>

namespace sluice {

enum class StorageKind { kHost, kPinned, kDevice };
std::string_view ToString(StorageKind k);

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory of at least `bytes` bytes, aligned to 64 bytes; throws sluice::Error on failure.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* p, size_t bytes) = 0;
  virtual StorageKind kind() const = 0;
  // True when this allocator stands in for one that is not available (pinned memory without
  // CUDA is served from ordinary host memory); statistics report it.
  virtual bool is_fallback() const { return false; }
};

// The process-wide allocator for a storage kind. Pinned falls back to host memory and device
// allocation throws until a CUDA backend registers its allocators.
Allocator& GetAllocator(StorageKind kind);
// Installs an allocator for a kind (used by the CUDA backend at start-up). Not thread-safe with
// concurrent allocation: call before building pipelines.
void SetAllocator(StorageKind kind, std::shared_ptr<Allocator> alloc);

}  // namespace sluice
