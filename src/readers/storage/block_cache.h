// An opt-in, process-wide cache of large blocks of remote objects (SLUICE_STORAGE_CACHE_BYTES,
// default 0: off): with it, ReadRanges reads whole blocks (SLUICE_STORAGE_CACHE_BLOCK, 8 MiB) and
// one block past the furthest one a batch needs, so a shard read in order, or shuffled within a
// window (readers.webdataset's initial_fill), is streamed in a few large GETs that run ahead of
// the reader, instead of one GET per sample. The cache never holds more than its capacity
// (least recently used blocks go first; a batch that alone needs more reads directly). For reads
// spread over a whole dataset it multiplies the bytes transferred: leave it off there.
// Thread-safe.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sluice {

class BlockCache {
 public:
  using Block = std::shared_ptr<const std::string>;
  static BlockCache& Instance();

  // nullptr if absent. `key` names the object and the block ("s3://b/k#size#block_bytes#index").
  Block Get(const std::string& key);
  void Put(const std::string& key, Block block, int64_t capacity);
  // Drops every block (benchmarks: each epoch then streams from the server again).
  void Clear();

 private:
  std::mutex mu_;
  std::list<std::pair<std::string, Block>> lru_;  // most recent first
  std::unordered_map<std::string, std::list<std::pair<std::string, Block>>::iterator> index_;
  int64_t bytes_ = 0;
};

}  // namespace sluice
