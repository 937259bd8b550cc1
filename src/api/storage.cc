// The public storage functions (sluice/storage.h) over the readers' storage layer.
#include <sluice/storage.h>

#include "readers/storage/block_cache.h"
#include "readers/storage/http_client.h"
#include "readers/storage/storage.h"

namespace sluice::storage {

std::string ReadFile(const std::string& path) { return ReadWholeFile(path); }
void WriteFile(const std::string& path, std::string_view data) { WriteWholeFile(path, std::string(data)); }

RequestCounters GetRequestCounters() {
  const HttpCounters c = GetHttpCounters();
  return {c.requests, c.retries, c.bytes};
}
void ResetRequestCounters() { ResetHttpCounters(); }
void ClearBlockCache() { BlockCache::Instance().Clear(); }

}  // namespace sluice::storage
