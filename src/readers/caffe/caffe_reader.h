// readers.caffe and readers.caffe2: DALI's readers of Caffe and Caffe2 LMDB datasets
// (lmdb_dataset.h), their values decoded as caffe.Datum / caffe2.TensorProtos (caffe_proto.h).
//
// readers.caffe: the image (encoded bytes, uint8 1-D; or, for a Datum with encoded=false, the raw
// pixels as HWC uint8 of the Datum's height, width, channels) when image_available, and the label
// (int32 [1]; [0] when the Datum has none) when label_available.
// readers.caffe2: the image (a STRING tensor's first string: uint8 1-D; a BYTE tensor: HWC from its
// dims) when image_available; the label by label_type (0 single, 1 multi-label sparse indices ->
// [num_labels] of 0/1, 2 dense, 3 weighted sparse -> float [num_labels], 4 none); then
// additional_inputs tensors (float32, int32 or int64 data, 1-D); then, with bbox, an int32 [4] box.
#pragma once
#include <string>
#include <vector>

#include "readers/caffe/caffe_proto.h"
#include "readers/caffe/lmdb_dataset.h"
#include "readers/common/reader_operator.h"

namespace sluice {

// Shared by both: the LMDB databases of `path`, and the batch's values read on the loader thread.
class LmdbReader : public ReaderOperator {
 public:
  explicit LmdbReader(const OpSpec& spec);

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  // Reads the batch's values into values_ and srcs_ (a row that cannot be read is reported with
  // SampleReadFailed and left empty; bad_[i] set).
  void ReadValues(const std::vector<int64_t>& indices);
  // Reports row i as failed (throws with on_error="raise").
  void Failed(size_t i, const Error& e);

  std::vector<std::vector<uint8_t>> values_;
  std::vector<SourceInfo> srcs_;
  std::vector<char> bad_;

 private:
  std::vector<std::string> paths_;
  LmdbDataset db_;
};

class CaffeReader final : public LmdbReader {
 public:
  explicit CaffeReader(const OpSpec& spec);
  ~CaffeReader() override;

 protected:
  int NumOutputs() const override { return image_ + label_; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;

 private:
  const bool image_, label_;
};

class Caffe2Reader final : public LmdbReader {
 public:
  explicit Caffe2Reader(const OpSpec& spec);
  ~Caffe2Reader() override;

 protected:
  int NumOutputs() const override;
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;

 private:
  // One output of one sample: its shape, dtype and bytes.
  struct OutValue {
    TensorShape shape;
    DType dtype = DType::kUInt8;
    std::vector<uint8_t> bytes;
  };
  // The sample's outputs, in output order, from its protos. Throws sluice::Error.
  void Convert(const std::vector<Caffe2Tensor>& protos, std::vector<OutValue>& out) const;

  const bool image_, bbox_;
  const int label_type_, num_labels_, additional_;
  std::vector<std::vector<OutValue>> rows_;  // [sample][output]
};

int CaffeNumOutputs(const OpSpec& spec);
int Caffe2NumOutputs(const OpSpec& spec);

}  // namespace sluice
