// The samples of the readers of indexed record files (readers.tfrecord, readers.mxnet): the files
// (local, s3:// or http(s)://, open as ByteSources), where each record is (file, offset, size),
// and the read of a batch's records, all at once through ReadRanges (remote ones in parallel,
// neighbours coalesced). What a record holds is the reader's: it checks and parses the bytes.
//
// Threads: Open and Add run in the reader's InitDataset; ReadBatch and the batch's accessors on its
// loader thread only (they share the batch's scratch buffers).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sluice/source_info.h>

#include "readers/storage/file_source.h"
#include "readers/storage/storage.h"

namespace sluice {

class RecordFiles {
 public:
  // Opens `paths` in order (file a of Add is paths[a]). Throws naming the path that cannot be opened.
  void Open(const std::vector<std::string>& paths, bool use_mmap, bool read_ahead);
  size_t num_files() const { return files_.size(); }
  const ByteSource& file(size_t a) const { return *files_[a]; }

  // Adds a record: bytes [offset, offset + size) of file `a`. Records are samples in the order added.
  void Add(size_t a, int64_t offset, int64_t size);
  int64_t num_records() const { return static_cast<int64_t>(records_.size()); }

  // Reads the records of a batch: record(i) holds record indices[i]'s bytes, or read_error(i)
  // says why they could not be read (nothing is thrown).
  void ReadBatch(const std::vector<int64_t>& indices);
  const std::vector<uint8_t>& record(size_t i) const { return recs_[i]; }
  const std::string& read_error(size_t i) const { return reads_[i].error; }
  // The file and offset of the batch's record i (for messages and SourceInfo).
  const ByteSource& file_of(size_t i) const { return *reads_[i].source; }
  int64_t offset_of(size_t i) const { return reads_[i].offset; }
  SourceInfo source(size_t i) const;

 private:
  struct Record {
    int32_t file;
    int64_t offset, size;
  };
  std::vector<std::unique_ptr<ByteSource>> files_;
  std::vector<Record> records_;
  // The batch being read (loader thread).
  std::vector<std::vector<uint8_t>> recs_;
  std::vector<RangeRead> reads_;
};

// A dataset of record files named for messages: "TFRecord [a, b, c, ... (N files)]".
std::string RecordFilesName(const std::string& kind, const std::vector<std::string>& paths);

}  // namespace sluice
