#include "readers/common/file_label_list.h"

#include <limits>

#include <sluice/error.h>

#include "readers/common/shuffle.h"

namespace sluice {

namespace {
constexpr size_t kMaxBlockBytes = std::numeric_limits<uint32_t>::max();
}  // namespace

FileLabelList FileLabelList::FromVector(const std::vector<FileLabel>& files) {
  size_t bytes = 0;
  for (const FileLabel& f : files) bytes += f.path.size();
  FileLabelList out;
  out.Reserve(files.size(), bytes);
  for (const FileLabel& f : files) out.Add(f.path, f.label);
  return out;
}

FileLabelList::Block& FileLabelList::AddTarget(size_t more) {
  if (add_block_ < 0 || blocks_[static_cast<size_t>(add_block_)].bytes.size() + more > kMaxBlockBytes) {
    if (more > kMaxBlockBytes) throw Error("path longer than 4 GiB");
    add_block_ = static_cast<int64_t>(blocks_.size());
    blocks_.emplace_back();
  }
  return blocks_[static_cast<size_t>(add_block_)];
}

void FileLabelList::Reserve(size_t files, size_t path_bytes) {
  entries_.reserve(files);
  if (path_bytes > 0) AddTarget(0).bytes.reserve(std::min(path_bytes, kMaxBlockBytes));
}

void FileLabelList::Add(std::string_view rest, int32_t label) {
  Block& b = AddTarget(rest.size());
  const auto offset = static_cast<uint32_t>(b.bytes.size());
  b.bytes.append(rest);
  entries_.push_back({static_cast<uint32_t>(add_block_), offset, static_cast<uint32_t>(rest.size()), label});
}

uint32_t FileLabelList::AddBlock(std::string dir, std::string names) {
  if (names.size() > kMaxBlockBytes) throw Error("a block of file names longer than 4 GiB");
  blocks_.push_back({std::move(dir), std::move(names)});
  return static_cast<uint32_t>(blocks_.size() - 1);
}

void FileLabelList::AddFromBlock(uint32_t block, uint32_t offset, uint32_t length, int32_t label) {
  entries_.push_back({block, offset, length, label});
}

std::string FileLabelList::rest(size_t i) const {
  const Entry& e = entries_[i];
  const Block& b = blocks_[e.block];
  std::string s;
  s.reserve(b.dir.size() + e.length);
  s.assign(b.dir).append(b.bytes, e.offset, e.length);
  return s;
}

std::string FileLabelList::path(size_t i) const {
  std::string s;
  PathInto(i, &s);
  return s;
}

void FileLabelList::PathInto(size_t i, std::string* out) const {
  const Entry& e = entries_[i];
  const Block& b = blocks_[e.block];
  out->reserve(prefix_.size() + b.dir.size() + e.length);
  out->assign(prefix_).append(b.dir).append(b.bytes, e.offset, e.length);
}

void FileLabelList::Reorder(const std::vector<int64_t>& order) {
  std::vector<Entry> reordered;
  reordered.reserve(entries_.size());
  for (int64_t i : order) reordered.push_back(entries_[static_cast<size_t>(i)]);
  entries_.swap(reordered);
}

void FileLabelList::Shuffle(RandomGenerator& rng) { PermuteElements(&entries_, rng); }

std::vector<FileLabel> FileLabelList::ToVector() const {
  std::vector<FileLabel> out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) out.push_back({path(i), label(i)});
  return out;
}

}  // namespace sluice
