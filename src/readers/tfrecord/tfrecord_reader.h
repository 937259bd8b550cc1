// readers.tfrecord: tf.train.Example records from TFRecord files, one output per feature.
//
// The Python layer (sluice.tfrecord) turns DALI's `features` dict into the plain argument lists
// feature_names / feature_kinds / feature_dtypes / feature_ndims / feature_shapes (flattened) /
// feature_int_defaults / feature_float_defaults / feature_string_defaults.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <sluice/dtype.h>

#include "readers/common/reader_operator.h"
#include "readers/common/record_files.h"
#include "readers/tfrecord/tf_example.h"
#include "readers/tfrecord/tfrecord_format.h"

namespace sluice {

struct TfFeatureSpec {
  enum class Type { kInt64, kFloat32, kString };
  std::string name;
  bool fixed = true;                // FixedLenFeature (else VarLenFeature)
  Type type = Type::kInt64;
  std::vector<int64_t> shape;       // FixedLenFeature's shape ([] reads as [1], as DALI has it)
  int64_t int_default = 0;
  double float_default = 0;
  std::string string_default;
  DType dtype() const { return type == Type::kInt64 ? DType::kInt64 : type == Type::kFloat32 ? DType::kFloat32 : DType::kUInt8; }
};

// One sample's values for `spec`, from the parsed feature (kind kNone: absent -> the default).
// Returns the output shape and appends the value bytes to `out`. Throws sluice::Error naming the
// feature on a kind or element-count mismatch.
TensorShape TfFeatureToTensor(const TfFeatureSpec& spec, const TfFeature& f, std::vector<uint8_t>& out);

class TfRecordReader : public ReaderOperator {
 public:
  explicit TfRecordReader(const OpSpec& spec);
  ~TfRecordReader() override;

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  int NumOutputs() const override { return static_cast<int>(features_.size()); }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;

 private:
  std::vector<std::string> paths_, index_paths_;
  std::vector<TfFeatureSpec> features_;
  std::vector<std::string> names_;

  RecordFiles records_;

  // Loader-thread scratch.
  std::vector<std::vector<std::vector<uint8_t>>> values_;  // [output][sample]
  std::vector<std::vector<TensorShape>> shapes_;           // [output][sample]
};

int TfRecordNumOutputs(const OpSpec& spec);

}  // namespace sluice
