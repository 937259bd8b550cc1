// A remote object read as a ByteSource (file_source.h): what the readers' parsers (tar scan,
// TFRecord scan, .npy header) read through, unchanged.
//
// Reads of at least `block_bytes` go straight to one ranged GET. Smaller ones (a tar scan's 512-byte
// headers, an index walk) are served from a small cache of whole blocks (a few 1 MiB blocks, least
// recently used evicted), so a sequential scan costs one request per block, not per header.
// Batches of reads go through ReadRanges (storage.h), which coalesces and parallelises them.
// Thread-safe.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "readers/storage/file_source.h"
#include "readers/storage/remote_object.h"

namespace sluice {

class RemoteSource : public ByteSource {
 public:
  // Asks the server for the size (HEAD); throws sluice::Error naming the URL on failure.
  RemoteSource(const std::string& path, const StorageOptions& opt);

  int64_t size() const override { return size_; }
  void ReadAt(int64_t offset, size_t len, void* dst) const override;
  const std::string& name() const override { return name_; }
  const RemoteObject& object() const { return object_; }
  // Throws the out-of-range error if [begin, end) is not inside the object.
  void CheckInside(int64_t begin, int64_t end) const { CheckRange(begin, static_cast<size_t>(end - begin)); }

 private:
  static constexpr size_t kCachedBlocks = 4;
  std::shared_ptr<const std::string> Block(int64_t index) const;

  RemoteObject object_;
  std::string name_;  // redacted URL
  int64_t size_ = 0;
  mutable std::mutex mu_;
  mutable std::list<std::pair<int64_t, std::shared_ptr<const std::string>>> cache_;  // guarded by mu_, MRU first
};

}  // namespace sluice
