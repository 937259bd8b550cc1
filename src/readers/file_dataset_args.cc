#include "readers/file_dataset_args.h"

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

}  // namespace sluice
