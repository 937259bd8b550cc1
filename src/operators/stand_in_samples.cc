#include "operators/stand_in_samples.h"

#include <algorithm>
#include <cstring>

#include "sluice/error.h"

namespace sluice {

std::vector<std::pair<int, int>> PickStandIns(int n, const std::function<const std::string&(int)>& error_of,
                                              const std::function<const SourceInfo&(int)>& source_of,
                                              const Workspace& ws) {
  std::vector<int> ok;
  for (int i = 0; i < n; ++i)
    if (error_of(i).empty()) ok.push_back(i);
  std::vector<std::pair<int, int>> pairs;
  if (static_cast<int>(ok.size()) == n) return pairs;
  if (ok.empty()) {
    Error::Context c;
    c.sample = 0;
    c.source = source_of(0).ToString();
    throw Error("no sample of the batch could be decoded (on_error=\"replace\" needs at least one); first error: " +
                    error_of(0),
                c);
  }
  for (int i = 0; i < n; ++i) {
    if (error_of(i).empty()) continue;
    const auto next = std::upper_bound(ok.begin(), ok.end(), i);
    pairs.emplace_back(i, next == ok.end() ? ok.front() : *next);
    ws.ReportFailedSample(i, source_of(i), error_of(i));
  }
  return pairs;
}

void CopyStandIns(const std::vector<std::pair<int, int>>& pairs, TensorList& out, const Workspace& ws) {
  for (const auto& [i, r] : pairs) {
    out.ResizeSample(i, out.shape(r), ws.memory());
    std::memcpy(out.raw_mutable_sample(i), out.raw_sample(r), out.sample_bytes(r));
  }
}

}  // namespace sluice
