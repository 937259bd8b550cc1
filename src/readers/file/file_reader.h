// readers.file: reads whole files (from file_root class folders, a file_list, or files + labels)
// and outputs their bytes (uint8, 1-D) and an int32 label of shape [1].
#pragma once
#include <string>
#include <vector>

#include "readers/common/file_dataset_args.h"
#include "readers/common/file_label_list.h"
#include "readers/common/reader_operator.h"
#include "readers/storage/file_source.h"
#include "readers/storage/storage.h"

namespace sluice {

class OperatorRegistry;

// readers.file maps files (unless dont_use_mmap) only from this size on; smaller ones are read with
// pread, which is faster when the bytes are copied into the reader's buffers anyway.
inline constexpr int64_t kFileReaderMmapMinBytes = int64_t{1} << 20;
// Batches up to this size keep their files open between sizing and reading (saves a stat each).
inline constexpr size_t kMaxOpenFilesPerBatch = 256;

class FileReader : public ReaderOperator {
 public:
  explicit FileReader(const OpSpec& spec);
  ~FileReader() override;

  // The dataset in reading order before sharding (after random_shuffle's one-off list shuffle).
  const FileLabelList& files() const { return files_; }

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  int NumOutputs() const override { return 2; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg) override;
  void AdjustSequencer(SequencerOptions& s) const override;

 private:
  const FileDatasetArgs dataset_;
  std::vector<int64_t> labels_arg_;
  std::vector<std::string> filters_;
  bool case_sensitive_filter_ = false;

  FileLabelList files_;
  // Loader-thread scratch, reused every batch.
  std::vector<std::string> paths_;  // the batch's paths (open_ points at them)
  std::vector<TensorShape> data_shapes_, label_shapes_;
  std::vector<WholeFile> open_;
  std::vector<FetchedFile> fetched_;  // the batch's remote files, fetched whole (storage.h)
  std::vector<int64_t> remote_;       // per row: its index in fetched_, or -1 for a local file
  std::vector<char> bad_;  // rows of the batch being read that failed (on_error="replace")
};


}  // namespace sluice
