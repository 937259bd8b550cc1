#include "readers/storage/retry.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <sluice/error.h>

namespace sluice {

namespace {

double EnvDouble(const char* name, double def, double min) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (end == v || *end != '\0' || !std::isfinite(d) || d < min)
    throw Error(std::string("environment variable ") + name + "='" + v + "' is not a number >= " + std::to_string(min));
  return d;
}

}  // namespace

StorageOptions StorageOptionsFromEnv() {
  StorageOptions o;
  o.attempts = static_cast<int>(EnvDouble("SLUICE_STORAGE_ATTEMPTS", o.attempts, 1));
  o.timeout_s = EnvDouble("SLUICE_STORAGE_TIMEOUT", o.timeout_s, 0.01);
  o.connect_timeout_s = EnvDouble("SLUICE_STORAGE_CONNECT_TIMEOUT", o.connect_timeout_s, 0.01);
  o.stall_timeout_s = EnvDouble("SLUICE_STORAGE_STALL_TIMEOUT", o.stall_timeout_s, 1);
  o.deadline_s = EnvDouble("SLUICE_STORAGE_DEADLINE", o.deadline_s, 0.01);
  o.base_backoff_s = EnvDouble("SLUICE_STORAGE_BACKOFF", o.base_backoff_s, 0);
  o.connections = static_cast<int>(EnvDouble("SLUICE_STORAGE_CONNECTIONS", o.connections, 1));
  o.coalesce_gap = static_cast<int64_t>(EnvDouble("SLUICE_STORAGE_COALESCE_GAP", static_cast<double>(o.coalesce_gap), 0));
  o.connections = std::min(o.connections, 256);
  o.cache_bytes = static_cast<int64_t>(EnvDouble("SLUICE_STORAGE_CACHE_BYTES", 0, 0));
  o.cache_block_bytes = static_cast<int64_t>(
      EnvDouble("SLUICE_STORAGE_CACHE_BLOCK", static_cast<double>(o.cache_block_bytes), 4096));
  if (const char* ca = std::getenv("SLUICE_STORAGE_CA_BUNDLE")) o.ca_bundle = ca;
  return o;
}

bool IsRetryableStatus(long s) { return s == 408 || s == 429 || (s >= 500 && s <= 599); }

double BackoffDelay(const StorageOptions& o, int attempt, std::mt19937_64& rng) {
  const double cap = std::min(o.max_backoff_s, o.base_backoff_s * std::ldexp(1.0, std::min(attempt - 1, 30)));
  return std::uniform_real_distribution<double>(0.0, std::max(cap, 0.0))(rng);
}

}  // namespace sluice
