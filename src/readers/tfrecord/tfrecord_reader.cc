#include "readers/tfrecord/tfrecord_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sluice/error.h>

#include "operators/registry.h"
#include "readers/common/reader_log.h"

namespace sluice {

int TfRecordNumOutputs(const OpSpec& spec) {
  auto it = spec.args.find("feature_names");
  if (it == spec.args.end()) return 1;
  if (auto* l = std::get_if<std::vector<std::string>>(&it->second)) return std::max<int>(1, static_cast<int>(l->size()));
  return 1;
}

namespace {

template <typename T> void Append(std::vector<uint8_t>& out, const T* p, size_t n) {
  const size_t old = out.size();
  out.resize(old + n * sizeof(T));
  if (n) std::memcpy(out.data() + old, p, n * sizeof(T));
}

const char* TypeName(TfFeatureSpec::Type t) {
  return t == TfFeatureSpec::Type::kInt64 ? "int64" : t == TfFeatureSpec::Type::kFloat32 ? "float32" : "string";
}

}  // namespace

TensorShape TfFeatureToTensor(const TfFeatureSpec& spec, const TfFeature& f, std::vector<uint8_t>& out) {
  using T = TfFeatureSpec::Type;
  const TfFeatureKind want = spec.type == T::kInt64 ? TfFeatureKind::kInt64
                             : spec.type == T::kFloat32 ? TfFeatureKind::kFloat
                                                        : TfFeatureKind::kBytes;
  if (f.kind != TfFeatureKind::kNone && f.kind != want)
    throw Error("feature '" + spec.name + "' is declared " + TypeName(spec.type) + " but the record holds a " +
                ToString(f.kind));
  if (spec.type == T::kString) {
    std::string_view v = spec.string_default;
    if (f.kind == want && !f.bytes.empty()) v = f.bytes[0];
    Append(out, reinterpret_cast<const uint8_t*>(v.data()), v.size());
    return TensorShape{static_cast<int64_t>(v.size())};
  }
  TensorShape shape;
  int64_t n = 1;
  if (spec.fixed) {
    std::vector<int64_t> s = spec.shape.empty() ? std::vector<int64_t>{1} : spec.shape;
    for (int64_t d : s) n *= d;
    shape = TensorShape(s);
  }
  const bool present = f.kind == want;
  if (present) {
    const int64_t count = static_cast<int64_t>(f.count());
    if (spec.fixed && count != n)
      throw Error("feature '" + spec.name + "' has " + std::to_string(count) + " values but its FixedLenFeature shape " +
                  shape.ToString() + " needs " + std::to_string(n));
    if (!spec.fixed) shape = TensorShape{count};
    if (spec.type == T::kInt64) Append(out, f.ints.data(), f.ints.size());
    else Append(out, f.floats.data(), f.floats.size());
    return shape;
  }
  if (!spec.fixed) {
    n = 1;
    shape = TensorShape{1};
  }
  for (int64_t i = 0; i < n; ++i) {
    if (spec.type == T::kInt64) Append(out, &spec.int_default, 1);
    else {
      const float v = static_cast<float>(spec.float_default);
      Append(out, &v, 1);
    }
  }
  return shape;
}

TfRecordReader::TfRecordReader(const OpSpec& spec) : ReaderOperator(spec) {
  paths_ = Arg<std::vector<std::string>>("path");
  index_paths_ = Arg<std::vector<std::string>>("index_path");
  if (paths_.empty()) ThrowArgError("path", "must name at least one TFRecord file");
  if (!index_paths_.empty() && index_paths_.size() != paths_.size())
    ThrowArgError("index_path", "has " + std::to_string(index_paths_.size()) + " entries but path has " +
                                    std::to_string(paths_.size()) + "; give one index per file or none");
  names_ = Arg<std::vector<std::string>>("feature_names");
  const auto kinds = Arg<std::vector<std::string>>("feature_kinds");
  const auto dtypes = Arg<std::vector<std::string>>("feature_dtypes");
  const auto ndims = Arg<std::vector<int64_t>>("feature_ndims");
  const auto shapes = Arg<std::vector<int64_t>>("feature_shapes");
  const auto idef = Arg<std::vector<int64_t>>("feature_int_defaults");
  const auto fdef = Arg<std::vector<double>>("feature_float_defaults");
  const auto sdef = Arg<std::vector<std::string>>("feature_string_defaults");
  const size_t n = names_.size();
  if (n == 0) ThrowArgError("feature_names", "must name at least one feature (features={...} in Python)");
  auto check_len = [&](const char* arg, size_t got) {
    if (got != n)
      ThrowArgError(arg, "has " + std::to_string(got) + " entries but feature_names has " + std::to_string(n));
  };
  check_len("feature_kinds", kinds.size());
  check_len("feature_dtypes", dtypes.size());
  check_len("feature_ndims", ndims.size());
  check_len("feature_int_defaults", idef.size());
  check_len("feature_float_defaults", fdef.size());
  check_len("feature_string_defaults", sdef.size());
  size_t shape_pos = 0;
  for (size_t i = 0; i < n; ++i) {
    TfFeatureSpec f;
    f.name = names_[i];
    for (size_t j = 0; j < i; ++j)
      if (names_[j] == f.name) ThrowArgError("feature_names", "names feature '" + f.name + "' twice");
    if (kinds[i] == "fixed") f.fixed = true;
    else if (kinds[i] == "var") f.fixed = false;
    else ThrowArgError("feature_kinds", "entry " + std::to_string(i) + " is '" + kinds[i] + "'; expected \"fixed\" or \"var\"");
    if (dtypes[i] == "int64") f.type = TfFeatureSpec::Type::kInt64;
    else if (dtypes[i] == "float32") f.type = TfFeatureSpec::Type::kFloat32;
    else if (dtypes[i] == "string") f.type = TfFeatureSpec::Type::kString;
    else ThrowArgError("feature_dtypes", "entry " + std::to_string(i) + " is '" + dtypes[i] + "'; expected int64, float32 or string");
    if (ndims[i] < 0 || static_cast<size_t>(ndims[i]) > shapes.size() - shape_pos)
      ThrowArgError("feature_ndims", "entry " + std::to_string(i) + " (" + std::to_string(ndims[i]) +
                                         ") does not fit feature_shapes");
    int64_t elems = 1;
    for (int64_t d = 0; d < ndims[i]; ++d) {
      const int64_t e = shapes[shape_pos++];
      if (e < 0) ThrowArgError("feature_shapes", "feature '" + f.name + "' has a negative extent");
      if (e > 0 && elems > (int64_t{1} << 28) / e)
        ThrowArgError("feature_shapes", "feature '" + f.name + "' has more than 2^28 elements");
      elems *= e;
      f.shape.push_back(e);
    }
    if (!f.fixed && !f.shape.empty()) ThrowArgError("feature_shapes", "VarLenFeature '" + f.name + "' takes no shape");
    f.int_default = idef[i];
    f.float_default = fdef[i];
    f.string_default = sdef[i];
    features_.push_back(std::move(f));
  }
  if (shape_pos != shapes.size())
    ThrowArgError("feature_shapes", "has " + std::to_string(shapes.size() - shape_pos) + " extents more than feature_ndims uses");
  InitEagerly();
}

TfRecordReader::~TfRecordReader() { StopLoader(); }

std::string TfRecordReader::DatasetName() const {
  return RecordFilesName("tfrecord", paths_);
}

int64_t TfRecordReader::InitDataset() {
  records_.Open(paths_, !options().dont_use_mmap, options().read_ahead);
  for (size_t a = 0; a < paths_.size(); ++a) {
    const ByteSource& file = records_.file(a);
    std::vector<TfRecordEntry> recs;
    if (!index_paths_.empty()) {
      std::string text;
      try {
        text = ReadWholeFile(index_paths_[a]);
      } catch (const Error& e) {
        throw Error("cannot open index file: " + e.message(), OpContext("index_path"));
      }
      recs = ParseTfRecordIndex(text, index_paths_[a], file.size());
    } else {
      ReaderWarning("readers.tfrecord: no index file for " + paths_[a] +
                    "; building the index by scanning the file (slower start; write one with sluice.tfrecord.write_index)");
      recs = ScanTfRecords(file, /*check_data=*/false);
    }
    for (const auto& r : recs) records_.Add(a, r.offset, r.size);
  }
  if (records_.num_records() == 0) throw Error("no records found in " + DatasetName(), OpContext());
  return records_.num_records();
}

void TfRecordReader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                               const MemoryConfig& cfg) {
  const size_t n = indices.size(), nf = features_.size();
  values_.resize(nf);
  shapes_.resize(nf);
  for (size_t o = 0; o < nf; ++o) {
    values_[o].resize(n);
    shapes_[o].assign(n, TensorShape{0});
  }
  std::vector<SourceInfo> srcs(n);
  records_.ReadBatch(indices);  // the batch's records together (remote ones in parallel)
  for (size_t i = 0; i < n; ++i) {
    srcs[i] = records_.source(i);
    const std::string& file = srcs[i].path;
    const int64_t offset = srcs[i].offset;
    for (size_t o = 0; o < nf; ++o) values_[o][i].clear();
    try {
      if (!records_.read_error(i).empty()) throw Error(records_.read_error(i));
      const std::vector<uint8_t>& rec = records_.record(i);
      CheckTfRecord(rec.data(), rec.size(), file, offset);
      std::vector<TfFeature> feats;
      try {
        feats = ParseTfExample(rec.data() + 12, rec.size() - static_cast<size_t>(kTfRecordFraming), names_);
        for (size_t o = 0; o < nf; ++o) shapes_[o][i] = TfFeatureToTensor(features_[o], feats[o], values_[o][i]);
      } catch (const Error& e) {
        throw Error("TFRecord file '" + file + "', record at byte offset " + std::to_string(offset) + ": " +
                    e.message());
      }
    } catch (const Error& e) {
      for (size_t o = 0; o < nf; ++o) {
        shapes_[o][i] = TensorShape{0};
        values_[o][i].clear();
      }
      SampleReadFailed(static_cast<int>(i), srcs[i], e);  // throws with on_error="raise"
    }
  }
  for (size_t o = 0; o < nf; ++o) {
    TensorList& out = outs[o];
    out.Resize(shapes_[o], features_[o].dtype(), cfg, true);
    for (size_t i = 0; i < n; ++i) {
      out.source(static_cast<int>(i)) = srcs[i];
      const auto& v = values_[o][i];
      if (!v.empty()) std::memcpy(out.raw_mutable_sample(static_cast<int>(i)), v.data(), v.size());
    }
    out.set_layout("");
  }
}

SLUICE_REGISTER_OPERATORS(RegisterTfRecordReader) {
  OpSchema s("readers.tfrecord");
  s.Doc("Reads tf.train.Example records from TFRecord files (CRC-checked), one output per feature. In Python, "
        "pass DALI's features={name: sluice.tfrecord.FixedLenFeature(...) | VarLenFeature(...)}; it becomes the "
        "feature_* arguments. int64 -> int64, float32 -> float32, string -> uint8 "
        "bytes (the first value).")
      .NumOutputsFn(TfRecordNumOutputs)
      .Arg("path", ArgType::kStringList, std::nullopt, "The TFRecord files.")
      .Arg("index_path", ArgType::kStringList, std::vector<std::string>{},
           "Index files in DALI's tfrecord2idx format (\"offset size\" per record), one per file; none: each file is "
           "scanned at start (with a warning).")
      .Arg("feature_names", ArgType::kStringList, std::nullopt, "Feature keys, one per output (from `features`).")
      .Arg("feature_kinds", ArgType::kStringList, std::nullopt, "\"fixed\" (FixedLenFeature) or \"var\" (VarLenFeature), per feature.")
      .Arg("feature_dtypes", ArgType::kStringList, std::nullopt, "\"int64\", \"float32\" or \"string\", per feature.")
      .Arg("feature_ndims", ArgType::kIntList, std::nullopt, "Number of dimensions of each feature's shape (0 for VarLenFeature).")
      .Arg("feature_shapes", ArgType::kIntList, std::vector<int64_t>{}, "The features' shapes, concatenated.")
      .Arg("feature_int_defaults", ArgType::kIntList, std::nullopt, "Default value per feature (int64 features).")
      .Arg("feature_float_defaults", ArgType::kFloatList, std::nullopt, "Default value per feature (float32 features).")
      .Arg("feature_string_defaults", ArgType::kStringList, std::nullopt, "Default value per feature (string features).");
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<TfRecordReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
