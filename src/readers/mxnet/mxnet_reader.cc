#include "readers/mxnet/mxnet_reader.h"

#include <algorithm>
#include <cstring>

#include <sluice/error.h>

#include "operators/registry.h"

namespace sluice {

MxNetReader::MxNetReader(const OpSpec& spec) : ReaderOperator(spec) {
  paths_ = Arg<std::vector<std::string>>("path");
  index_paths_ = Arg<std::vector<std::string>>("index_path");
  shuffle_after_epoch_ = Arg<bool>("shuffle_after_epoch");
  if (paths_.empty()) ThrowArgError("path", "must name at least one RecordIO (.rec) file");
  if (index_paths_.size() != 1 && index_paths_.size() != paths_.size())
    ThrowArgError("index_path", "has " + std::to_string(index_paths_.size()) + " entries but path has " +
                                    std::to_string(paths_.size()) +
                                    "; give one .idx file (offsets into the .rec files in order, as DALI's "
                                    "rec2idx writes) or one .idx file per .rec file");
  if (shuffle_after_epoch_ && options().random_shuffle)
    ThrowArgError("shuffle_after_epoch", "cannot be combined with random_shuffle");
  InitEagerly();
}

MxNetReader::~MxNetReader() { StopLoader(); }

std::string MxNetReader::DatasetName() const {
  return RecordFilesName("RecordIO", paths_);
}

void MxNetReader::AdjustSequencer(SequencerOptions& s) const {
  if (shuffle_after_epoch_) {
    s.shuffle_after_epoch = true;
    s.stick_to_shard = true;
  }
}

int64_t MxNetReader::InitDataset() {
  records_.Open(paths_, !options().dont_use_mmap, options().read_ahead);
  std::vector<int64_t> starts;  // of each file in the files' concatenation
  int64_t total = 0;
  for (size_t a = 0; a < paths_.size(); ++a) {
    starts.push_back(total);
    total += records_.file(a).size();
  }
  auto parse = [&](size_t k, int64_t size) {
    std::string text;
    try {
      text = ReadWholeFile(index_paths_[k]);
      return ParseRecordIOIndex(text, index_paths_[k], size);
    } catch (const Error& e) {
      throw Error((text.empty() ? "cannot open index file: " : "") + e.message(), OpContext("index_path"));
    }
  };
  if (index_paths_.size() == paths_.size()) {  // one index per file (MXNet's im2rec)
    for (size_t a = 0; a < paths_.size(); ++a)
      for (const auto& r : parse(a, records_.file(a).size())) records_.Add(a, r.offset, r.size);
  } else {  // DALI's form: one index of offsets into the concatenation of the files
    size_t a = 0;
    for (RecordIOEntry r : parse(0, total)) {
      while (a + 1 < paths_.size() && r.offset >= starts[a + 1]) ++a;
      r.offset -= starts[a];
      r.size = std::min(r.size, records_.file(a).size() - r.offset);  // a record never spans two files
      records_.Add(a, r.offset, r.size);
    }
  }
  if (records_.num_records() == 0) throw Error("no records found in " + DatasetName(), OpContext());
  return records_.num_records();
}

void MxNetReader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                            const MemoryConfig& cfg) {
  const size_t n = indices.size();
  std::vector<SourceInfo> srcs(n);
  std::vector<TensorShape> data_shapes(n, TensorShape{0}), label_shapes(n, TensorShape{1});
  parsed_.assign(n, ImageRecord{});
  images_.resize(n);
  records_.ReadBatch(indices);  // the batch's records together (remote ones in parallel)
  for (size_t i = 0; i < n; ++i) {
    srcs[i] = records_.source(i);
    const std::string& file = srcs[i].path;
    const int64_t offset = srcs[i].offset;
    images_[i].clear();
    try {
      if (!records_.read_error(i).empty()) throw Error(records_.read_error(i));
      const std::vector<uint8_t>& bytes = records_.record(i);
      ReadRecordIO(bytes.data(), bytes.size(), file, offset, payload_);
      ImageRecord rec = ParseImageRecord(payload_.data(), payload_.size(), file, offset);
      images_[i].assign(rec.image, rec.image + rec.image_size);
      rec.image = nullptr;
      data_shapes[i] = TensorShape{static_cast<int64_t>(rec.image_size)};
      label_shapes[i] = TensorShape{static_cast<int64_t>(rec.labels.size())};
      parsed_[i] = std::move(rec);
    } catch (const Error& e) {
      parsed_[i].labels.assign(1, 0.f);
      SampleReadFailed(static_cast<int>(i), srcs[i], e);  // throws with on_error="raise"
    }
  }
  TensorList& data = outs[0];
  TensorList& labels = outs[1];
  data.Resize(data_shapes, DType::kUInt8, cfg, true);
  labels.Resize(label_shapes, DType::kFloat32, cfg, true);
  for (size_t i = 0; i < n; ++i) {
    const int si = static_cast<int>(i);
    data.source(si) = srcs[i];
    labels.source(si) = srcs[i];
    if (!images_[i].empty()) std::memcpy(data.raw_mutable_sample(si), images_[i].data(), images_[i].size());
    std::memcpy(labels.raw_mutable_sample(si), parsed_[i].labels.data(), parsed_[i].labels.size() * sizeof(float));
  }
  data.set_layout("");
  labels.set_layout("");
}

SLUICE_REGISTER_OPERATORS(RegisterMxNetReader) {
  OpSchema s("readers.mxnet");
  s.Doc("Reads MXNet RecordIO image datasets: .rec files with their .idx index files (MXIndexedRecordIO's "
        "\"key<TAB>offset\" lines). Outputs each record's encoded image (uint8, 1-D) and its label(s) (float32: "
        "shape [1], or [flag] when the record's IRHeader carries flag > 0 labels).")
      .Output("data", "the record's image bytes (uint8, 1-D)")
      .Output("label", "the record's label(s) (float32, 1-D)")
      .Arg("path", ArgType::kStringList, std::nullopt, "The RecordIO (.rec) files.")
      .Arg("index_path", ArgType::kStringList, std::nullopt,
           "The index (.idx) file: \"key offset\" lines (MXNet's im2rec / MXIndexedRecordIO). As DALI, one file "
           "whose offsets run through the .rec files in order as if concatenated (DALI's rec2idx); Sluice also "
           "takes one index per .rec file.")
      .Arg("shuffle_after_epoch", ArgType::kBool, false,
           "Reshuffle the whole dataset every epoch, identically on every shard (implies stick_to_shard; "
           "excludes random_shuffle).");
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<MxNetReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
