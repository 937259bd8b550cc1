// A resizable block of memory of one storage kind, following MemoryConfig's policy, that may also
// be a view of another buffer's memory.
#pragma once
#include <cstddef>
#include <cstdint>

#include <sluice/memory_config.h>

#include "core/allocator.h"
#include "core/memory_block.h"

namespace sluice {

// Either owns its allocation (a BlockRef it made) or views part of another buffer's (ShareFrom: it
// holds a reference to that block, which keeps it alive however long the other buffer lives).
//
// Ownership rule: a buffer writes only into a block nobody else references. Resize and Reserve
// drop a view, and when the buffer's own block is still referenced by a view elsewhere (a sample
// of a batch the caller holds) they leave the block to that view and allocate a fresh one, so a
// view never sees its data change. A view is read-only by contract: data() of a view points into
// the other buffer's memory.
//
// Not thread-safe: one owner resizes it; readers use data() between resizes. Resize does not
// preserve contents (outputs are rewritten every batch); use Reserve+copy if needed.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(StorageKind kind) : kind_(kind) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer() = default;

  // Sets the used size to `bytes`, reallocating per `cfg`. Returns true if it reallocated.
  bool Resize(size_t bytes, const MemoryConfig& cfg);
  // Ensures capacity >= bytes without changing the size (presizing); grow-only.
  void Reserve(size_t bytes, const MemoryConfig& cfg);
  void Free();
  // Becomes a view of `bytes` bytes of `src` from `offset` (src's own memory or the memory src
  // views): nothing is allocated or copied. Throws for another storage kind or a range past
  // src's size. `src` may be this buffer.
  void ShareFrom(const Buffer& src, size_t offset, size_t bytes);

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }
  // The memory this buffer allocated; 0 for a view (it reserves nothing of its own).
  size_t capacity() const { return view_ ? 0 : block_.capacity(); }
  StorageKind kind() const { return kind_; }
  void set_kind(StorageKind k);  // only while empty
  bool is_fallback() const;
  bool is_view() const { return view_; }
  // How many buffers reference this one's block (itself included); 0 without a block.
  int block_use_count() const { return block_.use_count(); }

 private:
  void Reallocate(size_t capacity);
  StorageKind kind_ = StorageKind::kHost;
  BlockRef block_;
  void* data_ = nullptr;  // block_.data() for an owner; inside block_ for a view
  size_t size_ = 0;
  bool view_ = false;
};

}  // namespace sluice
