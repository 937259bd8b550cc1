#include "readers/common/reader_log.h"

#include <cstdio>
#include <mutex>

namespace sluice {

void ReaderWarning(const std::string& message) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "sluice: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace sluice
