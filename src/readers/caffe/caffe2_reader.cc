// readers.caffe2 (declared in caffe_reader.h with readers.caffe, on the same LmdbReader).
#include <algorithm>
#include <cstring>

#include <sluice/error.h>

#include "operators/registry.h"
#include "readers/caffe/caffe_reader.h"

namespace sluice {

namespace {

// caffe2/image/image_input.h's label types, as DALI numbers them.
enum LabelType { kSingle = 0, kSparse = 1, kDense = 2, kWeightedSparse = 3, kNoLabel = 4 };

template <typename T> T SpecArg(const OpSpec& spec, const char* name, T fallback) {
  auto it = spec.args.find(name);
  if (it == spec.args.end()) return fallback;
  if (auto* v = std::get_if<T>(&it->second)) return *v;
  return fallback;
}

const char* TypeName(int32_t t) {
  switch (t) {
    case 1: return "FLOAT";
    case 2: return "INT32";
    case 3: return "BYTE";
    case 4: return "STRING";
    case 10: return "INT64";
    default: return "another data_type";
  }
}

template <typename T> void PutValues(const std::vector<T>& v, std::vector<uint8_t>& out) {
  out.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
}

// Label values of a FLOAT or INT32 tensor, as doubles (indices and values).
std::vector<double> LabelValues(const Caffe2Tensor& t) {
  if (t.data_type == 1) return {t.float_data.begin(), t.float_data.end()};
  return {t.int32_data.begin(), t.int32_data.end()};
}

}  // namespace

int Caffe2NumOutputs(const OpSpec& spec) {
  const int n = int{SpecArg(spec, "image_available", true)} + (SpecArg<int64_t>(spec, "label_type", 0) != kNoLabel) +
                static_cast<int>(SpecArg<int64_t>(spec, "additional_inputs", 0)) + int{SpecArg(spec, "bbox", false)};
  return std::max(1, n);
}

Caffe2Reader::Caffe2Reader(const OpSpec& spec)
    : LmdbReader(spec),
      image_(Arg<bool>("image_available")),
      bbox_(Arg<bool>("bbox")),
      label_type_(static_cast<int>(Arg<int64_t>("label_type"))),
      num_labels_(static_cast<int>(Arg<int64_t>("num_labels"))),
      additional_(static_cast<int>(Arg<int64_t>("additional_inputs"))) {
  if ((label_type_ == kSparse || label_type_ == kWeightedSparse) && num_labels_ < 1)
    ThrowArgError("num_labels", "must be at least 1 for the sparse label types (label_type 1 and 3)");
  if (NumOutputs() == 0) ThrowArgError("image_available", "nothing to read: no image, no label, no other output");
  InitEagerly();
}

Caffe2Reader::~Caffe2Reader() { StopLoader(); }

int Caffe2Reader::NumOutputs() const {
  return int{image_} + (label_type_ != kNoLabel) + additional_ + int{bbox_};
}

void Caffe2Reader::Convert(const std::vector<Caffe2Tensor>& protos, std::vector<OutValue>& out) const {
  out.assign(static_cast<size_t>(NumOutputs()), OutValue{});
  size_t p = 0, o = 0;
  auto proto = [&](size_t k, const char* what) -> const Caffe2Tensor& {
    if (k >= protos.size())
      throw Error(std::string("the entry has ") + std::to_string(protos.size()) + " TensorProtos; the " + what +
                  " would be number " + std::to_string(k + 1));
    return protos[k];
  };
  if (image_) {
    const Caffe2Tensor& t = proto(p++, "image");
    OutValue& v = out[o++];
    if (t.data_type == static_cast<int32_t>(Caffe2DataType::kString)) {
      if (t.string_data.empty()) throw Error("the image TensorProto (STRING) has no string_data");
      const std::string_view s = t.string_data[0];
      v.shape = TensorShape{static_cast<int64_t>(s.size())};
      v.bytes.assign(s.begin(), s.end());
    } else if (t.data_type == static_cast<int32_t>(Caffe2DataType::kByte)) {
      if (t.dims.size() != 2 && t.dims.size() != 3)
        throw Error("the image TensorProto (BYTE) has " + std::to_string(t.dims.size()) + " dims; expected H, W[, C]");
      const int64_t h = t.dims[0], w = t.dims[1], c = t.dims.size() == 3 ? t.dims[2] : 1;
      if (h < 0 || w < 0 || c < 0 || static_cast<__int128>(h) * w * c != static_cast<__int128>(t.byte_data.size()))
        throw Error("the image TensorProto (BYTE) has " + std::to_string(t.byte_data.size()) + " bytes of byte_data for dims " +
                    std::to_string(h) + " x " + std::to_string(w) + " x " + std::to_string(c));
      v.shape = TensorShape{h, w, c};
      v.bytes.assign(t.byte_data.begin(), t.byte_data.end());
    } else {
      throw Error(std::string("the image TensorProto has data_type ") + TypeName(t.data_type) + "; expected STRING (encoded) or BYTE (raw)");
    }
  }
  if (label_type_ != kNoLabel) {
    const Caffe2Tensor& t = proto(p, "label");
    if (t.data_type != 1 && t.data_type != 2)
      throw Error(std::string("the label TensorProto has data_type ") + TypeName(t.data_type) + "; expected FLOAT or INT32");
    const bool is_float = t.data_type == 1;
    OutValue& v = out[o++];
    v.dtype = is_float ? DType::kFloat32 : DType::kInt32;
    const std::vector<double> values = LabelValues(t);
    auto put = [&](const std::vector<double>& d, DType type) {
      v.dtype = type;
      v.shape = TensorShape{static_cast<int64_t>(d.size())};
      if (type == DType::kFloat32) PutValues(std::vector<float>(d.begin(), d.end()), v.bytes);
      else PutValues(std::vector<int32_t>(d.begin(), d.end()), v.bytes);
    };
    auto index = [&](double x) {
      if (!(x >= 0 && x < num_labels_))
        throw Error("label index " + std::to_string(x) + " is outside [0, num_labels = " + std::to_string(num_labels_) + ")");
      return static_cast<size_t>(x);
    };
    switch (label_type_) {
      case kSingle:
        if (values.size() != 1)
          throw Error("label_type 0 (single label) needs one label value; the TensorProto has " + std::to_string(values.size()));
        put(values, v.dtype);
        break;
      case kDense: put(values, v.dtype); break;
      case kSparse: {
        std::vector<double> dense(static_cast<size_t>(num_labels_), 0.0);
        for (double x : values) dense[index(x)] = 1.0;
        put(dense, v.dtype);
        break;
      }
      case kWeightedSparse: {
        const Caffe2Tensor& w = proto(p + 1, "label weights");
        if (w.float_data.size() < values.size())
          throw Error("label_type 3 (weighted sparse) has " + std::to_string(values.size()) + " indices but " +
                      std::to_string(w.float_data.size()) + " float weights");
        std::vector<double> dense(static_cast<size_t>(num_labels_), 0.0);
        for (size_t k = 0; k < values.size(); ++k) dense[index(values[k])] = w.float_data[k];
        put(dense, DType::kFloat32);
        break;
      }
      default: throw Error("unsupported label_type " + std::to_string(label_type_));
    }
    // Caffe2's ImageInputOp layout: the weights of label_type 3 are one more proto. (DALI 2.4 skips
    // one after label_type 1 instead and reads 3's weights again; both fail there on the CPU.)
    p += label_type_ == kWeightedSparse ? 2 : 1;
  }
  for (int a = 0; a < additional_; ++a) {
    const Caffe2Tensor& t = proto(p++, "additional input");
    OutValue& v = out[o++];
    if (t.data_type == 1) {
      v.dtype = DType::kFloat32;
      PutValues(t.float_data, v.bytes);
      v.shape = TensorShape{static_cast<int64_t>(t.float_data.size())};
    } else if (t.data_type == 2) {
      v.dtype = DType::kInt32;
      PutValues(t.int32_data, v.bytes);
      v.shape = TensorShape{static_cast<int64_t>(t.int32_data.size())};
    } else if (t.data_type == 10) {
      v.dtype = DType::kInt64;
      PutValues(t.int64_data, v.bytes);
      v.shape = TensorShape{static_cast<int64_t>(t.int64_data.size())};
    } else {
      throw Error(std::string("additional input ") + std::to_string(a) + " has data_type " + TypeName(t.data_type) +
                  "; expected FLOAT, INT32 or INT64");
    }
  }
  if (bbox_) {
    const Caffe2Tensor& t = proto(p++, "bounding box");
    if (t.data_type != 2 || t.int32_data.size() != 4)
      throw Error("the bounding box TensorProto must be INT32 with 4 values");
    OutValue& v = out[o++];
    v.dtype = DType::kInt32;
    v.shape = TensorShape{4};
    PutValues(t.int32_data, v.bytes);
  }
}

void Caffe2Reader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                             const MemoryConfig& cfg) {
  ReadValues(indices);
  const size_t n = indices.size();
  const size_t no = static_cast<size_t>(NumOutputs());
  rows_.resize(n);
  // The batch's dtype and rank per output: those of its first good row.
  std::vector<DType> types(no, DType::kUInt8);
  std::vector<int> ranks(no, -1);
  for (size_t i = 0; i < n; ++i) {
    if (bad_[i]) continue;
    try {
      const auto protos = ParseCaffe2TensorProtos(values_[i].data(), values_[i].size());
      Convert(protos, rows_[i]);
      for (size_t o = 0; o < no; ++o) {
        const OutValue& v = rows_[i][o];
        if (ranks[o] < 0) continue;
        if (v.dtype != types[o] || v.shape.ndim() != ranks[o])
          throw Error("output " + std::to_string(o) + " is " + std::string(ToString(v.dtype)) + " of rank " + std::to_string(v.shape.ndim()) +
                      " but earlier entries of the batch gave " + std::string(ToString(types[o])) + " of rank " + std::to_string(ranks[o]));
      }
      for (size_t o = 0; o < no; ++o) {
        types[o] = rows_[i][o].dtype;
        ranks[o] = rows_[i][o].shape.ndim();
      }
    } catch (const Error& e) {
      Failed(i, Error("LMDB database '" + srcs_[i].path + "', key '" + srcs_[i].member + "': " + e.message()));
    }
  }
  std::vector<TensorShape> shapes(n);
  for (size_t o = 0; o < no; ++o) {
    for (size_t i = 0; i < n; ++i) {
      if (!bad_[i]) shapes[i] = rows_[i][o].shape;
      else shapes[i] = TensorShape(std::vector<int64_t>(static_cast<size_t>(std::max(ranks[o], 1)), 0));
    }
    TensorList& out = outs[o];
    out.Resize(shapes, types[o], cfg, true);
    for (size_t i = 0; i < n; ++i) {
      out.source(static_cast<int>(i)) = srcs_[i];
      if (!bad_[i] && !rows_[i][o].bytes.empty())
        std::memcpy(out.raw_mutable_sample(static_cast<int>(i)), rows_[i][o].bytes.data(), rows_[i][o].bytes.size());
    }
    out.set_layout(image_ && o == 0 && ranks[0] == 3 ? "HWC" : "");
  }
}

SLUICE_REGISTER_OPERATORS(RegisterCaffe2Reader) {
  OpSchema s("readers.caffe2");
  s.Doc("Reads Caffe2 LMDB datasets: each entry's caffe2.TensorProtos gives, in order, the image (a STRING tensor: "
        "its encoded bytes, uint8 1-D; a BYTE tensor: raw uint8 HWC from its dims) when image_available, the label "
        "by label_type, additional_inputs further tensors (FLOAT, INT32 or INT64, 1-D) and, with bbox, an INT32 box "
        "of 4 values. Entries are read in key order, the databases one after another.")
      .Output("images", "the image (when image_available), then the label, the additional inputs and the box")
      .NumOutputsFn(Caffe2NumOutputs)
      .Arg("path", ArgType::kStringList, std::nullopt, "The LMDB databases (folders holding data.mdb, or data files).")
      .Arg("image_available", ArgType::kBool, true, "The first TensorProto is an image: output it.")
      .Arg("label_type", ArgType::kInt, int64_t{0},
           "0: a single label (FLOAT or INT32, output [1]); 1: sparse multi-label indices -> [num_labels] of 0/1 in "
           "the label's type; 2: dense multi-label values, output as given; 3: weighted sparse: indices and, in the "
           "next TensorProto, FLOAT weights -> float32 [num_labels]; 4: no label.")
      .Range(0, 4)
      .Arg("num_labels", ArgType::kInt, int64_t{1}, "Number of classes (label_type 1 and 3).")
      .Arg("additional_inputs", ArgType::kInt, int64_t{0}, "Number of further TensorProtos after the label to output.")
      .Min(0)
      .Arg("bbox", ArgType::kBool, false, "Output a bounding box: the TensorProto after the additional inputs (INT32, 4 values).");
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<Caffe2Reader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
