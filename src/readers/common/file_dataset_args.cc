#include "readers/common/file_dataset_args.h"

#include "core/random.h"
#include "readers/common/file_list.h"
#include "readers/common/file_root_index.h"
#include "readers/common/shuffle.h"
#include "readers/storage/url.h"

namespace sluice {

FileDatasetArgs::FileDatasetArgs(const ReaderOperator& op)
    : file_root(op.Arg<std::string>("file_root")),
      file_list(op.Arg<std::string>("file_list")),
      files(op.Arg<std::vector<std::string>>("files")),
      shuffle_after_epoch(op.Arg<bool>("shuffle_after_epoch")) {
  const bool has_files = op.HasArg("files");
  if (op.HasArg("file_list") && has_files) op.ThrowArgError("files", "cannot be given together with file_list");
  if (file_root.empty() && file_list.empty() && !has_files)
    op.ThrowArgError("file_root", "one of file_root, file_list or files is required");
  if (has_files && files.empty()) op.ThrowArgError("files", "is empty");
  if (shuffle_after_epoch && op.options().random_shuffle)
    op.ThrowArgError("shuffle_after_epoch", "cannot be combined with random_shuffle");
}

std::string FileDatasetArgs::Name() const {
  if (!file_list.empty()) return "file_list '" + file_list + "'";
  if (!files.empty()) return "files [" + std::to_string(files.size()) + " paths]";
  return "file_root '" + file_root + "'";
}

void FileDatasetArgs::AdjustSequencer(SequencerOptions& s) const {
  if (shuffle_after_epoch) {
    s.shuffle_after_epoch = true;
    s.stick_to_shard = true;
  }
}

std::vector<std::string> FileDatasetArgs::ListPaths(const std::string& file_filter, bool random_shuffle) const {
  std::vector<std::string> paths;
  if (!file_list.empty()) {
    paths = ReadPathList(file_list, file_root);
  } else if (!files.empty()) {
    paths.reserve(files.size());
    for (const auto& f : files) paths.push_back(JoinPath(file_root, f));
  } else {
    paths = ListFileTree(file_root, {file_filter}, /*case_sensitive=*/true);
    if (paths.empty()) {
      Error::Context c;
      c.argument = "file_filter";
      throw Error("no file in '" + file_root + "' matches file_filter '" + file_filter + "'", c);
    }
  }
  if (random_shuffle) {  // as readers.file: one fixed shuffle of the list before sharding
    RandomGenerator rng(kListShuffleSeed);
    PermuteElements(&paths, rng);
  }
  return paths;
}

}  // namespace sluice
