// readers.webdataset: samples grouped from tar archives (WebDataset), one output per `ext` entry.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <sluice/dtype.h>

#include "readers/storage/file_source.h"
#include "readers/common/reader_operator.h"
#include "readers/storage/storage.h"
#include "readers/webdataset/wds_components.h"

namespace sluice {

class OperatorRegistry;

class WebdatasetReader : public ReaderOperator {
 public:
  explicit WebdatasetReader(const OpSpec& spec);
  ~WebdatasetReader() override;

  const WdsDataset& dataset() const { return data_; }

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  int NumOutputs() const override { return static_cast<int>(ext_.size()); }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;

 private:
  std::vector<std::string> paths_, index_paths_, ext_;
  bool case_sensitive_ = true;
  int64_t max_member_bytes_ = int64_t{1} << 30;
  WdsResolveOptions resolve_;

  std::vector<std::unique_ptr<ByteSource>> archives_;  // local files or remote objects (storage.h)
  std::vector<RangeRead> reads_;                   // ReadBatch's reads (reused)
  std::vector<std::pair<int, size_t>> read_of_;     // (output, row) of each read
  WdsDataset data_;
  std::vector<TensorShape> shapes_;  // loader-thread scratch
  std::vector<char> bad_;            // rows of the batch being read that failed (on_error="replace")
};

// The number of outputs of a readers.webdataset spec: the number of `ext` entries.
int WebdatasetNumOutputs(const OpSpec& spec);


}  // namespace sluice
