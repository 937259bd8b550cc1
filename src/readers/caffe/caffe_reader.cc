#include "readers/caffe/caffe_reader.h"

#include <cstring>

#include <sluice/error.h>

#include "operators/registry.h"

namespace sluice {

namespace {

template <typename T> T SpecArg(const OpSpec& spec, const char* name, T fallback) {
  auto it = spec.args.find(name);
  if (it == spec.args.end()) return fallback;
  if (auto* v = std::get_if<T>(&it->second)) return *v;
  return fallback;
}

}  // namespace

int CaffeNumOutputs(const OpSpec& spec) {
  return std::max(1, int{SpecArg(spec, "image_available", true)} + int{SpecArg(spec, "label_available", true)});
}

// ----------------------------------------------------------------------------- LmdbReader
LmdbReader::LmdbReader(const OpSpec& spec) : ReaderOperator(spec) {
  paths_ = Arg<std::vector<std::string>>("path");
  if (paths_.empty()) ThrowArgError("path", "must name at least one LMDB database");
}

std::string LmdbReader::DatasetName() const {
  std::string s = "LMDB [";
  for (size_t i = 0; i < paths_.size() && i < 3; ++i) s += (i ? ", " : "") + paths_[i];
  if (paths_.size() > 3) s += ", ... (" + std::to_string(paths_.size()) + " databases)";
  return s + "]";
}

int64_t LmdbReader::InitDataset() {
  for (const std::string& p : paths_) {
    try {
      db_.Open(p);
    } catch (const Error& e) {
      throw Error(e.message(), OpContext("path", p));
    }
  }
  if (db_.size() == 0) throw Error("no entries found in " + DatasetName(), OpContext("path"));
  return db_.size();
}

void LmdbReader::Failed(size_t i, const Error& e) {
  bad_[i] = 1;
  SampleReadFailed(static_cast<int>(i), srcs_[i], e);  // throws with on_error="raise"
}

void LmdbReader::ReadValues(const std::vector<int64_t>& indices) {
  const size_t n = indices.size();
  values_.resize(n);
  srcs_.assign(n, SourceInfo{});
  bad_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    srcs_[i].path = db_.path_of(indices[i]);
    srcs_[i].member = db_.key_of(indices[i]);
    try {
      db_.Read(indices[i], values_[i]);
    } catch (const Error& e) {
      values_[i].clear();
      Failed(i, e);
    }
  }
}

// ----------------------------------------------------------------------------- readers.caffe
CaffeReader::CaffeReader(const OpSpec& spec)
    : LmdbReader(spec), image_(Arg<bool>("image_available")), label_(Arg<bool>("label_available")) {
  if (!image_ && !label_) ThrowArgError("label_available", "image_available and label_available are both false: nothing to read");
  InitEagerly();
}

CaffeReader::~CaffeReader() { StopLoader(); }

void CaffeReader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                            const MemoryConfig& cfg) {
  ReadValues(indices);
  const size_t n = indices.size();
  std::vector<CaffeDatum> datums(n);
  std::vector<TensorShape> image_shapes(n, TensorShape{0}), label_shapes(n, TensorShape{0});
  bool raw = false, encoded = false;
  for (size_t i = 0; i < n; ++i) {
    if (bad_[i]) continue;
    try {
      const std::vector<uint8_t>& v = values_[i];
      CaffeDatum d = ParseCaffeDatum(v.data(), v.size());
      const bool is_raw = d.has_encoded && !d.encoded;
      if (image_ && (is_raw ? encoded : raw))
        throw Error("the batch mixes encoded and raw (encoded=false) images, which have different ranks");
      if (is_raw) {
        const int64_t h = d.height, w = d.width, c = d.channels;
        if (h < 0 || w < 0 || c < 0 || static_cast<__int128>(h) * w * c != static_cast<__int128>(d.data.size()))
          throw Error("the raw (encoded=false) Datum's data has " + std::to_string(d.data.size()) +
                      " bytes but height x width x channels is " + std::to_string(h) + " x " + std::to_string(w) +
                      " x " + std::to_string(c));
        image_shapes[i] = TensorShape{h, w, c};
      } else {
        image_shapes[i] = TensorShape{static_cast<int64_t>(d.data.size())};
      }
      (is_raw ? raw : encoded) = true;
      label_shapes[i] = TensorShape{d.has_label ? 1 : 0};
      datums[i] = d;
    } catch (const Error& e) {
      image_shapes[i] = TensorShape{0};
      label_shapes[i] = TensorShape{0};
      Failed(i, Error("LMDB database '" + srcs_[i].path + "', key '" + srcs_[i].member + "': " + e.message()));
    }
  }
  if (raw) {  // rows that failed take the rank of the others
    for (size_t i = 0; i < n; ++i)
      if (bad_[i]) image_shapes[i] = TensorShape{0, 0, 0};
  }
  int o = 0;
  if (image_) {
    TensorList& images = outs[o++];
    images.Resize(image_shapes, DType::kUInt8, cfg, true);
    for (size_t i = 0; i < n; ++i) {
      images.source(static_cast<int>(i)) = srcs_[i];
      if (!datums[i].data.empty())
        std::memcpy(images.raw_mutable_sample(static_cast<int>(i)), datums[i].data.data(), datums[i].data.size());
    }
    images.set_layout(raw ? "HWC" : "");
  }
  if (label_) {
    TensorList& labels = outs[o++];
    labels.Resize(label_shapes, DType::kInt32, cfg, true);
    for (size_t i = 0; i < n; ++i) {
      labels.source(static_cast<int>(i)) = srcs_[i];
      if (label_shapes[i][0] == 1) *labels.mutable_sample<int32_t>(static_cast<int>(i)) = datums[i].label;
    }
    labels.set_layout("");
  }
}

SLUICE_REGISTER_OPERATORS(RegisterCaffeReader) {
  OpSchema s("readers.caffe");
  s.Doc("Reads Caffe LMDB datasets: each entry's caffe.Datum gives the image (its encoded bytes as uint8 1-D, or, "
        "for a Datum with encoded=false, its raw pixels as uint8 HWC of height x width x channels) and the label "
        "(int32 [1]; [0] when the Datum has none). Entries are read in key order, the databases one after another.")
      .Output("images", "the image (when image_available)")
      .Output("labels", "the label (when label_available)")
      .NumOutputsFn(CaffeNumOutputs)
      .Arg("path", ArgType::kStringList, std::nullopt, "The LMDB databases (folders holding data.mdb, or data files).")
      .Arg("image_available", ArgType::kBool, true, "Output the images.")
      .Arg("label_available", ArgType::kBool, true, "Output the labels.");
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<CaffeReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
