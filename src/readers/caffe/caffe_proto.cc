#include "readers/caffe/caffe_proto.h"

#include <cstring>
#include <string>

#include "readers/common/protobuf_wire.h"

namespace sluice {
namespace {

Caffe2Tensor ParseTensor(ProtoReader r) {
  Caffe2Tensor t;
  while (!r.done()) {
    const size_t at = r.pos;
    auto [field, wire] = r.Tag();
    switch (field) {
      case 1: ReadRepeatedVarint(r, wire, at, "TensorProto.dims", t.dims); break;
      case 2:
        r.ExpectWire(wire, 0, "TensorProto.data_type", at);
        t.data_type = static_cast<int32_t>(r.Varint());
        break;
      case 3: ReadRepeatedFloat(r, wire, at, "TensorProto.float_data", t.float_data); break;
      case 4: ReadRepeatedVarint(r, wire, at, "TensorProto.int32_data", t.int32_data); break;
      case 5:
        r.ExpectWire(wire, 2, "TensorProto.byte_data", at);
        t.byte_data = r.Sub().View();
        break;
      case 6:
        r.ExpectWire(wire, 2, "TensorProto.string_data", at);
        t.string_data.push_back(r.Sub().View());
        break;
      case 10: ReadRepeatedVarint(r, wire, at, "TensorProto.int64_data", t.int64_data); break;
      default: r.Skip(wire, at);
    }
  }
  return t;
}

}  // namespace

CaffeDatum ParseCaffeDatum(const uint8_t* data, size_t size) {
  ProtoReader r{data, 0, size, "caffe.Datum"};
  CaffeDatum d;
  std::vector<float> unused_floats;
  while (!r.done()) {
    const size_t at = r.pos;
    const auto [field, wire_] = r.Tag();
    const uint32_t wire = wire_;  // a plain variable: lambdas may not capture structured bindings (C++20, clang)
    auto int_field = [&](const char* name) {
      r.ExpectWire(wire, 0, name, at);
      return static_cast<int32_t>(r.Varint());
    };
    switch (field) {
      case 1: d.channels = int_field("Datum.channels"); break;
      case 2: d.height = int_field("Datum.height"); break;
      case 3: d.width = int_field("Datum.width"); break;
      case 4:
        r.ExpectWire(wire, 2, "Datum.data", at);
        d.data = r.Sub().View();
        d.has_data = true;
        break;
      case 5:
        d.label = int_field("Datum.label");
        d.has_label = true;
        break;
      case 6:  // float_data: checked, not used (DALI outputs `data` only)
        ReadRepeatedFloat(r, wire, at, "Datum.float_data", unused_floats);
        unused_floats.clear();
        break;
      case 7:
        d.encoded = int_field("Datum.encoded") != 0;
        d.has_encoded = true;
        break;
      default: r.Skip(wire, at);
    }
  }
  return d;
}

std::vector<Caffe2Tensor> ParseCaffe2TensorProtos(const uint8_t* data, size_t size) {
  std::vector<Caffe2Tensor> out;
  ForEachField(ProtoReader{data, 0, size, "caffe2.TensorProtos"}, 1, [&](ProtoReader& r, uint32_t wire, size_t at) {
    r.ExpectWire(wire, 2, "TensorProtos.protos", at);
    ProtoReader sub = r.Sub();
    sub.message = "caffe2.TensorProto";
    out.push_back(ParseTensor(sub));
  });
  return out;
}

}  // namespace sluice
