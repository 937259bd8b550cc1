#include "readers/storage/block_cache.h"

namespace sluice {

BlockCache& BlockCache::Instance() {
  static BlockCache* cache = new BlockCache();  // never destroyed: loader threads may outlive statics
  return *cache;
}

BlockCache::Block BlockCache::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void BlockCache::Put(const std::string& key, Block block, int64_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index_.count(key)) return;
  bytes_ += static_cast<int64_t>(block->size());
  lru_.emplace_front(key, std::move(block));
  index_[key] = lru_.begin();
  while (bytes_ > capacity && !lru_.empty()) {
    bytes_ -= static_cast<int64_t>(lru_.back().second->size());
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

void BlockCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  lru_.clear();
  index_.clear();
  bytes_ = 0;
}

}  // namespace sluice
