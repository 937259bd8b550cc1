// Decoders of the two protobuf messages Caffe and Caffe2 store in their LMDB datasets, on Sluice's
// own wire-format reader (protobuf_wire.h; no libprotobuf):
//
//   caffe.Datum { int32 channels = 1; int32 height = 2; int32 width = 3; bytes data = 4;
//                 int32 label = 5; repeated float float_data = 6; bool encoded = 7; }
//   caffe2.TensorProtos { repeated TensorProto protos = 1; }
//   caffe2.TensorProto  { repeated int64 dims = 1; DataType data_type = 2 [default FLOAT];
//                         repeated float float_data = 3; repeated int32 int32_data = 4;
//                         bytes byte_data = 5; repeated bytes string_data = 6;
//                         repeated int64 int64_data = 10; ... }
//
// Protobuf's rules hold: unknown fields are skipped, a singular field seen twice keeps the last
// value (bytes included), repeated numeric fields are accepted packed or not. Malformed input
// throws sluice::Error ("malformed caffe.Datum: ... (at byte N of the record data)"); nothing reads
// out of bounds. Byte views point into the parsed buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sluice {

struct CaffeDatum {
  int32_t channels = 0, height = 0, width = 0;
  std::string_view data;
  bool has_data = false;
  int32_t label = 0;
  bool has_label = false;
  bool encoded = false;
  bool has_encoded = false;
};
CaffeDatum ParseCaffeDatum(const uint8_t* data, size_t size);

// caffe2.TensorProto.DataType values Sluice's reader uses.
enum class Caffe2DataType : int32_t { kFloat = 1, kInt32 = 2, kByte = 3, kString = 4, kInt64 = 10 };

struct Caffe2Tensor {
  std::vector<int64_t> dims;
  int32_t data_type = 1;  // FLOAT, protobuf's declared default
  std::vector<float> float_data;
  std::vector<int32_t> int32_data;
  std::vector<int64_t> int64_data;
  std::string_view byte_data;
  std::vector<std::string_view> string_data;
};
std::vector<Caffe2Tensor> ParseCaffe2TensorProtos(const uint8_t* data, size_t size);

}  // namespace sluice
