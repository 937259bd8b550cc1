#include "readers/storage/retry.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <sluice/error.h>

#include "readers/storage/aws_config.h"

namespace sluice {

namespace {

double ParseNumber(const std::string& where, const std::string& v, double min) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end == v.c_str() || *end != '\0' || !std::isfinite(d) || d < min)
    throw Error(where + "='" + v + "' is not a number >= " + std::to_string(min));
  return d;
}

// A number of tries: a whole number from 1 to 1000 (a larger one is a typo, not a setting).
int ParseAttempts(const std::string& where, const std::string& v) {
  const double d = ParseNumber(where, v, 1);
  if (d != std::floor(d) || d > 1000) throw Error(where + "='" + v + "' is not a whole number from 1 to 1000");
  return static_cast<int>(d);
}

double EnvDouble(const char* name, double def, double min) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  return ParseNumber(std::string("environment variable ") + name, v, min);
}

}  // namespace

StorageOptions StorageOptionsFromEnv() {
  StorageOptions o;
  // The shared config file's profile, then AWS's environment variables, then Sluice's.
  const AwsProfileSettings profile = SharedAwsProfileSettings();
  auto setting = [&](const char* key) -> const std::string* {
    auto it = profile.values.find(key);
    return it == profile.values.end() || it->second.empty() ? nullptr : &it->second;
  };
  auto where = [&](const char* key) { return std::string(key) + " of profile '" + profile.profile + "' in " + profile.file; };
  if (const char* mode = std::getenv("AWS_RETRY_MODE"); mode && *mode) {
    o.retry_mode = mode;
    if (o.retry_mode != "standard" && o.retry_mode != "legacy" && o.retry_mode != "adaptive")
      throw Error("environment variable AWS_RETRY_MODE='" + o.retry_mode + "' is not standard, legacy or adaptive");
  } else if (const std::string* m = setting("retry_mode")) {
    o.retry_mode = *m;
    if (o.retry_mode != "standard" && o.retry_mode != "legacy" && o.retry_mode != "adaptive")
      throw Error(where("retry_mode") + " is '" + o.retry_mode + "', not standard, legacy or adaptive");
  }
  o.attempts = o.retry_mode == "legacy" ? 5 : 3;
  o.attempts_from = "the default of retry mode " + o.retry_mode;
  if (const std::string* v = setting("max_attempts")) {
    o.attempts = ParseAttempts(where("max_attempts"), *v);
    o.attempts_from = "max_attempts in " + profile.file;
  }
  if (const std::string* v = setting("connect_timeout")) o.connect_timeout_s = ParseNumber(where("connect_timeout"), *v, 0.001);
  if (const std::string* v = setting("read_timeout")) o.stall_timeout_s = ParseNumber(where("read_timeout"), *v, 0.001);
  if (const std::string* v = setting("ca_bundle")) o.ca_bundle = *v;
  if (const char* v = std::getenv("AWS_MAX_ATTEMPTS"); v && *v) {
    o.attempts = ParseAttempts("environment variable AWS_MAX_ATTEMPTS", v);
    o.attempts_from = "AWS_MAX_ATTEMPTS";
  }
  if (const char* ca = std::getenv("AWS_CA_BUNDLE"); ca && *ca) o.ca_bundle = ca;
  if (const char* v = std::getenv("SLUICE_STORAGE_ATTEMPTS"); v && *v) {
    o.attempts = ParseAttempts("environment variable SLUICE_STORAGE_ATTEMPTS", v);
    o.attempts_from = "SLUICE_STORAGE_ATTEMPTS";
  }
  o.timeout_s = EnvDouble("SLUICE_STORAGE_TIMEOUT", o.timeout_s, 0.01);
  o.connect_timeout_s = EnvDouble("SLUICE_STORAGE_CONNECT_TIMEOUT", o.connect_timeout_s, 0.01);
  o.stall_timeout_s = EnvDouble("SLUICE_STORAGE_STALL_TIMEOUT", o.stall_timeout_s, 1);
  // libcurl's low-speed time is whole seconds (0 would turn the check off).
  o.stall_timeout_s = std::max(1.0, std::ceil(o.stall_timeout_s));
  o.deadline_s = EnvDouble("SLUICE_STORAGE_DEADLINE", o.deadline_s, 0.01);
  o.base_backoff_s = EnvDouble("SLUICE_STORAGE_BACKOFF", o.base_backoff_s, 0);
  o.connections = static_cast<int>(EnvDouble("SLUICE_STORAGE_CONNECTIONS", o.connections, 1));
  o.coalesce_gap = static_cast<int64_t>(EnvDouble("SLUICE_STORAGE_COALESCE_GAP", static_cast<double>(o.coalesce_gap), 0));
  o.connections = std::min(o.connections, 256);
  o.cache_bytes = static_cast<int64_t>(EnvDouble("SLUICE_STORAGE_CACHE_BYTES", 0, 0));
  o.cache_block_bytes = static_cast<int64_t>(
      EnvDouble("SLUICE_STORAGE_CACHE_BLOCK", static_cast<double>(o.cache_block_bytes), 4096));
  if (const char* ca = std::getenv("SLUICE_STORAGE_CA_BUNDLE"); ca && *ca) o.ca_bundle = ca;
  return o;
}

bool IsRetryableStatus(long s) { return s == 408 || s == 429 || (s >= 500 && s <= 599); }

double BackoffDelay(const StorageOptions& o, int attempt, std::mt19937_64& rng) {
  const double cap = std::min(o.max_backoff_s, o.base_backoff_s * std::ldexp(1.0, std::min(attempt - 1, 30)));
  return std::uniform_real_distribution<double>(0.0, std::max(cap, 0.0))(rng);
}

}  // namespace sluice
