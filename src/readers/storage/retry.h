// How object-storage requests are timed out and retried, from SLUICE_STORAGE_* environment
// variables (read once per opened dataset, so a test or a job script sets them before building
// the pipeline).
//
// Retried: transport failures (connection refused or reset, a body cut short, a timeout, DNS
// errors), HTTP 408, 429 and every 5xx (S3's 503 SlowDown included). Not retried: other 4xx (403,
// 404, 416: asking again gives the same answer). Waits between attempts grow exponentially with
// full jitter (AWS's "exponential backoff and jitter"): attempt k waits a uniform random time in
// [0, min(max_backoff, base_backoff * 2^k)]. A request gives up after `attempts` tries or when the
// next wait would pass `deadline_s` since its first try, whichever comes first.
#pragma once
#include <cstdint>
#include <random>
#include <string>

namespace sluice {

struct StorageOptions {
  int attempts = 8;                 // SLUICE_STORAGE_ATTEMPTS: tries per request (>= 1)
  double timeout_s = 60;            // SLUICE_STORAGE_TIMEOUT: one try's limit (connect + transfer)
  double connect_timeout_s = 10;    // SLUICE_STORAGE_CONNECT_TIMEOUT
  double stall_timeout_s = 15;      // SLUICE_STORAGE_STALL_TIMEOUT: no byte for this long ends a try
  double deadline_s = 120;          // SLUICE_STORAGE_DEADLINE: a request's whole budget, retries included
  double base_backoff_s = 0.1;      // SLUICE_STORAGE_BACKOFF
  double max_backoff_s = 10;
  int connections = 16;             // SLUICE_STORAGE_CONNECTIONS: parallel requests (process-wide pool)
  int64_t coalesce_gap = 256 << 10;  // SLUICE_STORAGE_COALESCE_GAP: neighbours this close share one GET
  int64_t max_request_bytes = 16 << 20;  // a coalesced GET is at most this long
  int64_t block_bytes = 1 << 20;    // RemoteSource's cached block for small sequential reads
  int64_t cache_bytes = 0;          // SLUICE_STORAGE_CACHE_BYTES: block cache (block_cache.h), 0: off
  int64_t cache_block_bytes = 8 << 20;  // SLUICE_STORAGE_CACHE_BLOCK
  std::string ca_bundle;            // SLUICE_STORAGE_CA_BUNDLE: PEM file of the CAs https:// trusts (else the system's)
};

// Defaults overridden by the environment; throws sluice::Error naming a malformed variable.
StorageOptions StorageOptionsFromEnv();

bool IsRetryableStatus(long http_status);
// The wait before try `attempt` + 1 (attempt counts from 1), in seconds.
double BackoffDelay(const StorageOptions& o, int attempt, std::mt19937_64& rng);

}  // namespace sluice
