// readers.webdataset's mapping of sample components to outputs: `ext` matching, the
// missing-component behaviour and the dtype size check. Pure logic over parsed indices.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <sluice/dtype.h>

#include "readers/webdataset/wds_index.h"

namespace sluice {

enum class MissingComponent { kEmpty, kSkip, kError };

// "" or "empty", "skip", "error", matched case-insensitively. Throws sluice::Error otherwise.
MissingComponent ParseMissingComponentBehavior(const std::string& value);

// One output per `ext` entry; ';' separates alternatives (which may contain dots).
class ExtMatcher {
 public:
  ExtMatcher(const std::vector<std::string>& ext, bool case_sensitive);
  int num_outputs() const { return static_cast<int>(alternatives_.size()); }
  bool Matches(int output, std::string_view ext) const;
  // The entry as given, for messages.
  const std::string& spec(int output) const { return specs_[static_cast<size_t>(output)]; }

 private:
  std::vector<std::vector<std::string>> alternatives_;
  std::vector<std::string> specs_;
  bool case_sensitive_;
};

// The samples a reader returns: num_outputs components per sample (offset < 0: missing, an empty
// output).
struct WdsDataset {
  int num_outputs = 0;
  std::vector<int32_t> archive;          // per sample
  std::vector<std::string> key;          // per sample (may be empty for v1.1 indices)
  std::vector<WdsComponent> components;  // sample-major, num_outputs per sample
  int64_t size() const { return static_cast<int64_t>(archive.size()); }
  const WdsComponent& component(int64_t sample, int output) const {
    return components[static_cast<size_t>(sample * num_outputs + output)];
  }
};

struct WdsResolveOptions {
  MissingComponent missing = MissingComponent::kEmpty;
  std::vector<DType> dtypes;  // one per output
};

// Appends archive `archive`'s samples to `out`: for each output the first matching component wins
// (a duplicate match is reported once through ReaderWarning, tracked by *warned); samples missing
// a component are kept (empty output), dropped (kSkip) or rejected (kError: sluice::Error naming
// the archive, the sample key and the missing extension). A matched component whose size is not a
// multiple of its output's dtype size is an error naming the archive, member, size and dtype.
void ResolveWdsSamples(const std::vector<WdsSample>& samples, int32_t archive, const std::string& archive_path,
                       const ExtMatcher& matcher, const WdsResolveOptions& options, WdsDataset* out, bool* warned);

}  // namespace sluice
