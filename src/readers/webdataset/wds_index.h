// WebDataset indices: grouping tar members into samples, and DALI's wds2idx index text format.
//
// Format (DALI tools/wds2idx.py): first line "v1.2 <num_samples>"; then one line per sample with,
// for each component, "<ext> <data_offset> <size> <member_name>" separated by spaces. "v1.1" lines
// omit the member name. Offsets are multiples of 512 (tar blocks).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "readers/storage/file_source.h"
#include "readers/webdataset/tar_parser.h"

namespace sluice {

struct WdsComponent {
  std::string ext;
  int64_t offset = 0;  // of the data, in the archive
  int64_t size = 0;
  std::string member;  // full member name; empty when read from a v1.1 index
  int line = 0;        // index file line (1-based) for messages; 0 when scanned from the tar
};

struct WdsSample {
  std::string key;  // member name without extension; empty when read from a v1.1 index
  std::vector<WdsComponent> components;
};

// A member's key and extension: the extension is everything after the first dot following the
// last '/'. Hidden members (base name starting with '.') and members without a dot are not
// sample components.
struct MemberName {
  std::string_view key;
  std::string_view ext;
  bool is_component = false;
};
MemberName SplitMemberName(std::string_view name);

// Groups members into samples: regular, non-hidden members with an extension; consecutive members
// with the same key form one sample (other entries in between are ignored).
class WdsSampleGrouper {
 public:
  void Add(const TarEntry& e);
  std::vector<WdsSample>& samples() { return samples_; }

 private:
  std::vector<WdsSample> samples_;
};

// Scans the whole archive (headers only). `progress`, when set, is called as
// progress(bytes_scanned, archive_size) every 4,096 members and at the end. Throws sluice::Error
// from the tar parser.
std::vector<WdsSample> ScanTarSamples(const ByteSource& tar,
                                      const std::function<void(int64_t, int64_t)>& progress = {});

// The v1.2 index text. Throws sluice::Error if a member name or extension contains whitespace
// (the format cannot represent it).
std::string WriteWdsIndex(const std::vector<WdsSample>& samples);

// Parses an index (v1.2 or v1.1). `archive_size` >= 0 also checks that every component lies inside
// the archive. Throws sluice::Error naming `index_name` and the line for: a missing or unknown
// version signature, a sample count that does not match the lines, a malformed or non-numeric
// field, an offset that is not a multiple of 512, a component outside the archive, and components
// whose data overlap.
std::vector<WdsSample> ParseWdsIndex(std::string_view text, const std::string& index_name, int64_t archive_size);

}  // namespace sluice
