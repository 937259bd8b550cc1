// The dataset arguments that the readers of files share (readers.file, readers.numpy,
// experimental.readers.fits): file_root, file_list, files and shuffle_after_epoch, read and checked
// as DALI does, and the plain path listing of readers.numpy and readers.fits. (readers.file lists
// files with labels: file_list.h and file_root_index.h.)
#pragma once
#include <string>
#include <vector>

#include "readers/common/reader_operator.h"

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

  // The files of readers.numpy and readers.fits: the file_list's paths, `files` joined to
  // file_root, or every file below file_root whose name matches `file_filter` (ListFileTree, any
  // depth); put in one fixed shuffled order when `random_shuffle`, as readers.file does. Throws
  // naming file_filter when no file matches.
  std::vector<std::string> ListPaths(const std::string& file_filter, bool random_shuffle) const;
};

}  // namespace sluice
