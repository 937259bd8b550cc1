// HTTP requests through libcurl, with retries (retry.h).
//
// Connections are reused: each thread keeps one curl handle (and with it libcurl's connection
// cache) for its lifetime, so the storage pool's threads (storage.h) keep their keep-alive
// connections to a server from batch to batch. Thread-safe: nothing is shared between threads.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "readers/storage/retry.h"

namespace sluice {

struct HttpRequest {
  std::string method = "GET";  // GET, HEAD or PUT
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  const std::string* body = nullptr;  // PUT's payload (not owned)
};

// Where a response body goes: a string, or a caller's buffer of exactly `cap` bytes (a ranged
// read). For a buffer, a 200 answer to a ranged request (a server ignoring Range) is accepted: its
// first `skip_if_full` bytes are skipped, the next `cap` kept, and the transfer stopped there (the
// connection is not reused; such a server costs a download from the start of the file per read).
struct HttpBody {
  std::string* str = nullptr;
  uint8_t* dst = nullptr;
  size_t cap = 0;
  size_t skip_if_full = 0;
};

struct HttpResult {
  long status = 0;                 // 0: no HTTP answer (transport error)
  std::string transport_error;     // libcurl's message when status == 0 or the body was cut short
  std::map<std::string, std::string> headers;  // lower-case names
  std::string error_body;          // the first 4 KiB of a non-2xx body
  size_t received = 0;             // body bytes delivered to HttpBody
  bool ok() const { return status >= 200 && status < 300 && transport_error.empty(); }
};

// One try. Never throws for network or HTTP errors (they are in the result).
HttpResult HttpPerformOnce(const HttpRequest& req, const HttpBody& body, const StorageOptions& opt);

// Tries until success or the retry budget is spent (retry.h). `make` builds the request for try
// `attempt` (from 1; S3 signs each try anew); `complete` says whether a 2xx result holds the whole
// body (else the try counts as a dropped connection and is retried). Throws sluice::Error naming
// `what` (a redacted URL, maybe with a byte range), the last HTTP status or transport error and the
// number of tries. `on_error_status` may turn a non-retryable status into a friendlier message.
HttpResult HttpPerformWithRetries(const std::string& what, const StorageOptions& opt,
                                  const std::function<HttpRequest(int attempt)>& make, const HttpBody& body,
                                  const std::function<bool(const HttpResult&)>& complete);

// Process-wide counters (benchmarks, tests): tries sent, tries that failed and were retried.
struct HttpCounters {
  int64_t requests = 0;
  int64_t retries = 0;
  int64_t bytes = 0;
};
HttpCounters GetHttpCounters();
void ResetHttpCounters();

}  // namespace sluice
