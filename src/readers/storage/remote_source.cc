#include "readers/storage/remote_source.h"

#include <algorithm>
#include <cstring>

namespace sluice {

RemoteSource::RemoteSource(const std::string& path, const StorageOptions& opt)
    : object_(path, opt), name_(object_.display()) {
  size_ = object_.Size();
}

std::shared_ptr<const std::string> RemoteSource::Block(int64_t index) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (it->first == index) {
        cache_.splice(cache_.begin(), cache_, it);
        return cache_.front().second;
      }
    }
  }
  // Fetched without the lock: two threads may fetch the same block once each (harmless).
  const int64_t bs = object_.options().block_bytes;
  const int64_t begin = index * bs;
  auto block = std::make_shared<std::string>(static_cast<size_t>(std::min(bs, size_ - begin)), '\0');
  object_.ReadRange(begin, block->size(), block->data());
  std::lock_guard<std::mutex> lock(mu_);
  cache_.emplace_front(index, block);
  if (cache_.size() > kCachedBlocks) cache_.pop_back();
  return block;
}

void RemoteSource::ReadAt(int64_t offset, size_t len, void* dst) const {
  CheckRange(offset, len);
  if (len == 0) return;
  const int64_t bs = object_.options().block_bytes;
  if (static_cast<int64_t>(len) >= bs) {
    object_.ReadRange(offset, len, dst);
    return;
  }
  auto* out = static_cast<uint8_t*>(dst);
  int64_t pos = offset;
  const int64_t end = offset + static_cast<int64_t>(len);
  while (pos < end) {
    const int64_t index = pos / bs;
    const auto block = Block(index);
    const int64_t in_block = pos - index * bs;
    const int64_t n = std::min(end - pos, static_cast<int64_t>(block->size()) - in_block);
    std::memcpy(out, block->data() + in_block, static_cast<size_t>(n));
    out += n;
    pos += n;
  }
}

}  // namespace sluice
