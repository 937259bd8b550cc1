// Where a sample came from, so that any error about it can name it. Part of the stable public API.
#pragma once
#include <cstdint>
#include <string>

namespace sluice {

struct SourceInfo {
  std::string path;     // file path, or the tar archive's path
  std::string member;   // tar member name; empty for plain files
  int64_t offset = -1;  // byte offset of the data inside `path`; -1 when not meaningful

  bool empty() const { return path.empty() && member.empty(); }
  // "a/b.jpg", "shard-0.tar:000123.jpg@offset 5120"
  std::string ToString() const {
    std::string s = path;
    if (!member.empty()) s += (s.empty() ? "" : ":") + member;
    if (offset >= 0) s += " @offset " + std::to_string(offset);
    return s;
  }
};

}  // namespace sluice
