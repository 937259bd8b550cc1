#include "core/buffer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <sluice/error.h>

namespace sluice {
namespace {

// Host buffers from 64 KiB up are allocated in size classes (steps of about 1.22x). Decoded
// images change size every batch; allocated at their exact sizes, the freed blocks rarely fit the
// next requests and malloc's heap fragments, so resident memory creeps up epoch after epoch. With
// a few dozen distinct sizes, freed blocks are reused exactly. The slack is at most 22%.
constexpr size_t kClassFrom = size_t{64} << 10;

size_t HostSizeClass(size_t n) {
  if (n < kClassFrom) return n;
  size_t c = kClassFrom;
  while (c < n) c += (c >> 3) + (c >> 4) + (c >> 5);
  return (c + 4095) / 4096 * 4096;
}

}  // namespace

BlockRef BlockRef::Allocate(StorageKind kind, size_t bytes) {
  Allocator& a = GetAllocator(kind);
  void* p = a.Allocate(bytes);
  BlockRef r;
  try {
    r.b_ = new Block(kind, p, bytes);
  } catch (...) {
    a.Deallocate(p, bytes);
    throw;
  }
  return r;
}

void BlockRef::reset() noexcept {
  Block* b = std::exchange(b_, nullptr);
  if (b && b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    GetAllocator(b->kind).Deallocate(b->data, b->capacity);
    delete b;
  }
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    kind_ = o.kind_;
    block_ = std::move(o.block_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    view_ = std::exchange(o.view_, false);
  }
  return *this;
}

void Buffer::Free() {
  block_.reset();
  data_ = nullptr;
  size_ = 0;
  view_ = false;
}

void Buffer::ShareFrom(const Buffer& src, size_t offset, size_t bytes) {
  if (src.kind_ != kind_)
    throw Error("cannot view " + std::string(ToString(src.kind_)) + " memory from a " + std::string(ToString(kind_)) +
                " buffer");
  if (offset > src.size_ || bytes > src.size_ - offset)
    throw Error("a view of bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                ") is past the end of a buffer of " + std::to_string(src.size_) + " bytes");
  BlockRef block = src.block_;  // before Free(): src may be this buffer
  void* data = bytes ? static_cast<char*>(const_cast<void*>(src.data_)) + offset : nullptr;
  Free();
  block_ = std::move(block);
  data_ = data;
  size_ = bytes;
  view_ = true;
}

void Buffer::set_kind(StorageKind k) {
  if (k == kind_) return;
  if (block_) throw Error("cannot change the storage kind of an allocated buffer");
  kind_ = k;
}

bool Buffer::is_fallback() const { return GetAllocator(kind_).is_fallback(); }

void Buffer::Reallocate(size_t capacity) {
  block_ = capacity ? BlockRef::Allocate(kind_, capacity) : BlockRef();
  data_ = block_.data();
}

bool Buffer::Resize(size_t bytes, const MemoryConfig& cfg) {
  // A view, or a block a view elsewhere still reads: start from nothing (the view keeps its data).
  if (view_ || (block_ && !block_.exclusive())) Free();
  const size_t capacity = block_.capacity();
  bool realloc = false;
  if (bytes > capacity) {
    double factor = kind_ == StorageKind::kHost ? cfg.host_growth_factor : cfg.device_growth_factor;
    size_t grown = static_cast<size_t>(std::ceil(static_cast<double>(capacity) * factor));
    const size_t want = std::max(bytes, grown);
    Reallocate(kind_ == StorageKind::kHost ? HostSizeClass(want) : want);
    realloc = true;
  } else if (kind_ == StorageKind::kHost && capacity > 0 &&
             static_cast<double>(bytes) < static_cast<double>(capacity) * cfg.host_shrink_threshold) {
    const size_t c = HostSizeClass(bytes);
    if (c < capacity) {
      Reallocate(c);
      realloc = true;
    }
  }
  size_ = bytes;
  return realloc;
}

void Buffer::Reserve(size_t bytes, const MemoryConfig& cfg) {
  (void)cfg;
  if (view_) Free();
  const bool shared = block_ && !block_.exclusive();
  if (bytes > block_.capacity() || shared) {
    const size_t keep = size_;
    Reallocate(std::max(bytes, block_.capacity()));
    size_ = keep;
  }
}

}  // namespace sluice
