// A resizable block of memory of one storage kind, following MemoryConfig's policy.
#pragma once
#include <cstddef>
#include <cstdint>

#include <sluice/memory_config.h>

#include "core/allocator.h"

namespace sluice {

// Owns its memory. Not thread-safe: one owner resizes it; readers use data() between resizes.
// Resize does not preserve contents (outputs are rewritten every batch); use Reserve+copy if needed.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(StorageKind kind) : kind_(kind) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer() { Free(); }

  // Sets the used size to `bytes`, reallocating per `cfg`. Returns true if it reallocated.
  bool Resize(size_t bytes, const MemoryConfig& cfg);
  // Ensures capacity >= bytes without changing the size (presizing); grow-only.
  void Reserve(size_t bytes, const MemoryConfig& cfg);
  void Free();

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  StorageKind kind() const { return kind_; }
  void set_kind(StorageKind k);  // only while empty
  bool is_fallback() const;

 private:
  void Reallocate(size_t capacity);
  StorageKind kind_ = StorageKind::kHost;
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace sluice
