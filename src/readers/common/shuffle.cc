#include "readers/common/shuffle.h"

#include <algorithm>
#include <utility>

namespace sluice {

void ShuffleBufferOrder(const std::vector<int64_t>& in, int64_t initial_fill, RandomGenerator& rng,
                        std::vector<int64_t>* out) {
  out->clear();
  out->reserve(in.size());
  const size_t fill = static_cast<size_t>(std::max<int64_t>(1, initial_fill));
  const size_t first = std::min(fill, in.size());
  std::vector<int64_t> buf(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(first));
  size_t next = first;
  while (!buf.empty()) {
    const size_t j = static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(buf.size()) - 1));
    out->push_back(buf[j]);
    if (next < in.size()) {
      buf[j] = in[next++];
    } else {
      buf[j] = buf.back();
      buf.pop_back();
    }
  }
}

}  // namespace sluice
