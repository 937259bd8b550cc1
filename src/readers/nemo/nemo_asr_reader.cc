#include "readers/nemo/nemo_asr_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <sluice/error.h>

#include "core/random.h"
#include "operators/on_error_arg.h"
#include "operators/registry.h"
#include "readers/common/shuffle.h"
#include "readers/file/file_reader.h"
#include "readers/storage/file_source.h"

namespace sluice {
namespace {

NemoManifestFilter FilterOf(const Operator& op) {
  NemoManifestFilter f;
  f.min_duration = op.Arg<double>("min_duration");
  f.max_duration = op.Arg<double>("max_duration");
  f.read_text = op.Arg<bool>("read_text");
  return f;
}

bool FlagOf(const OpSpec& spec, const char* name, bool fallback) {
  auto it = spec.args.find(name);
  const bool* v = it == spec.args.end() ? nullptr : std::get_if<bool>(&it->second);
  return v ? *v : fallback;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// NemoAsrLoader

NemoAsrLoader::NemoAsrLoader(const OpSpec& spec)
    : ReaderOperator(spec),
      manifests_(Arg<std::vector<std::string>>("manifest_filepaths")),
      filter_(FilterOf(*this)),
      shuffle_after_epoch_(Arg<bool>("shuffle_after_epoch")) {
  if (manifests_.empty()) ThrowArgError("manifest_filepaths", "is empty");
  if (shuffle_after_epoch_ && options().random_shuffle)
    ThrowArgError("shuffle_after_epoch", "cannot be combined with random_shuffle");
  if (shuffle_after_epoch_ && options().stick_to_shard)
    ThrowArgError("shuffle_after_epoch", "cannot be combined with stick_to_shard (it implies it)");
  InitEagerly();
}

NemoAsrLoader::~NemoAsrLoader() { StopLoader(); }

std::string NemoAsrLoader::DatasetName() const {
  if (manifests_.size() == 1) return "manifest '" + manifests_[0] + "'";
  return "manifest_filepaths [" + std::to_string(manifests_.size()) + " manifests]";
}

int64_t NemoAsrLoader::InitDataset() {
  utterances_.clear();
  for (size_t m = 0; m < manifests_.size(); ++m) {
    for (NemoManifestEntry& e : ReadNemoManifest(manifests_[m], filter_)) {
      Utterance u;
      u.path = ResolveNemoAudioPath(e, manifests_[m]);
      u.entry = std::move(e);
      u.manifest = static_cast<int>(m);
      u.index = static_cast<int64_t>(utterances_.size());
      utterances_.push_back(std::move(u));
    }
  }
  if (utterances_.empty())
    throw Error(DatasetName() + " lists no utterance" +
                (filter_.min_duration > 0 || filter_.max_duration > 0 ? " within min_duration/max_duration" : ""));
  if (options().random_shuffle) {  // as readers.file: one fixed shuffle of the list, the same on every shard
    RandomGenerator rng(kListShuffleSeed);
    PermuteElements(&utterances_, rng);
  }
  return static_cast<int64_t>(utterances_.size());
}

void NemoAsrLoader::AdjustSequencer(SequencerOptions& s) const {
  if (shuffle_after_epoch_) {
    s.shuffle_after_epoch = true;
    s.stick_to_shard = true;
  }
}

void NemoAsrLoader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                              const MemoryConfig& cfg) {
  const size_t n = indices.size();
  std::vector<TensorShape> shapes(n, TensorShape{0});
  std::vector<char> bad(n, 0);
  auto failed = [&](size_t i, const Utterance& u, const Error& e) {
    SourceInfo src;
    src.path = u.path;
    SampleReadFailed(static_cast<int>(i), src,
                     Error(e.message() + " (manifest '" + manifests_[size_t(u.manifest)] + "', line " +
                           std::to_string(u.entry.line) + ")"));  // throws with on_error="raise"
    bad[i] = 1;
  };
  // Sizes first (the batch is resized at once), then the contents; small batches keep their files
  // open in between, as readers.file does.
  const bool keep_open = n <= kMaxOpenFilesPerBatch;
  std::vector<WholeFile> open;
  for (size_t i = 0; i < n; ++i) {
    const Utterance& u = utterances_[static_cast<size_t>(indices[i])];
    if (keep_open) {
      try {
        open.emplace_back(u.path, options().read_ahead);
        shapes[i][0] = open.back().size();
      } catch (const Error& e) {
        open.emplace_back();
        failed(i, u, e);
      }
    } else {
      struct stat st;
      if (::stat(u.path.c_str(), &st) != 0) failed(i, u, Error("cannot open " + u.path + ": " + std::strerror(errno)));
      else shapes[i][0] = static_cast<int64_t>(st.st_size);
    }
  }
  TensorList& data = outs[0];
  TensorList& position = outs[1];
  data.Resize(shapes, DType::kUInt8, cfg, true);
  position.Resize(std::vector<TensorShape>(n, TensorShape{}), DType::kInt64, cfg, true);
  for (size_t i = 0; i < n; ++i) {
    const int si = static_cast<int>(i);
    const Utterance& u = utterances_[static_cast<size_t>(indices[i])];
    SourceInfo& src = data.source(si);
    src.path = u.path;
    src.member.clear();
    src.offset = -1;
    position.source(si) = src;
    *position.mutable_sample<int64_t>(si) = indices[i];
    if (bad[i]) continue;
    try {
      std::optional<WholeFile> reopened;
      if (!keep_open) reopened.emplace(u.path, options().read_ahead);
      const WholeFile& file = keep_open ? open[i] : *reopened;
      if (file.size() != shapes[i][0])
        throw Error("file changed size while being read (" + std::to_string(shapes[i][0]) + " -> " +
                    std::to_string(file.size()) + " bytes)");
      file.ReadAll(data.raw_mutable_sample(si), !options().dont_use_mmap && file.size() >= kFileReaderMmapMinBytes);
    } catch (const Error& e) {
      failed(i, u, e);
    }
  }
  data.set_layout("");
  position.set_layout("");
}

// ---------------------------------------------------------------------------------------------
// NemoAsrReader

NemoAsrReader::NemoAsrReader(const OpSpec& spec)
    : LoaderBackedReader(spec),
      read_sample_rate_(Arg<bool>("read_sample_rate")),
      read_text_(Arg<bool>("read_text")),
      read_idxs_(Arg<bool>("read_idxs")),
      sample_rate_(Arg<double>("sample_rate")),
      decoding_(*this, ReplacesOnError(*this)) {
  loader_ = std::make_unique<NemoAsrLoader>(spec);
}

NemoAsrReader::~NemoAsrReader() { loader_.reset(); }

AudioDecoding::ParallelFor NemoAsrReader::EachSample(Workspace& ws) {
  return [this, &ws](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); };
}

std::vector<OutputDesc> NemoAsrReader::Setup(Workspace& ws) {
  // The loader fills its two outputs, in a workspace of their own (it swaps its prepared buffers
  // with them); its read failures go to this batch's record.
  Workspace lws = ws;
  lws.inputs_.clear();
  lws.arg_inputs_.clear();
  lws.outputs_ = {&encoded_, &positions_};
  loader_->Setup(lws);
  const auto& utterances = loader_->utterances();
  const int n = encoded_.num_samples();
  batch_.assign(static_cast<size_t>(n), nullptr);
  samples_.clear();
  clips_.clear();
  for (int i = 0; i < n; ++i) {
    const auto& u = utterances[static_cast<size_t>(*positions_.sample<int64_t>(i))];
    batch_[static_cast<size_t>(i)] = &u;
    samples_.push_back({{encoded_.sample<uint8_t>(i), static_cast<size_t>(encoded_.shape(i).num_elements())},
                        encoded_.source(i),
                        "manifest '" + loader_->manifests()[size_t(u.manifest)] + "', line " + std::to_string(u.entry.line)});
    clips_.push_back({u.entry.offset, u.entry.duration});
  }
  std::vector<OutputDesc> outs;
  outs.push_back(decoding_.Setup(samples_, std::vector<double>(size_t(n), sample_rate_), &clips_, EachSample(ws)));
  if (read_sample_rate_) outs.push_back(decoding_.RatesDesc());
  if (read_text_) {
    OutputDesc d;
    d.dtype = DType::kUInt8;
    for (const auto* u : batch_) d.shapes.push_back(TensorShape{static_cast<int64_t>(u->entry.text.size())});
    outs.push_back(d);
  }
  if (read_idxs_) {
    OutputDesc d;
    d.dtype = DType::kInt64;
    d.shapes.assign(size_t(n), TensorShape{1});
    d.contiguous = true;
    outs.push_back(d);
  }
  return outs;
}

void NemoAsrReader::Run(Workspace& ws) {
  TensorList* rates = &rates_;
  if (read_sample_rate_) rates = &ws.Output(1);
  else rates_.Resize(decoding_.RatesDesc().shapes, DType::kFloat32, ws.memory(), true);
  decoding_.Run(ws, samples_, ws.Output(0), *rates, EachSample(ws));
  int next = read_sample_rate_ ? 2 : 1;
  if (read_text_) {
    TensorList& text = ws.Output(next++);
    for (size_t i = 0; i < batch_.size(); ++i)
      if (!batch_[i]->entry.text.empty())
        std::memcpy(text.raw_mutable_sample(int(i)), batch_[i]->entry.text.data(), batch_[i]->entry.text.size());
  }
  if (read_idxs_) {
    TensorList& idx = ws.Output(next++);
    for (size_t i = 0; i < batch_.size(); ++i) *idx.mutable_sample<int64_t>(int(i)) = batch_[i]->index;
  }
  for (int o = 0; o < ws.num_outputs(); ++o)
    for (int i = 0; i < encoded_.num_samples(); ++i) ws.Output(o).source(i) = encoded_.source(i);
}

SLUICE_REGISTER_OPERATORS(RegisterNemoAsrReader) {
  OpSchema s("readers.nemo_asr");
  s.Doc("Reads automatic speech recognition data (audio, transcript) listed by NVIDIA NeMo manifests: JSON lines "
        "such as {\"audio_filepath\": \"a.wav\", \"duration\": 3.45, \"offset\": 0.5, \"text\": \"the transcript\"}, "
        "of which only audio_filepath is required; relative paths are looked up next to the manifest, then in the "
        "working directory. Each utterance is decoded as decoders.audio decodes (WAV, FLAC, Ogg Vorbis/Opus, MP3, "
        "...), from `offset` for `duration` seconds when the manifest gives them. A manifest line that is not a "
        "JSON object, lacks audio_filepath or names a missing file is an error naming the manifest and the line. "
        "Outputs: the audio, then (read_sample_rate) its sample rate, (read_text) the transcript as UTF-8 bytes, "
        "(read_idxs) the utterance's index.")
      .Output("audio", "The decoded audio: 1-D (\"T\") with downmix, else samples x channels (\"TC\"); type `dtype`.")
      .Output("sample_rate", "read_sample_rate: the audio's sample rate in Hz (float32 scalar; the target rate when "
                             "resampled).")
      .Output("text", "read_text: the transcript as UTF-8 bytes (uint8, 1-D, no terminating zero).")
      .Output("index", "read_idxs: the utterance's index among the entries the manifests keep, in their order (int64, "
                       "shape [1]).")
      .NumOutputsFn([](const OpSpec& spec) {
        return 1 + int(FlagOf(spec, "read_sample_rate", true)) + int(FlagOf(spec, "read_text", true)) +
               int(FlagOf(spec, "read_idxs", false));
      })
      .Arg("manifest_filepaths", ArgType::kStringList, std::nullopt, "Paths of the NeMo manifests (JSON lines).")
      .Arg("read_sample_rate", ArgType::kBool, true, "Output each utterance's sample rate.")
      .Arg("read_text", ArgType::kBool, true, "Output each utterance's transcript (`text`; empty when not given).")
      .Arg("read_idxs", ArgType::kBool, false,
           "Output each utterance's index among the entries kept from the manifests (in manifest order, across "
           "manifests).")
      .Arg("shuffle_after_epoch", ArgType::kBool, false,
           "Reshuffle the whole list every epoch, identically on every shard (implies stick_to_shard; excludes "
           "random_shuffle and stick_to_shard).")
      .Arg("min_duration", ArgType::kFloat, 0.0,
           "> 0: drop the entries whose manifest duration is shorter (entries without a duration too, as DALI).")
      .Arg("max_duration", ArgType::kFloat, 0.0, "> 0: drop the entries whose manifest duration is longer.");
  AddAudioDecodingArgs(s, {/*downmix=*/true, /*sample_rate=*/-1.0, /*sample_rate_per_sample=*/false});
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<NemoAsrReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
