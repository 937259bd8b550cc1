// How object-storage requests (s3:// and http(s)://) are timed out and retried: the standard AWS
// configuration, with Sluice's own SLUICE_STORAGE_* environment variables as overrides. Read once
// per opened dataset (so a test or a job script sets them before building the pipeline).
//
// Each setting, from the first place that gives it:
//   tries per request    SLUICE_STORAGE_ATTEMPTS, AWS_MAX_ATTEMPTS, the profile's max_attempts in
//                        the shared config file, else by retry mode (AWS_RETRY_MODE, the profile's
//                        retry_mode, else "standard"): 3 for standard and adaptive, 5 for legacy
//                        (the AWS SDKs' and CLI's defaults; adaptive's client-side rate limiter is
//                        not implemented: it retries as standard does);
//   connect timeout      SLUICE_STORAGE_CONNECT_TIMEOUT, the profile's connect_timeout, else 1 s;
//   read timeout         SLUICE_STORAGE_STALL_TIMEOUT, the profile's read_timeout, else 3 s: a try
//                        that receives no byte for this long (no answer to the request, or a body
//                        that stops) ends. 1 s and 3 s are the AWS SDK for C++'s defaults
//                        (ClientConfiguration's connectTimeoutMs and requestTimeoutMs, which it
//                        applies as libcurl's connect and low-speed timeouts, as here);
//   CA bundle            SLUICE_STORAGE_CA_BUNDLE, AWS_CA_BUNDLE, the profile's ca_bundle, else the
//                        system's CAs.
// The shared config file is AWS_CONFIG_FILE or ~/.aws/config, its profile AWS_PROFILE's ("default":
// the [default] section, else [profile NAME]). So a server that accepts connections and never
// answers fails a request after attempts x read timeout plus the backoff: about 10 s by default.
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
  int attempts = 3;                 // tries per request (>= 1): see above
  std::string attempts_from = "the default of retry mode standard";  // where `attempts` came from (messages)
  std::string retry_mode = "standard";  // AWS_RETRY_MODE or the profile's retry_mode
  double timeout_s = 60;            // SLUICE_STORAGE_TIMEOUT: one try's limit (connect + transfer)
  double connect_timeout_s = 1;     // see above
  double stall_timeout_s = 3;       // the read timeout: no byte for this long ends a try (whole seconds, >= 1)
  double deadline_s = 120;          // SLUICE_STORAGE_DEADLINE: a request's whole budget, retries included
  double base_backoff_s = 0.1;      // SLUICE_STORAGE_BACKOFF
  double max_backoff_s = 10;
  int connections = 16;             // SLUICE_STORAGE_CONNECTIONS: parallel requests (process-wide pool)
  int64_t coalesce_gap = 256 << 10;  // SLUICE_STORAGE_COALESCE_GAP: neighbours this close share one GET
  int64_t max_request_bytes = 16 << 20;  // a coalesced GET is at most this long
  int64_t block_bytes = 1 << 20;    // RemoteSource's cached block for small sequential reads
  int64_t cache_bytes = 0;          // SLUICE_STORAGE_CACHE_BYTES: block cache (block_cache.h), 0: off
  int64_t cache_block_bytes = 8 << 20;  // SLUICE_STORAGE_CACHE_BLOCK
  std::string ca_bundle;            // PEM file of the CAs https:// trusts (else the system's): see above
};

// Defaults overridden by the shared config file's profile, then by the environment (see above);
// throws sluice::Error naming a malformed variable or setting.
StorageOptions StorageOptionsFromEnv();

bool IsRetryableStatus(long http_status);
// The wait before try `attempt` + 1 (attempt counts from 1), in seconds.
double BackoffDelay(const StorageOptions& o, int attempt, std::mt19937_64& rng);

}  // namespace sluice
