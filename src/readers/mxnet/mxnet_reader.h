// readers.mxnet: DALI's reader of MXNet RecordIO image datasets (.rec + .idx, recordio_format.h):
// each record's encoded image (uint8, 1-D) and its label(s) (float32, [1], or [flag] for a record
// with several labels), as DALI's RecordIOParser gives them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "readers/common/reader_operator.h"
#include "readers/common/record_files.h"
#include "readers/mxnet/recordio_format.h"

namespace sluice {

class MxNetReader : public ReaderOperator {
 public:
  explicit MxNetReader(const OpSpec& spec);
  ~MxNetReader() override;

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  int NumOutputs() const override { return 2; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void AdjustSequencer(SequencerOptions& s) const override;

 private:
  std::vector<std::string> paths_, index_paths_;
  bool shuffle_after_epoch_ = false;
  RecordFiles records_;  // per sample, in index order (by offset) per file
  // Loader-thread scratch.
  std::vector<uint8_t> payload_;
  std::vector<ImageRecord> parsed_;
  std::vector<std::vector<uint8_t>> images_;
};

}  // namespace sluice
