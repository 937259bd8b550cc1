// readers.file's samples, stored flat: the paths in a few large byte blocks behind a common prefix
// (the file_root), and one 16-byte entry (block, offset, length, label) per file.
//
// A million-file dataset then costs ~40 bytes a file in a few thousand allocations, instead of a
// heap-allocated std::string per path (~120 bytes a file and a million mallocs and frees). A block
// can carry a folder part shared by all its files ("class/"), stored once: a file_root listing
// hands each class folder's names over as one block, without copying them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/random.h"
namespace sluice {

// One file of a dataset and its label.
struct FileLabel {
  std::string path;  // as opened (joined with file_root or the list's folder)
  int32_t label = 0;
  bool operator==(const FileLabel& o) const { return path == o.path && label == o.label; }
};

class FileLabelList {
 public:
  // Every path is `prefix` followed by the rest stored here.
  explicit FileLabelList(std::string prefix = "") : prefix_(std::move(prefix)) {}
  // Full paths, prefix "".
  static FileLabelList FromVector(const std::vector<FileLabel>& files);

  void Reserve(size_t files, size_t path_bytes);
  // Appends the file prefix() + rest.
  void Add(std::string_view rest, int32_t label);
  // Takes `names` (file names back to back, at most 4 GiB) as a block whose files' paths are
  // prefix() + dir + a name; returns the block's id for AddFromBlock.
  uint32_t AddBlock(std::string dir, std::string names);
  // Appends the file prefix() + dir + names.substr(offset, length) of block `block`.
  void AddFromBlock(uint32_t block, uint32_t offset, uint32_t length, int32_t label);

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const std::string& prefix() const { return prefix_; }
  // The path without the prefix.
  std::string rest(size_t i) const;
  std::string path(size_t i) const;
  // Writes path(i) into *out, reusing its capacity.
  void PathInto(size_t i, std::string* out) const;
  int32_t label(size_t i) const { return entries_[i].label; }

  // Reorders the files: the new i-th file is the old order[i]-th (order is a permutation).
  void Reorder(const std::vector<int64_t>& order);
  // Shuffles in place: the same order as Reorder by the indices that Permute (shuffle.h) shuffles
  // with the same generator, without those indices.
  void Shuffle(RandomGenerator& rng);

  std::vector<FileLabel> ToVector() const;

 private:
  struct Block {
    std::string dir;
    std::string bytes;
  };
  struct Entry {
    uint32_t block;
    uint32_t offset;
    uint32_t length;
    int32_t label;
  };
  // The block Add appends to, opened (with dir "") when there is none or it would pass 4 GiB.
  Block& AddTarget(size_t more);

  std::string prefix_;
  std::vector<Block> blocks_;
  int64_t add_block_ = -1;  // AddTarget's block, -1 before the first Add
  std::vector<Entry> entries_;
};

}  // namespace sluice
