#include "readers/file/file_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <sluice/error.h>

#include "core/random.h"
#include "operators/registry.h"
#include "readers/common/file_list.h"
#include "readers/common/file_name_filter.h"
#include "readers/common/file_root_index.h"
#include "readers/common/shuffle.h"
#include "readers/storage/file_source.h"
#include "readers/storage/storage.h"

namespace sluice {

FileReader::FileReader(const OpSpec& spec) : ReaderOperator(spec), dataset_(*this) {
  labels_arg_ = Arg<std::vector<int64_t>>("labels");
  filters_ = Arg<std::vector<std::string>>("file_filters");
  case_sensitive_filter_ = Arg<bool>("case_sensitive_filter");
  const bool has_files = HasArg("files");
  if (HasArg("labels") && !has_files) ThrowArgError("labels", "can only be given together with files");
  if (has_files && !labels_arg_.empty() && labels_arg_.size() != dataset_.files.size())
    ThrowArgError("labels", "has " + std::to_string(labels_arg_.size()) + " entries but files has " +
                                std::to_string(dataset_.files.size()));
  InitEagerly();
}

FileReader::~FileReader() { StopLoader(); }

std::string FileReader::DatasetName() const { return dataset_.Name(); }

int64_t FileReader::InitDataset() {
  if (!dataset_.file_list.empty()) {
    files_ = FileLabelList::FromVector(ReadFileList(dataset_.file_list, dataset_.file_root));
  } else if (!dataset_.files.empty()) {
    files_ = FileLabelList::FromVector(FilesWithLabels(dataset_.files, labels_arg_, dataset_.file_root));
  } else {
    files_ = IndexFileRoot(dataset_.file_root, filters_, case_sensitive_filter_);
  }
  if (options().random_shuffle) {
    // One shuffle of the whole list before sharding, with a fixed seed: identical on every shard.
    RandomGenerator rng(kListShuffleSeed);
    files_.Shuffle(rng);
  }
  return static_cast<int64_t>(files_.size());
}

void FileReader::AdjustSequencer(SequencerOptions& s) const { dataset_.AdjustSequencer(s); }

void FileReader::PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg) {
  const size_t bytes = std::max(static_cast<size_t>(options().tensor_init_bytes), HintFor(0));
  outs[0].Reserve(batch_size, bytes, cfg, true);
}

void FileReader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                           const MemoryConfig& cfg) {
  const size_t n = indices.size();
  if (data_shapes_.size() != n) {
    data_shapes_.assign(n, TensorShape{0});
    label_shapes_.assign(n, TensorShape{1});
  }
  auto failed = [&](size_t i, const std::string& path, const Error& e) {
    SourceInfo src;
    src.path = path;
    SampleReadFailed(static_cast<int>(i), src, e);  // throws with on_error="raise"
    bad_[i] = 1;
  };
  bad_.assign(n, 0);
  if (paths_.size() < n) paths_.resize(n);
  for (size_t i = 0; i < n; ++i) files_.PathInto(static_cast<size_t>(indices[i]), &paths_[i]);
  // Remote files (s3://, http(s)://) are fetched whole, in parallel, before the batch is sized.
  fetched_.clear();
  remote_.assign(n, -1);
  {
    std::vector<std::string> remote_paths;
    for (size_t i = 0; i < n; ++i)
      if (IsRemotePath(paths_[i])) {
        remote_[i] = static_cast<int64_t>(remote_paths.size());
        remote_paths.push_back(paths_[i]);
      }
    if (!remote_paths.empty()) fetched_ = FetchFiles(remote_paths);
  }
  // Sizes first (the batch is resized at once), then the contents. Small batches keep their files
  // open between the two passes (open + fstat); big ones stat first so as not to hold many fds.
  const bool keep_open = n <= kMaxOpenFilesPerBatch;
  open_.clear();
  for (size_t i = 0; i < n; ++i) {
    const std::string& path = paths_[i];
    data_shapes_[i][0] = 0;
    if (remote_[i] >= 0) {
      const FetchedFile& f = fetched_[static_cast<size_t>(remote_[i])];
      if (keep_open) open_.emplace_back();
      if (!f.error.empty()) failed(i, path, Error(f.error));
      else data_shapes_[i][0] = static_cast<int64_t>(f.data.size());
    } else if (keep_open) {
      try {
        open_.emplace_back(path, options().read_ahead);
        data_shapes_[i][0] = open_.back().size();
      } catch (const Error& e) {
        open_.emplace_back();  // keeps open_[i] the file of sample i
        failed(i, path, e);
      }
    } else {
      struct stat st;
      if (::stat(path.c_str(), &st) != 0) failed(i, path, Error("cannot open " + path + ": " + std::strerror(errno)));
      else data_shapes_[i][0] = static_cast<int64_t>(st.st_size);
    }
  }
  TensorList& data = outs[0];
  TensorList& labels = outs[1];
  data.Resize(data_shapes_, DType::kUInt8, cfg, true);
  labels.Resize(label_shapes_, DType::kInt32, cfg, true);
  // Mapping a whole small file, copying it out and unmapping costs more than one pread (Sluice
  // copies into its own buffers; DALI could hand the mapping over instead), so mmap is only used
  // for big files.
  const bool allow_mmap = !options().dont_use_mmap;
  for (size_t i = 0; i < n; ++i) {
    const int si = static_cast<int>(i);
    const std::string& path = paths_[i];
    SourceInfo& src = data.source(si);
    src.path = path;
    src.member.clear();
    src.offset = -1;
    labels.source(si) = src;
    *labels.mutable_sample<int32_t>(si) = files_.label(static_cast<size_t>(indices[i]));
    if (bad_[i]) continue;
    if (remote_[i] >= 0) {
      const std::string& bytes = fetched_[static_cast<size_t>(remote_[i])].data;
      if (!bytes.empty()) std::memcpy(data.raw_mutable_sample(si), bytes.data(), bytes.size());
      continue;
    }
    try {
      std::optional<WholeFile> opened;
      if (!keep_open) opened.emplace(path, options().read_ahead);
      const WholeFile& file = keep_open ? open_[i] : *opened;
      if (file.size() != data_shapes_[i][0])
        throw Error("file changed size while being read (" + std::to_string(data_shapes_[i][0]) + " -> " +
                    std::to_string(file.size()) + " bytes)");
      file.ReadAll(data.raw_mutable_sample(si), allow_mmap && file.size() >= kFileReaderMmapMinBytes);
    } catch (const Error& e) {
      failed(i, path, e);
    }
  }
  open_.clear();
  fetched_.clear();
  data.set_layout("");
  labels.set_layout("");
}

SLUICE_REGISTER_OPERATORS(RegisterFileReader) {
  OpSchema s("readers.file");
  s.Doc("Reads whole files and their labels. The dataset is a file_root whose subfolders (sorted in byte order) "
        "are the classes 0..C-1, a file_list of '<path> <label>' lines, or files (+ labels).")
      .Output("data", "the file's bytes (uint8, 1-D)")
      .Output("label", "the label (int32, shape [1])")
      .Arg("file_root", ArgType::kString, std::string(),
           "Folder with one subfolder per class; with file_list or files, the folder paths are relative to.")
      .Arg("file_list", ArgType::kString, std::string(),
           "Text file with one '<path> <integer label>' per line (split at the last whitespace, so paths may "
           "contain spaces); paths are relative to the list's folder unless file_root is given.")
      .Arg("files", ArgType::kStringList, std::vector<std::string>{}, "Paths of the files to read.")
      .Arg("labels", ArgType::kIntList, std::vector<int64_t>{}, "Labels of `files` (default: their index).")
      .Arg("file_filters", ArgType::kStringList, DefaultFileFilters(),
           "Glob patterns of the file names taken from file_root's class folders.")
      .Arg("case_sensitive_filter", ArgType::kBool, false, "Match file_filters case-sensitively.")
      .Arg("shuffle_after_epoch", ArgType::kBool, false,
           "Reshuffle the whole list every epoch, identically on every shard (implies stick_to_shard; "
           "excludes random_shuffle).")
      .Exclusive({"file_list", "files"});
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<FileReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
