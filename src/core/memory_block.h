// One allocation shared by reference count: the Buffer that made it and every view into it (a
// sample of another batch, a pipeline output the caller still holds) keep it alive; the last
// reference frees it through the allocator of its storage kind.
//
// Thread-safety: references may be taken and dropped on any thread. exclusive() is an acquire load
// and every drop a release, so a writer that finds itself the only owner sees every access the
// other owners made before they let go (the ordering shared_ptr::use_count() does not give).
#pragma once
#include <atomic>
#include <cstddef>
#include <utility>

#include "core/allocator.h"

namespace sluice {

class BlockRef {
 public:
  BlockRef() = default;
  // Allocates `bytes` (> 0) of `kind`; throws what the allocator throws.
  static BlockRef Allocate(StorageKind kind, size_t bytes);

  BlockRef(const BlockRef& o) noexcept : b_(o.b_) {
    if (b_) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  BlockRef(BlockRef&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  BlockRef& operator=(BlockRef o) noexcept {
    std::swap(b_, o.b_);
    return *this;
  }
  ~BlockRef() { reset(); }
  void reset() noexcept;

  explicit operator bool() const { return b_ != nullptr; }
  void* data() const { return b_ ? b_->data : nullptr; }
  size_t capacity() const { return b_ ? b_->capacity : 0; }
  // True when this is the only reference: nobody else reads the memory, it may be written.
  bool exclusive() const { return b_ && b_->refs.load(std::memory_order_acquire) == 1; }
  // The number of references (tests and statistics only; racy by nature).
  int use_count() const { return b_ ? b_->refs.load(std::memory_order_relaxed) : 0; }

 private:
  struct Block {
    Block(StorageKind k, void* d, size_t c) : kind(k), data(d), capacity(c) {}
    std::atomic<int> refs{1};
    StorageKind kind;
    void* data;
    size_t capacity;
  };
  Block* b_ = nullptr;
};

}  // namespace sluice
