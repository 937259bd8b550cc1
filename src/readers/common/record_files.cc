#include "readers/common/record_files.h"

namespace sluice {

void RecordFiles::Open(const std::vector<std::string>& paths, bool use_mmap, bool read_ahead) {
  files_.reserve(paths.size());
  for (const std::string& p : paths) files_.push_back(OpenByteSource(p, use_mmap, read_ahead));
}

void RecordFiles::Add(size_t a, int64_t offset, int64_t size) {
  records_.push_back({static_cast<int32_t>(a), offset, size});
}

void RecordFiles::ReadBatch(const std::vector<int64_t>& indices) {
  const size_t n = indices.size();
  recs_.resize(n);
  reads_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Record& r = records_[static_cast<size_t>(indices[i])];
    recs_[i].resize(static_cast<size_t>(r.size));
    reads_[i] = RangeRead{};
    reads_[i].source = files_[static_cast<size_t>(r.file)].get();
    reads_[i].offset = r.offset;
    reads_[i].size = recs_[i].size();
    reads_[i].dst = recs_[i].data();
  }
  ReadRanges(reads_);
}

SourceInfo RecordFiles::source(size_t i) const {
  SourceInfo s;
  s.path = reads_[i].source->name();
  s.offset = reads_[i].offset;
  return s;
}

std::string RecordFilesName(const std::string& kind, const std::vector<std::string>& paths) {
  std::string s = kind + " [";
  for (size_t i = 0; i < paths.size() && i < 3; ++i) s += (i ? ", " : "") + paths[i];
  if (paths.size() > 3) s += ", ... (" + std::to_string(paths.size()) + " files)";
  return s + "]";
}

}  // namespace sluice
