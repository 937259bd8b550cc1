// Sets environment variables for one test and restores them afterwards.
#pragma once
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace sluice::testing {

class EnvGuard {
 public:
  ~EnvGuard() {
    for (auto& [k, v] : saved_) {
      if (v) setenv(k.c_str(), v->c_str(), 1); else unsetenv(k.c_str());
    }
  }
  void Set(const std::string& k, const std::string& v) { Save(k); setenv(k.c_str(), v.c_str(), 1); }
  void Unset(const std::string& k) { Save(k); unsetenv(k.c_str()); }

 private:
  void Save(const std::string& k) {
    if (saved_.count(k)) return;
    const char* v = std::getenv(k.c_str());
    saved_[k] = v ? std::optional<std::string>(v) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

// Clears every memory/affinity variable so a test starts from the defaults.
inline void ClearSluiceEnv(EnvGuard& g) {
  for (const char* p : {"SLUICE_", "DALI_"}) {
    for (const char* n : {"HOST_BUFFER_SHRINK_THRESHOLD", "HOST_BUFFER_GROWTH_FACTOR", "DEVICE_BUFFER_GROWTH_FACTOR",
                          "BUFFER_GROWTH_FACTOR", "AFFINITY_MASK"})
      g.Unset(std::string(p) + n);
  }
}

}  // namespace sluice::testing
