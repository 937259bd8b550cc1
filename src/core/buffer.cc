#include "core/buffer.h"

#include <algorithm>
#include <cmath>
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

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    Free();
    kind_ = o.kind_;
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

void Buffer::Free() {
  if (data_) GetAllocator(kind_).Deallocate(data_, capacity_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

void Buffer::set_kind(StorageKind k) {
  if (k == kind_) return;
  if (capacity_) throw Error("cannot change the storage kind of an allocated buffer");
  kind_ = k;
}

bool Buffer::is_fallback() const { return GetAllocator(kind_).is_fallback(); }

void Buffer::Reallocate(size_t capacity) {
  Allocator& a = GetAllocator(kind_);
  void* p = capacity ? a.Allocate(capacity) : nullptr;
  if (data_) a.Deallocate(data_, capacity_);
  data_ = p;
  capacity_ = capacity;
}

bool Buffer::Resize(size_t bytes, const MemoryConfig& cfg) {
  bool realloc = false;
  if (bytes > capacity_) {
    double factor = kind_ == StorageKind::kHost ? cfg.host_growth_factor : cfg.device_growth_factor;
    size_t grown = static_cast<size_t>(std::ceil(static_cast<double>(capacity_) * factor));
    const size_t want = std::max(bytes, grown);
    Reallocate(kind_ == StorageKind::kHost ? HostSizeClass(want) : want);
    realloc = true;
  } else if (kind_ == StorageKind::kHost && capacity_ > 0 &&
             static_cast<double>(bytes) < static_cast<double>(capacity_) * cfg.host_shrink_threshold) {
    const size_t c = HostSizeClass(bytes);
    if (c < capacity_) {
      Reallocate(c);
      realloc = true;
    }
  }
  size_ = bytes;
  return realloc;
}

void Buffer::Reserve(size_t bytes, const MemoryConfig& cfg) {
  if (bytes > capacity_) {
    Reallocate(bytes);
  }
}

}  // namespace sluice
