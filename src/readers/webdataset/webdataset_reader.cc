#include "readers/webdataset/webdataset_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sluice/error.h>

#include "operators/registry.h"
#include "readers/common/reader_log.h"
#include "readers/webdataset/wds_index.h"

namespace sluice {

int WebdatasetNumOutputs(const OpSpec& spec) {
  auto it = spec.args.find("ext");
  if (it == spec.args.end()) return 1;
  if (auto* l = std::get_if<std::vector<std::string>>(&it->second)) return static_cast<int>(l->size());
  return 1;
}

WebdatasetReader::WebdatasetReader(const OpSpec& spec) : ReaderOperator(spec) {
  paths_ = Arg<std::vector<std::string>>("paths");
  index_paths_ = Arg<std::vector<std::string>>("index_paths");
  ext_ = Arg<std::vector<std::string>>("ext");
  case_sensitive_ = Arg<bool>("case_sensitive_extensions");
  max_member_bytes_ = Arg<int64_t>("max_member_bytes");
  if (paths_.empty()) ThrowArgError("paths", "must name at least one archive");
  if (!index_paths_.empty() && index_paths_.size() != paths_.size())
    ThrowArgError("index_paths", "has " + std::to_string(index_paths_.size()) + " entries but paths has " +
                                     std::to_string(paths_.size()) + "; give one index per archive or none");
  if (ext_.empty()) ThrowArgError("ext", "must name at least one extension set");
  try {
    ExtMatcher check(ext_, case_sensitive_);
  } catch (const Error& e) {
    ThrowArgError("ext", e.message());
  }
  try {
    resolve_.missing = ParseMissingComponentBehavior(Arg<std::string>("missing_component_behavior"));
  } catch (const Error& e) {
    ThrowArgError("missing_component_behavior", e.message());
  }
  const std::vector<std::string> dtypes = Arg<std::vector<std::string>>("dtypes");
  if (!dtypes.empty() && dtypes.size() != ext_.size())
    ThrowArgError("dtypes", "has " + std::to_string(dtypes.size()) + " entries but ext has " +
                                std::to_string(ext_.size()) + " (one per output)");
  for (size_t i = 0; i < ext_.size(); ++i) {
    if (dtypes.empty()) {
      resolve_.dtypes.push_back(DType::kUInt8);
      continue;
    }
    auto d = ParseDType(dtypes[i]);
    if (!d) ThrowArgError("dtypes", "unknown dtype '" + dtypes[i] + "'");
    resolve_.dtypes.push_back(*d);
  }
  InitEagerly();
}

WebdatasetReader::~WebdatasetReader() { StopLoader(); }

std::string WebdatasetReader::DatasetName() const {
  std::string s = "webdataset [";
  for (size_t i = 0; i < paths_.size() && i < 3; ++i) s += (i ? ", " : "") + paths_[i];
  if (paths_.size() > 3) s += ", ... (" + std::to_string(paths_.size()) + " archives)";
  return s + "]";
}

int64_t WebdatasetReader::InitDataset() {
  const ExtMatcher matcher(ext_, case_sensitive_);
  data_ = WdsDataset{};
  data_.num_outputs = matcher.num_outputs();
  bool warned = false;
  const bool use_mmap = !options().dont_use_mmap;
  for (size_t a = 0; a < paths_.size(); ++a) {
    archives_.push_back(OpenByteSource(paths_[a], use_mmap, options().read_ahead));
    const ByteSource& tar = *archives_.back();
    std::vector<WdsSample> samples;
    if (!index_paths_.empty()) {
      std::string text;
      try {
        text = ReadWholeFile(index_paths_[a]);
      } catch (const Error& e) {
        throw Error("cannot open index file: " + e.message(), OpContext("index_paths"));
      }
      samples = ParseWdsIndex(text, index_paths_[a], tar.size());
    } else {
      ReaderWarning("readers.webdataset: no index file for " + paths_[a] +
                    "; building the index by scanning the archive (slower start; write one with sluice-wds2idx)");
      samples = ScanTarSamples(tar);
    }
    ResolveWdsSamples(samples, static_cast<int32_t>(a), paths_[a], matcher, resolve_, &data_, &warned);
  }
  if (data_.size() == 0) {
    std::string why = resolve_.missing == MissingComponent::kSkip ? " (missing_component_behavior=\"skip\" dropped "
                                                                    "every sample lacking a component)"
                                                                  : "";
    throw Error("no samples found in " + DatasetName() + why, OpContext());
  }
  return data_.size();
}

void WebdatasetReader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                                 const MemoryConfig& cfg) {
  const size_t n = indices.size();
  if (shapes_.size() != n) shapes_.assign(n, TensorShape{0});
  bad_.assign(n, 0);
  // Every output is sized first, then all members of the batch are read at once (ReadRanges:
  // remote members go out together, neighbours coalesced; local ones are read in order).
  reads_.clear();
  read_of_.clear();
  for (int o = 0; o < data_.num_outputs; ++o) {
    const DType dt = resolve_.dtypes[static_cast<size_t>(o)];
    const int64_t elem = static_cast<int64_t>(SizeOf(dt));
    for (size_t i = 0; i < n; ++i) {
      const WdsComponent& c = data_.component(indices[i], o);
      shapes_[i][0] = c.offset < 0 || bad_[i] ? 0 : c.size / elem;
      if (c.offset >= 0 && c.size > max_member_bytes_ && !bad_[i]) {
        // Checked before the batch is sized: a huge member must not be allocated.
        shapes_[i][0] = 0;
        SourceInfo src;
        src.path = archives_[static_cast<size_t>(data_.archive[static_cast<size_t>(indices[i])])]->name();
        src.member = c.member;
        src.offset = c.offset;
        SampleReadFailed(static_cast<int>(i), src,
                         Error("member " + c.member + " is " + std::to_string(c.size) +
                                   " bytes, more than max_member_bytes = " + std::to_string(max_member_bytes_),
                               OpContext("max_member_bytes")));
        bad_[i] = 1;
      }
    }
    TensorList& out = outs[static_cast<size_t>(o)];
    out.Resize(shapes_, dt, cfg, true);
    for (size_t i = 0; i < n; ++i) {
      const int64_t s = indices[i];
      const WdsComponent& c = data_.component(s, o);
      const int32_t a = data_.archive[static_cast<size_t>(s)];
      const ByteSource& tar = *archives_[static_cast<size_t>(a)];
      SourceInfo& src = out.source(static_cast<int>(i));
      src.path = tar.name();
      if (c.offset < 0) {
        src.member = data_.key[static_cast<size_t>(s)];  // the sample, lacking this component
        src.offset = -1;
        continue;
      }
      src.member = c.member;
      src.offset = c.offset;
      if (bad_[i]) continue;
      RangeRead r;
      r.source = &tar;
      r.offset = c.offset;
      r.size = static_cast<size_t>(c.size);
      r.dst = out.raw_mutable_sample(static_cast<int>(i));
      reads_.push_back(r);
      read_of_.emplace_back(o, i);
    }
    out.set_layout("");
  }
  ReadRanges(reads_);
  for (size_t k = 0; k < reads_.size(); ++k) {
    const auto [o, i] = read_of_[k];
    if (reads_[k].error.empty() || bad_[i]) continue;
    SampleReadFailed(static_cast<int>(i), outs[static_cast<size_t>(o)].source(static_cast<int>(i)),
                     Error(reads_[k].error));  // throws with on_error="raise"
    bad_[i] = 1;
  }
}

SLUICE_REGISTER_OPERATORS(RegisterWebdatasetReader) {
  OpSchema s("readers.webdataset");
  s.Doc("Reads samples from WebDataset tar archives. Members with the same name up to the extension (everything "
        "after the first dot of the base name) that follow each other form one sample; non-regular entries and "
        "hidden base names are skipped. One output per `ext` entry.")
      .NumOutputsFn(WebdatasetNumOutputs)
      .Arg("paths", ArgType::kStringList, std::nullopt, "The tar archives.")
      .Arg("index_paths", ArgType::kStringList, std::vector<std::string>{},
           "Index files (DALI wds2idx v1.1/v1.2, e.g. from sluice-wds2idx), one per archive; none: each archive is "
           "scanned at start (with a warning).")
      .Arg("ext", ArgType::kStringList, std::nullopt,
           "One extension set per output; ';' separates alternatives, which may contain dots (\"left.png;right.jpg\").")
      .Arg("case_sensitive_extensions", ArgType::kBool, true, "Match `ext` case-sensitively.")
      .Arg("missing_component_behavior", ArgType::kString, std::string(),
           "What to do with a sample lacking a component: \"\" or \"empty\" (an empty output), \"skip\" (drop the "
           "sample), \"error\" (fail, naming the archive, sample and extension).")
      .Arg("max_member_bytes", ArgType::kInt, int64_t{1} << 30,
           "Largest component (tar member) read, in bytes. A bigger one is never allocated: it fails its sample as a "
           "read error does (an error naming the archive and member, or with on_error=\"replace\" a replaced row).")
      .Min(1)
      .Arg("dtypes", ArgType::kStringList, std::vector<std::string>{},
           "Element type of each output (default uint8); a component's size must be a multiple of the type's size.");
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<WebdatasetReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
