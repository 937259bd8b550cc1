#include "readers/caffe_proto.h"

#include <cstring>
#include <string>

#include "readers/protobuf_wire.h"

namespace sluice {
namespace {

// A repeated scalar field, packed (wire type 2) or one value per tag. `Read` reads one value.
template <typename T, typename ReadOne>
void RepeatedScalar(ProtoReader& r, uint32_t wire, uint32_t scalar_wire, size_t at, std::vector<T>& out,
                    ReadOne read_one) {
  if (wire == scalar_wire) {
    out.push_back(read_one(r));
  } else if (wire == 2) {
    ProtoReader p = r.Sub();
    while (!p.done()) out.push_back(read_one(p));
  } else {
    r.Malformed("repeated field with wire type " + std::to_string(wire), at);
  }
}

float ReadFloat(ProtoReader& r) {
  const uint32_t bits = r.Fixed32();
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

int32_t ReadInt32(ProtoReader& r) { return static_cast<int32_t>(r.Varint()); }
int64_t ReadInt64(ProtoReader& r) { return static_cast<int64_t>(r.Varint()); }

void Expect(const ProtoReader& r, uint32_t wire, uint32_t want, const char* field, size_t at) {
  if (wire != want) r.Malformed(std::string(field) + " with wire type " + std::to_string(wire), at);
}

Caffe2Tensor ParseTensor(ProtoReader r) {
  Caffe2Tensor t;
  while (!r.done()) {
    const size_t at = r.pos;
    auto [field, wire] = r.Tag();
    switch (field) {
      case 1: RepeatedScalar(r, wire, 0, at, t.dims, ReadInt64); break;
      case 2:
        Expect(r, wire, 0, "TensorProto.data_type", at);
        t.data_type = static_cast<int32_t>(r.Varint());
        break;
      case 3: RepeatedScalar(r, wire, 5, at, t.float_data, ReadFloat); break;
      case 4: RepeatedScalar(r, wire, 0, at, t.int32_data, ReadInt32); break;
      case 5:
        Expect(r, wire, 2, "TensorProto.byte_data", at);
        t.byte_data = r.Sub().View();
        break;
      case 6:
        Expect(r, wire, 2, "TensorProto.string_data", at);
        t.string_data.push_back(r.Sub().View());
        break;
      case 10: RepeatedScalar(r, wire, 0, at, t.int64_data, ReadInt64); break;
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
      Expect(r, wire, 0, name, at);
      return static_cast<int32_t>(r.Varint());
    };
    switch (field) {
      case 1: d.channels = int_field("Datum.channels"); break;
      case 2: d.height = int_field("Datum.height"); break;
      case 3: d.width = int_field("Datum.width"); break;
      case 4:
        Expect(r, wire, 2, "Datum.data", at);
        d.data = r.Sub().View();
        d.has_data = true;
        break;
      case 5:
        d.label = int_field("Datum.label");
        d.has_label = true;
        break;
      case 6:  // float_data: checked, not used (DALI outputs `data` only)
        RepeatedScalar(r, wire, 5, at, unused_floats, ReadFloat);
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
  ProtoReader r{data, 0, size, "caffe2.TensorProtos"};
  std::vector<Caffe2Tensor> out;
  while (!r.done()) {
    const size_t at = r.pos;
    auto [field, wire] = r.Tag();
    if (field != 1) {
      r.Skip(wire, at);
      continue;
    }
    Expect(r, wire, 2, "TensorProtos.protos", at);
    ProtoReader sub = r.Sub();
    sub.message = "caffe2.TensorProto";
    out.push_back(ParseTensor(sub));
  }
  return out;
}

}  // namespace sluice
