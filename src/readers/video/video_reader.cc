#include "readers/video/video_reader.h"

#include <algorithm>
#include <cstring>

#include <sluice/error.h>

#include "operators/on_error_arg.h"
#include "operators/registry.h"
#include "readers/common/file_list.h"
#include "readers/common/file_root_index.h"

namespace sluice {
namespace {

bool GivenNonEmpty(const OpSpec& spec, const char* name) {
  if (spec.arg_inputs.count(name)) return true;
  auto it = spec.args.find(name);
  if (it == spec.args.end()) return false;
  if (const auto* s = std::get_if<std::string>(&it->second)) return !s->empty();
  if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return !v->empty();
  return true;
}

bool FlagOf(const OpSpec& spec, const char* name) {
  auto it = spec.args.find(name);
  const bool* v = it == spec.args.end() ? nullptr : std::get_if<bool>(&it->second);
  return v && *v;
}

bool IsLegacy(const OpSpec& spec) { return spec.op != "experimental.readers.video"; }

bool HasLabels(const OpSpec& spec) {
  return GivenNonEmpty(spec, "labels") || GivenNonEmpty(spec, "file_root") || GivenNonEmpty(spec, "file_list");
}

// DALI's default step, in both readers' code: a clip's whole extent, sequence_length x stride.
int64_t StepOf(const Operator& op) {
  const int64_t step = op.Arg<int64_t>("step");
  return step > 0 ? step : op.Arg<int64_t>("sequence_length") * op.Arg<int64_t>("stride");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// VideoLoader

VideoLoader::FrameNum VideoLoader::FrameNumOf(const OpSpec& spec) {
  auto it = spec.args.find("enable_frame_num");
  if (it == spec.args.end()) return FrameNum::kNone;
  if (const bool* b = std::get_if<bool>(&it->second)) return *b ? FrameNum::kScalar : FrameNum::kNone;
  const std::string* v = std::get_if<std::string>(&it->second);
  return !v || *v == "none" ? FrameNum::kNone : *v == "sequence" ? FrameNum::kSequence : FrameNum::kScalar;
}

VideoLoader::VideoLoader(const OpSpec& spec)
    : ReaderOperator(spec),
      legacy_(IsLegacy(spec)),
      sequence_length_(Arg<int64_t>("sequence_length")),
      stride_(Arg<int64_t>("stride")),
      step_(StepOf(*this)),
      max_pixels_(Arg<int64_t>("max_pixels")),
      pad_(ParseVideoPad(Arg<std::string>("pad_mode"))) {
  const bool names = !Arg<std::vector<std::string>>("filenames").empty();
  const bool root = !Arg<std::string>("file_root").empty(), list = !Arg<std::string>("file_list").empty();
  if (int(names) + int(root && !list) + int(list) != 1)
    ThrowArgError("filenames", "give exactly one of filenames, file_root (class folders) and file_list");
  if (!names && !Arg<std::vector<int64_t>>("labels").empty())
    ThrowArgError("labels", "goes with filenames (file_root and file_list give their own labels)");
  InitEagerly();
}

VideoLoader::~VideoLoader() { StopLoader(); }

std::string VideoLoader::DatasetName() const {
  if (const auto f = Arg<std::vector<std::string>>("filenames"); !f.empty())
    return f.size() == 1 ? "filenames ['" + f[0] + "']" : "filenames [" + std::to_string(f.size()) + " files]";
  if (const auto l = Arg<std::string>("file_list"); !l.empty()) return "file_list '" + l + "'";
  return "file_root '" + Arg<std::string>("file_root") + "'";
}

std::vector<VideoLoader::Listed> VideoLoader::ListFiles() const {
  std::vector<Listed> out;
  const auto names = Arg<std::vector<std::string>>("filenames");
  const std::string root = Arg<std::string>("file_root"), list = Arg<std::string>("file_list");
  if (!list.empty()) {
    for (VideoListEntry& e : ReadVideoFileList(list, root)) {
      Listed l{e.path, e.label, e};
      out.push_back(std::move(l));
    }
    return out;
  }
  std::vector<FileLabel> listed;
  if (!names.empty()) {
    const auto labels = Arg<std::vector<int64_t>>("labels");
    if (!labels.empty() && labels.size() != names.size())
      ThrowArgError("labels", "has " + std::to_string(labels.size()) + " values for " + std::to_string(names.size()) +
                                  " filenames");
    listed = FilesWithLabels(names, labels.empty() ? std::vector<int64_t>(names.size(), 0) : labels, "");
  } else {
    listed = ListFileRoot(root, {"*.mp4", "*.mkv", "*.webm", "*.avi", "*.mov", "*.m4v", "*.mpg", "*.mpeg", "*.ts",
                                 "*.flv", "*.ogv", "*.h264", "*.hevc", "*.y4m"},
                          false);
  }
  for (FileLabel& fl : listed) out.push_back({std::move(fl.path), fl.label, {}});
  return out;
}

VideoRangeRule VideoLoader::RangeRule() const {
  VideoRangeRule r;
  r.legacy = legacy_;
  if (legacy_) {
    r.frames = Arg<bool>("file_list_frame_num");
    const bool preceding = Arg<bool>("file_list_include_preceding_frame");
    r.start_down = preceding;
    r.end_down = !preceding;
  } else {
    r.frames = Arg<std::string>("file_list_format") == "frames";
    const std::string rounding = Arg<std::string>("file_list_rounding");
    r.start_down = rounding == "start_down_end_up" || rounding == "all_down";
    r.end_down = rounding == "start_up_end_down" || rounding == "all_down";
    r.clamp_end = Arg<bool>("file_list_include_end");
  }
  return r;
}

int64_t VideoLoader::InitDataset() {
  const std::vector<Listed> listed = ListFiles();
  const VideoRangeRule rule = RangeRule();
  files_.clear();
  clips_.clear();
  const int64_t span = legacy_ ? (sequence_length_ - 1) * stride_ + 1 : sequence_length_ * stride_;
  for (const Listed& l : listed) {
    File f;
    f.path = l.path;
    f.label = l.label;
    int64_t first = 0, end = 0;
    try {
      f.index = kernels::VideoDecoder::FromFile(f.path, max_pixels_)->SharedIndex();
      if (!VideoFrameRange(l.range, *f.index, rule, &first, &end)) continue;  // empty: skipped, as DALI does
    } catch (const Error& e) {
      throw Error(e.message(), OpContext("", f.path));
    }
    const int32_t id = static_cast<int32_t>(files_.size());
    int64_t s = first;
    for (; s + span <= end; s += step_) clips_.push_back({id, s});
    // The frames the whole clips leave over make one padded clip (DALI's experimental reader).
    if (pad_ != VideoPad::kNone && s < end) clips_.push_back({id, s});
    files_.push_back(std::move(f));
  }
  if (clips_.empty())
    throw Error(DatasetName() + " holds no clip of sequence_length " + std::to_string(sequence_length_) +
                " and stride " + std::to_string(stride_) +
                " (every video or file_list range is shorter than one clip; pad_mode other than \"none\" pads them)");
  return static_cast<int64_t>(clips_.size());
}

void VideoLoader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                            const MemoryConfig& cfg) {
  TensorList& pos = outs[0];
  pos.Resize(std::vector<TensorShape>(indices.size(), TensorShape{}), DType::kInt64, cfg, true);
  for (size_t i = 0; i < indices.size(); ++i) {
    const int si = static_cast<int>(i);
    *pos.mutable_sample<int64_t>(si) = indices[i];
    SourceInfo& src = pos.source(si);
    src.path = files_[static_cast<size_t>(clips_[static_cast<size_t>(indices[i])].file)].path;
    src.member.clear();
    src.offset = -1;
  }
  pos.set_layout("");
}

// ---------------------------------------------------------------------------------------------
// VideoReader

VideoReader::VideoReader(const OpSpec& spec)
    : LoaderBackedReader(spec),
      labels_out_(HasLabels(spec)),
      timestamps_out_(Arg<bool>("enable_timestamps")),
      frame_num_(VideoLoader::FrameNumOf(spec)),
      sequence_length_(Arg<int64_t>("sequence_length")),
      stride_(Arg<int64_t>("stride")),
      pad_(ParseVideoPad(Arg<std::string>("pad_mode"))),
      decoding_(*this, ReplacesOnError(*this), /*image_type=*/true) {
  loader_ = std::make_unique<VideoLoader>(spec);
}

VideoReader::~VideoReader() { loader_.reset(); }

VideoDecoding::ParallelFor VideoReader::EachSample(Workspace& ws) {
  return [this, &ws](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); };
}

std::vector<OutputDesc> VideoReader::Setup(Workspace& ws) {
  Workspace lws = ws;
  lws.inputs_.clear();
  lws.arg_inputs_.clear();
  lws.outputs_ = {&positions_};
  loader_->Setup(lws);
  const int n = positions_.num_samples();
  batch_.assign(static_cast<size_t>(n), nullptr);
  samples_.clear();
  for (int i = 0; i < n; ++i) {
    const auto& clip = loader_->clips()[static_cast<size_t>(*positions_.sample<int64_t>(i))];
    const auto& file = loader_->files()[static_cast<size_t>(clip.file)];
    batch_[static_cast<size_t>(i)] = &clip;
    samples_.push_back({{}, file.path, file.index, positions_.source(i)});
  }
  auto plan = [&](int i, const kernels::VideoIndex& idx) {
    return ClipFrames(batch_[static_cast<size_t>(i)]->start, sequence_length_, stride_, idx.frames, pad_);
  };
  std::vector<OutputDesc> outs{decoding_.Setup(samples_, plan, EachSample(ws))};
  OutputDesc scalar;
  scalar.dtype = DType::kInt32;
  scalar.shapes.assign(size_t(n), TensorShape{1});
  scalar.contiguous = true;
  OutputDesc per_frame;  // one value per clip frame
  for (int i = 0; i < n; ++i) per_frame.shapes.push_back(TensorShape{outs[0].shapes[size_t(i)][0]});
  if (labels_out_) outs.push_back(scalar);
  if (frame_num_ == VideoLoader::FrameNum::kScalar) outs.push_back(scalar);
  if (frame_num_ == VideoLoader::FrameNum::kSequence) {
    per_frame.dtype = DType::kInt32;
    outs.push_back(per_frame);
  }
  if (timestamps_out_) {
    per_frame.dtype = DType::kFloat64;  // DALI's: seconds as double
    outs.push_back(per_frame);
  }
  return outs;
}

void VideoReader::Run(Workspace& ws) {
  decoding_.Run(ws, samples_, ws.Output(0), EachSample(ws));
  // Rows replaced (on_error="replace") take their stand-in's metadata, so the row stays consistent.
  std::vector<int> from(batch_.size());
  for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<int>(i);
  for (auto [bad, good] : decoding_.replacements()) from[static_cast<size_t>(bad)] = good;
  int next = 1;
  if (labels_out_) {
    TensorList& t = ws.Output(next++);
    for (size_t i = 0; i < batch_.size(); ++i)
      *t.mutable_sample<int32_t>(int(i)) = loader_->files()[size_t(batch_[size_t(from[i])]->file)].label;
  }
  if (frame_num_ == VideoLoader::FrameNum::kScalar) {
    TensorList& t = ws.Output(next++);
    for (size_t i = 0; i < batch_.size(); ++i)
      *t.mutable_sample<int32_t>(int(i)) = static_cast<int32_t>(batch_[size_t(from[i])]->start);
  }
  // Per-frame outputs: the frame each clip slot shows (-1: a constant padding frame), its time.
  const auto per_frame = [&](const auto& write) {
    TensorList& t = ws.Output(next++);
    for (size_t i = 0; i < batch_.size(); ++i) {
      const int r = from[i];
      if (static_cast<int>(i) != r) t.ResizeSample(int(i), t.shape(r), ws.memory());
      write(t, int(i), decoding_.index(r), decoding_.clip(r));
    }
  };
  if (frame_num_ == VideoLoader::FrameNum::kSequence)
    per_frame([](TensorList& t, int i, const kernels::VideoIndex*, const std::vector<int64_t>& frames) {
      int32_t* out = t.mutable_sample<int32_t>(i);
      for (size_t k = 0; k < frames.size(); ++k) out[k] = static_cast<int32_t>(frames[k]);
    });
  if (timestamps_out_)
    per_frame([](TensorList& t, int i, const kernels::VideoIndex* idx, const std::vector<int64_t>& frames) {
      double* out = t.mutable_sample<double>(i);
      for (size_t k = 0; k < frames.size(); ++k) out[k] = frames[k] < 0 || !idx ? -1.0 : idx->Seconds(frames[k]);
    });
  for (int o = 0; o < ws.num_outputs(); ++o)
    for (int i = 0; i < positions_.num_samples(); ++i) ws.Output(o).source(i) = positions_.source(i);
}

namespace {

OpSchema VideoReaderSchema(const std::string& name) {
  const bool legacy = name == "readers.video";
  OpSchema s(name);
  s.Doc("Reads clips of videos on the CPU, decoding with FFmpeg (H.264, HEVC, VP9, VP8, AV1, MPEG-4, ...): every "
        "clip of sequence_length frames, stride apart, starting every `step` frames, of every file (filenames, a "
        "file_root of class folders, or a file_list of \"path label [start [end]]\" lines). Frame k is the k-th "
        "frame a full decode outputs, for constant and variable frame rates. Outputs the clip (\"FHWC\", uint8), "
        "then the label (with labels, file_root or file_list), the frame numbers (enable_frame_num) and each "
        "frame's time in seconds (enable_timestamps)." +
        std::string(legacy ? " DALI runs readers.video on NVDEC only; this one runs on the CPU." : ""))
      .Output("video", "The clip: sequence_length x height x width x channels, uint8 (\"FHWC\").")
      .Output("labels", "The file's label (int32, shape [1]): with labels, file_root or file_list.")
      .Output("frame_num", "enable_frame_num: the clip's first frame number (int32, shape [1]; \"scalar\" or True), "
                           "or each clip frame's number (int32, one per frame, -1 for constant padding; "
                           "\"sequence\").")
      .Output("timestamps", "enable_timestamps: each clip frame's time in seconds from the video's first frame "
                            "(float64, one per frame; -1 for constant padding frames).")
      .NumOutputsFn([](const OpSpec& spec) {
        return 1 + int(HasLabels(spec)) + int(VideoLoader::FrameNumOf(spec) != VideoLoader::FrameNum::kNone) +
               int(FlagOf(spec, "enable_timestamps"));
      })
      .Arg("filenames", ArgType::kStringList, std::vector<std::string>{}, "The video files to read.")
      .Arg("labels", ArgType::kIntList, std::vector<int64_t>{}, "One label per file of filenames.")
      .Arg("file_root", ArgType::kString, std::string(""),
           "A folder of class folders (sorted: labels 0, 1, ...) holding the videos; with file_list, the folder "
           "its paths are relative to.")
      .Arg("file_list", ArgType::kString, std::string(""),
           "A text file of \"path label [start [end]]\" lines (paths relative to file_root if given, else to the "
           "list's folder): start and end (end exclusive) limit the file's frames the clips are cut from" +
               std::string(legacy ? " -- seconds, or frame numbers with file_list_frame_num; negative values count "
                                    "from the end; a start alone runs to the end."
                                  : " -- as file_list_format says; a range that is empty (a start alone is one) "
                                    "skips the line."))
      .Arg("sequence_length", ArgType::kInt, std::nullopt, "Frames per clip.")
      .Min(1)
      .Arg("stride", ArgType::kInt, int64_t{1}, "The distance between consecutive frames of a clip.")
      .Min(1)
      .Arg("step", ArgType::kInt, int64_t{-1},
           std::string("The distance between the first frames of consecutive clips of a file (<= 0: sequence_length "
                       "x stride). Clips are cut while ") +
               (legacy ? "their frames, first to last, fit in the file's range."
                       : "sequence_length x stride frames from their first one fit in the file's range."))
      .Arg("enable_frame_num", ArgType::kString, std::string("none"),
           "Output frame numbers: \"none\" (or False), \"scalar\" (or True: the clip's first frame, shape [1]) "
           "or \"sequence\" (each clip frame's number, -1 for constant padding).")
      .Enum({"none", "scalar", "sequence"})  // a bool is taken for the first two (arg_constraint.cc)
      .Arg("enable_timestamps", ArgType::kBool, false, "Output each clip frame's time in seconds (float64).");
  if (legacy) {
    s.Arg("file_list_frame_num", ArgType::kBool, false,
          "file_list start and end are frame numbers (truncated to integers), not seconds.")
        .Arg("file_list_include_preceding_frame", ArgType::kBool, false,
             "file_list times in seconds: the start frame is floor(start x fps) and the end ceil(end x fps), not "
             "ceil and floor.");
  } else {
    s.Arg("file_list_format", ArgType::kString, std::string("timestamps"),
          "How file_list start and end are read: \"frames\" (frame numbers, fractions rounded by "
          "file_list_rounding) or \"timestamps\" (seconds on the container's clock: the frame at or before, or at or "
          "after, each time by file_list_rounding; a time past the last frame means frame 0, as in DALI).")
        .Enum({"frames", "timestamps"})
        .Arg("file_list_rounding", ArgType::kString, std::string("start_down_end_up"),
             "How a file_list start or end between two frames is rounded.")
        .Enum({"start_down_end_up", "start_up_end_down", "all_up", "all_down"})
        .Arg("file_list_include_end", ArgType::kBool, true,
             "Clamp a file_list end past the video's last frame to its frame count (False: such an end is an "
             "error, as DALI's decoding fails on it).");
  }
  // Whole clips only by default: DALI's readers skip the frames left over after the last whole clip.
  AddVideoClipArgs(s, /*image_type=*/true, /*pad_default=*/"none");
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<VideoReader>(spec); });
  return s;
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterVideoReaders) {
  r.Register(VideoReaderSchema("readers.video"));
  r.Register(VideoReaderSchema("experimental.readers.video"));
}

}  // namespace sluice
