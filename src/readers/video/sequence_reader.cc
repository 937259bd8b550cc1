#include "readers/video/sequence_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sluice/error.h>

#include "operators/decode/decoder_base.h"
#include "operators/on_error_arg.h"
#include "operators/registry.h"
#include "operators/stand_in_samples.h"
#include "readers/file/file_reader.h"
#include "readers/storage/file_source.h"

namespace sluice {

// ---------------------------------------------------------------------------------------------
// SequenceLoader

SequenceLoader::SequenceLoader(const OpSpec& spec)
    : ReaderOperator(spec),
      root_(Arg<std::string>("file_root")),
      length_(Arg<int64_t>("sequence_length")),
      step_(Arg<int64_t>("step")),
      stride_(Arg<int64_t>("stride")) {
  if (root_.empty()) ThrowArgError("file_root", "must name the folder of the streams");
  InitEagerly();
}

SequenceLoader::~SequenceLoader() { StopLoader(); }

int64_t SequenceLoader::InitDataset() {
  seqs_ = ListFrameSequences(root_, length_, step_, stride_);
  return seqs_.size();
}

void SequenceLoader::PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg) {
  const size_t bytes = std::max(static_cast<size_t>(options().tensor_init_bytes), HintFor(0));
  outs[0].Reserve(batch_size, bytes, cfg, true);
}

void SequenceLoader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                               const MemoryConfig& cfg) {
  const size_t n = indices.size(), len = static_cast<size_t>(length_);
  byte_shapes_.assign(n, TensorShape{0});
  offset_shapes_.assign(n, TensorShape{length_ + 1});
  index_shapes_.assign(n, TensorShape{});
  sizes_.assign(n * len, 0);
  bad_.assign(n, 0);
  auto failed = [&](size_t i, const std::string& path, const Error& e) {
    SourceInfo src;
    src.path = path;
    SampleReadFailed(static_cast<int>(i), src, e);  // throws with on_error="raise"
    bad_[i] = 1;
  };
  // Sizes first (the batch is resized at once), then the contents, each file checked to be as
  // large as it was when sized.
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < len && !bad_[i]; ++k) {
      const std::string& path = seqs_.frame(indices[i], static_cast<int64_t>(k));
      struct stat st;
      if (::stat(path.c_str(), &st) != 0) failed(i, path, Error("cannot open " + path + ": " + std::strerror(errno)));
      else sizes_[i * len + k] = static_cast<int64_t>(st.st_size);
    }
    if (!bad_[i])
      for (size_t k = 0; k < len; ++k) byte_shapes_[i][0] += sizes_[i * len + k];
  }
  TensorList& bytes = outs[0];
  TensorList& offsets = outs[1];
  TensorList& index = outs[2];
  bytes.Resize(byte_shapes_, DType::kUInt8, cfg, true);
  offsets.Resize(offset_shapes_, DType::kInt64, cfg, true);
  index.Resize(index_shapes_, DType::kInt64, cfg, true);
  const bool allow_mmap = !options().dont_use_mmap;
  for (size_t i = 0; i < n; ++i) {
    const int si = static_cast<int>(i);
    SourceInfo src;
    src.path = seqs_.frame(indices[i], 0);
    bytes.source(si) = src;
    offsets.source(si) = src;
    index.source(si) = src;
    *index.mutable_sample<int64_t>(si) = indices[i];
    int64_t* off = offsets.mutable_sample<int64_t>(si);
    std::fill(off, off + len + 1, 0);
    if (bad_[i]) continue;
    uint8_t* dst = bytes.mutable_sample<uint8_t>(si);
    int64_t at = 0;
    for (size_t k = 0; k < len; ++k) {
      const std::string& path = seqs_.frame(indices[i], static_cast<int64_t>(k));
      off[k] = at;
      try {
        WholeFile file(path, options().read_ahead);
        if (file.size() != sizes_[i * len + k])
          throw Error("file changed size while being read (" + std::to_string(sizes_[i * len + k]) + " -> " +
                      std::to_string(file.size()) + " bytes)");
        file.ReadAll(dst + at, allow_mmap && file.size() >= kFileReaderMmapMinBytes);
      } catch (const Error& e) {
        failed(i, path, e);
        break;
      }
      at += sizes_[i * len + k];
    }
    off[len] = at;
  }
  bytes.set_layout("");
  offsets.set_layout("");
  index.set_layout("");
}

// ---------------------------------------------------------------------------------------------
// SequenceReader

SequenceReader::SequenceReader(const OpSpec& spec)
    : LoaderBackedReader(spec),
      length_(Arg<int64_t>("sequence_length")),
      replace_on_error_(ReplacesOnError(*this)) {
  loader_ = std::make_unique<SequenceLoader>(spec);
  params_.output_type = ImageTypeColor(Arg<std::string>("image_type"));
}

SequenceReader::~SequenceReader() { loader_.reset(); }

std::span<const uint8_t> SequenceReader::FrameBytes(int sample, int frame) const {
  const int64_t* off = offsets_.sample<int64_t>(sample);
  return {bytes_.sample<uint8_t>(sample) + off[frame], static_cast<size_t>(off[frame + 1] - off[frame])};
}

const std::string& SequenceReader::FramePath(int sample, int frame) const {
  return loader_->sequences().frame(*index_.sample<int64_t>(sample), frame);
}

void SequenceReader::ForEachFrame(Workspace& ws, const std::function<void(int, int)>& fn) {
  const int n = bytes_.num_samples(), len = static_cast<int>(length_);
  // Each task writes only its own frame's error; errors_ is read here and written between loops.
  frame_errors_.assign(static_cast<size_t>(n) * static_cast<size_t>(len), std::string());
  ws.pool().ParallelFor(n * len, [&](int f, int) {
    if (ws.cancelled()) throw Error("cancelled: the pipeline is shutting down");
    const int i = f / len, k = f % len;
    if (!errors_[static_cast<size_t>(i)].empty()) return;
    try {
      fn(i, k);
    } catch (const std::exception& e) {
      const std::string msg = std::string("frame ") + std::to_string(k) + " (" + FramePath(i, k) + "): " +
                              (dynamic_cast<const Error*>(&e) ? static_cast<const Error&>(e).message() : e.what());
      if (replace_on_error_) {
        frame_errors_[static_cast<size_t>(f)] = msg;
        return;
      }
      Error::Context c;
      c.op = name();
      c.sample = i;
      c.source = FramePath(i, k);
      throw Error(msg, c);
    }
  });
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < len && errors_[static_cast<size_t>(i)].empty(); ++k)
      errors_[static_cast<size_t>(i)] = frame_errors_[static_cast<size_t>(i * len + k)];
}

std::vector<OutputDesc> SequenceReader::Setup(Workspace& ws) {
  Workspace lws = ws;
  lws.inputs_.clear();
  lws.arg_inputs_.clear();
  lws.outputs_ = {&bytes_, &offsets_, &index_};
  loader_->Setup(lws);
  const int n = bytes_.num_samples(), len = static_cast<int>(length_);
  frames_.assign(static_cast<size_t>(n) * static_cast<size_t>(len), Frame{});
  errors_.assign(static_cast<size_t>(n), std::string());
  ForEachFrame(ws, [&](int i, int k) {
    Frame& f = frames_[static_cast<size_t>(i * len + k)];
    f.info = kernels::PeekImage(FrameBytes(i, k));
    f.plan = kernels::PlanDecode(f.info, params_);
  });
  OutputDesc d;
  d.dtype = DType::kUInt8;
  d.layout = "FHWC";
  for (int i = 0; i < n; ++i) {
    const kernels::DecodePlan& first = frames_[static_cast<size_t>(i * len)].plan;
    for (int k = 1; k < len && errors_[static_cast<size_t>(i)].empty(); ++k) {
      const kernels::DecodePlan& p = frames_[static_cast<size_t>(i * len + k)].plan;
      if (p.height == first.height && p.width == first.width && p.channels == first.channels) continue;
      const std::string msg = "frame " + std::to_string(k) + " (" + FramePath(i, k) + ") is " +
                              std::to_string(p.height) + "x" + std::to_string(p.width) + "x" +
                              std::to_string(p.channels) + ", the sequence's first frame (" + FramePath(i, 0) +
                              ") " + std::to_string(first.height) + "x" + std::to_string(first.width) + "x" +
                              std::to_string(first.channels) + ": the frames of a sequence must have one shape";
      if (!replace_on_error_) {
        Error::Context c;
        c.op = name();
        c.sample = i;
        c.source = FramePath(i, k);
        throw Error(msg, c);
      }
      errors_[static_cast<size_t>(i)] = msg;
    }
    if (!errors_[static_cast<size_t>(i)].empty()) d.shapes.push_back(TensorShape{0, 0, 0, first.channels});
    else d.shapes.push_back(TensorShape{length_, first.height, first.width, first.channels});
  }
  return {d};
}

void SequenceReader::Run(Workspace& ws) {
  TensorList& out = ws.Output(0);
  const int n = bytes_.num_samples(), len = static_cast<int>(length_);
  ForEachFrame(ws, [&](int i, int k) {
    const Frame& f = frames_[static_cast<size_t>(i * len + k)];
    const size_t frame_bytes = f.plan.size_bytes();
    kernels::DecodeImage(FrameBytes(i, k), f.info, params_, out.mutable_sample<uint8_t>(i) + size_t(k) * frame_bytes,
                         frame_bytes);
  });
  for (int i = 0; i < n; ++i) out.source(i) = bytes_.source(i);
  if (!replace_on_error_) return;
  const auto pairs = PickStandIns(
      n, [&](int i) -> const std::string& { return errors_[static_cast<size_t>(i)]; },
      [&](int i) -> const SourceInfo& { return bytes_.source(i); }, ws);
  CopyStandIns(pairs, out, ws);
}

namespace {

OpSchema SequenceReaderSchema() {
  OpSchema s("readers.sequence");
  s.Doc("Reads sequences of frames stored as image files: file_root holds one folder per stream (in byte order), "
        "each holding one image file per frame (sorted by name; JPEG, PNG, WebP, BMP, PNM). Each sample is "
        "sequence_length frames, `stride` apart, of one stream; a stream's sequences start every `step` frames from "
        "its first, and only whole sequences are read (no padding, sequences never cross streams). The frames are "
        "decoded into one \"FHWC\" uint8 tensor; the frames of a sequence must have one shape. DALI has deprecated "
        "this reader (since 1.37) but still registers it.")
      .Output("frames", "The sequence: sequence_length x height x width x channels, uint8 (\"FHWC\").")
      .Arg("file_root", ArgType::kString, std::nullopt,
           "The folder of the streams: each subfolder is one stream, its image files the frames.")
      .Arg("sequence_length", ArgType::kInt, std::nullopt, "Frames per sequence.")
      .Min(1)
      .Arg("step", ArgType::kInt, int64_t{1}, "The distance between the first frames of consecutive sequences.")
      .Min(1)
      .Arg("stride", ArgType::kInt, int64_t{1}, "The distance between consecutive frames of a sequence.")
      .Min(1)
      .Arg("image_type", ArgType::kString, std::string("RGB"),
           "The frames' colour format, as decoders.image's output_type: RGB, BGR, GRAY (1 channel), YCbCr, ANY_DATA "
           "(the files' own channels).")
      .Enum(ImageTypeNames(), true);
  AddCommonReaderArgs(s);
  s.Factory("cpu", MakeFactory<SequenceReader>());
  return s;
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterSequenceReader) { r.Register(SequenceReaderSchema()); }

}  // namespace sluice
