#include <sluice/memory_config.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

#include <sluice/error.h>

namespace sluice {
namespace {

std::string Fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Returns the value of SLUICE_<name> or, failing that, DALI_<name>, with the variable it came from.
std::optional<std::pair<std::string, std::string>> Lookup(const std::string& name) {
  for (const char* prefix : {"SLUICE_", "DALI_"}) {
    std::string var = prefix + name;
    if (const char* v = std::getenv(var.c_str())) return std::make_pair(var, std::string(v));
  }
  return std::nullopt;
}

std::optional<double> ReadNumber(const std::string& name, double lo, double hi) {
  auto found = Lookup(name);
  if (!found) return std::nullopt;
  const auto& [var, text] = *found;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  while (end && *end == ' ') ++end;
  if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    throw Error("environment variable " + var + "='" + text + "' is not a number");
  }
  if (v < lo || v > hi) {
    throw Error("environment variable " + var + "=" + text + " is out of range [" + Fmt(lo) + ", " +
                Fmt(hi) + "]");
  }
  return v;
}

// The values given to MemoryConfig::SetDefault*, applied over the environment.
struct Overrides {
  std::optional<double> host_shrink_threshold, host_growth_factor, device_growth_factor;
};

std::mutex& OverridesMutex() {
  static std::mutex m;
  return m;
}

Overrides& TheOverrides() {
  static Overrides o;
  return o;
}

void CheckRange(const char* what, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi))  // also rejects NaN
    throw Error(std::string(what) + " must be in [" + Fmt(lo) + ", " + Fmt(hi) + "], got " + Fmt(v));
}

}  // namespace

MemoryConfig MemoryConfig::ProcessDefault() {
  MemoryConfig c = FromEnvironment();
  std::lock_guard<std::mutex> lock(OverridesMutex());
  const Overrides& o = TheOverrides();
  if (o.host_shrink_threshold) c.host_shrink_threshold = *o.host_shrink_threshold;
  if (o.host_growth_factor) c.host_growth_factor = *o.host_growth_factor;
  if (o.device_growth_factor) c.device_growth_factor = *o.device_growth_factor;
  return c;
}

void MemoryConfig::SetDefaultHostShrinkThreshold(double threshold) {
  CheckRange("the host buffer shrink threshold", threshold, 0.0, 1.0);
  std::lock_guard<std::mutex> lock(OverridesMutex());
  TheOverrides().host_shrink_threshold = threshold;
}

void MemoryConfig::SetDefaultHostGrowthFactor(double factor) {
  CheckRange("the host buffer growth factor", factor, 1.0, 4.0);
  std::lock_guard<std::mutex> lock(OverridesMutex());
  TheOverrides().host_growth_factor = factor;
}

void MemoryConfig::SetDefaultDeviceGrowthFactor(double factor) {
  CheckRange("the device buffer growth factor", factor, 1.0, 4.0);
  std::lock_guard<std::mutex> lock(OverridesMutex());
  TheOverrides().device_growth_factor = factor;
}

void MemoryConfig::SetDefaultGrowthFactor(double factor) {
  CheckRange("the buffer growth factor", factor, 1.0, 4.0);
  std::lock_guard<std::mutex> lock(OverridesMutex());
  TheOverrides().host_growth_factor = factor;
  TheOverrides().device_growth_factor = factor;
}

void MemoryConfig::ResetDefaults() {
  std::lock_guard<std::mutex> lock(OverridesMutex());
  TheOverrides() = Overrides{};
}

MemoryConfig MemoryConfig::FromEnvironment() {
  MemoryConfig c;
  if (auto v = ReadNumber("HOST_BUFFER_SHRINK_THRESHOLD", 0.0, 1.0)) c.host_shrink_threshold = *v;
  if (auto v = ReadNumber("BUFFER_GROWTH_FACTOR", 1.0, 4.0)) c.host_growth_factor = c.device_growth_factor = *v;
  if (auto v = ReadNumber("HOST_BUFFER_GROWTH_FACTOR", 1.0, 4.0)) c.host_growth_factor = *v;
  if (auto v = ReadNumber("DEVICE_BUFFER_GROWTH_FACTOR", 1.0, 4.0)) c.device_growth_factor = *v;
  return c;
}

void MemoryConfig::Validate() const {
  if (!(host_shrink_threshold >= 0.0 && host_shrink_threshold <= 1.0))
    throw Error("host_shrink_threshold must be in [0, 1], got " + std::to_string(host_shrink_threshold));
  if (!(host_growth_factor >= 1.0 && host_growth_factor <= 4.0))
    throw Error("host_growth_factor must be in [1, 4], got " + std::to_string(host_growth_factor));
  if (!(device_growth_factor >= 1.0 && device_growth_factor <= 4.0))
    throw Error("device_growth_factor must be in [1, 4], got " + std::to_string(device_growth_factor));
}

}  // namespace sluice
