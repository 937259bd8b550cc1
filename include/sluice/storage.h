// Object storage as the readers reach it: local paths, s3://bucket/key objects and http(s):// URLs
// (credentials, endpoints, retries and the block cache: docs/object-storage.md). For tools and
// benchmarks; readers need none of it. Part of the public API.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::storage {

// The whole content of a local file, an s3:// object or an http(s):// URL (with retries). Throws
// sluice::Error naming the path.
std::string ReadFile(const std::string& path);
// Writes a local file or an s3:// object (one PUT, with retries). Throws sluice::Error naming it.
void WriteFile(const std::string& path, std::string_view data);

// HTTP requests sent (retries included), retries, and body bytes received, by the whole process
// since the last reset.
struct RequestCounters {
  int64_t requests = 0;
  int64_t retries = 0;
  int64_t bytes = 0;
};
RequestCounters GetRequestCounters();
void ResetRequestCounters();

// Drops the blocks that SLUICE_STORAGE_CACHE_BYTES's cache holds.
void ClearBlockCache();

}  // namespace sluice::storage
