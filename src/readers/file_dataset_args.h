// The dataset arguments that readers.file and readers.numpy share: file_root, file_list, files and
// shuffle_after_epoch, read and checked as DALI does. (What each reader lists from them is its own:
// readers/file_list.h and file_root_index.h.)
#pragma once
#include <string>
#include <vector>

#include "readers/reader_operator.h"

namespace sluice {

struct FileDatasetArgs {
  // Reads the arguments of `op`. Throws naming the argument when files comes with file_list, none of
  // file_root, file_list and files is given, files is empty, or shuffle_after_epoch comes with
  // random_shuffle.
  explicit FileDatasetArgs(const ReaderOperator& op);

  std::string file_root, file_list;
  std::vector<std::string> files;
  bool shuffle_after_epoch = false;

  // The dataset, for messages: "file_list '...'", "files [N paths]" or "file_root '...'".
  std::string Name() const;
  // shuffle_after_epoch: the whole list reshuffled every epoch, identically on every shard (which
  // implies stick_to_shard).
  void AdjustSequencer(SequencerOptions& s) const;
};

}  // namespace sluice
