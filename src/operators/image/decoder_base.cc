#include "operators/image/decoder_base.h"

#include <algorithm>
#include <cstring>

namespace sluice {
namespace {

constexpr size_t kMaxLogEntries = 10000;

kernels::OutputColor ParseOutputType(const std::string& s, const Operator& op) {
  std::string u;
  for (char c : s) u += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (u.rfind("TYPES.", 0) == 0) u = u.substr(6);
  if (u == "RGB") return kernels::OutputColor::kRGB;
  if (u == "BGR") return kernels::OutputColor::kBGR;
  if (u == "GRAY") return kernels::OutputColor::kGray;
  if (u == "YCBCR") return kernels::OutputColor::kYCbCr;
  if (u == "ANY_DATA") return kernels::OutputColor::kAnyData;
  Error::Context c;
  c.op = op.name();
  c.argument = "output_type";
  throw Error("unknown output_type '" + s + "' (expected RGB, BGR, GRAY, YCbCr or ANY_DATA)", c);
}

}  // namespace

OpSchema& AddDecoderArgs(OpSchema& s) {
  return s.Input("data", "Encoded images (uint8, 1-D): JPEG, PNG, WebP, BMP or PNM; the format is detected from the bytes.",
                 {DType::kUInt8})
      .Output("images", "Decoded images, HWC uint8.")
      .Arg("output_type", ArgType::kString, std::string("RGB"), "Colour format of the output: RGB, BGR, GRAY, YCbCr or ANY_DATA (the image's own channels).")
      .Arg("dtype", ArgType::kDType, std::string("uint8"), "Output type; only uint8 is supported.")
      .Arg("adjust_orientation", ArgType::kBool, true, "Apply the EXIF orientation of JPEG files.")
      .Arg("use_fast_idct", ArgType::kBool, false, "Use libjpeg-turbo's fast integer IDCT (less accurate).")
      .Arg("max_pixels", ArgType::kInt, int64_t{1} << 28,
           "Largest image (width x height) accepted; bigger images are an error before any memory is allocated (decompression bombs).")
      .Arg("on_error", ArgType::kString, std::string("raise"),
           "What a sample that cannot be decoded does: \"raise\" stops the pipeline with an error naming the sample; "
           "\"replace\" substitutes another sample of the same batch that decoded (batch sizes stay equal across ranks), "
           "counts it in the statistics and logs its source and error (Pipeline.error_log()). A batch where nothing decodes is an error.")
      .Arg("decode_size_hint", ArgType::kIntList, std::vector<int64_t>{0, 0},
           "[height, width] the decoded image (or crop window) may be reduced to: JPEGs are then decoded at the smallest DCT scale "
           "(1/8, 1/4, 1/2) that keeps both extents at or above it. [0, 0] decodes at full resolution. Set automatically when "
           "the decoder feeds a resize directly (see `scaled_decode`).")
      .Arg("scaled_decode", ArgType::kBool, true,
           "Let the pipeline set decode_size_hint when this decoder feeds only a resize to a fixed size.")
      // Accepted so that DALI pipelines port unchanged; they tune the GPU decoder only.
      .Arg("device_memory_padding", ArgType::kInt, int64_t{16} << 20, "GPU decoder only; no effect on the CPU.")
      .Arg("host_memory_padding", ArgType::kInt, int64_t{8} << 20, "GPU decoder only; no effect on the CPU.")
      .Arg("hw_decoder_load", ArgType::kFloat, 0.65, "GPU decoder only; no effect on the CPU.")
      .Arg("preallocate_width_hint", ArgType::kInt, int64_t{0}, "GPU decoder only; no effect on the CPU.")
      .Arg("preallocate_height_hint", ArgType::kInt, int64_t{0}, "GPU decoder only; no effect on the CPU.")
      .Arg("affine", ArgType::kBool, true, "GPU decoder thread affinity; no effect on the CPU.")
      .Arg("split_stages", ArgType::kBool, false, "Deprecated in DALI; no effect.")
      .Arg("memory_stats", ArgType::kBool, false, "GPU decoder only; no effect on the CPU.");
}

ImageDecoderBase::ImageDecoderBase(const OpSpec& spec) : Operator(spec) {
  base_.output_type = ParseOutputType(Arg<std::string>("output_type"), *this);
  if (Arg<DType>("dtype") != DType::kUInt8) ThrowArgError("dtype", "only uint8 output is supported");
  base_.adjust_orientation = Arg<bool>("adjust_orientation");
  base_.use_fast_idct = Arg<bool>("use_fast_idct");
  base_.max_pixels = Arg<int64_t>("max_pixels");
  if (base_.max_pixels <= 0) ThrowArgError("max_pixels", "must be positive");
  auto hint = Arg<std::vector<int64_t>>("decode_size_hint");
  if (hint.size() != 2 || hint[0] < 0 || hint[1] < 0) ThrowArgError("decode_size_hint", "expected [height, width] >= 0");
  base_.target_height = static_cast<int>(hint[0]);
  base_.target_width = static_cast<int>(hint[1]);
  const std::string on_error = Arg<std::string>("on_error");
  if (on_error == "replace") replace_on_error_ = true;
  else if (on_error != "raise") ThrowArgError("on_error", "expected \"raise\" or \"replace\", got \"" + on_error + "\"");
}

void ImageDecoderBase::Fail(int sample, const std::string& what) { samples_[static_cast<size_t>(sample)].error = what; }

std::vector<OutputDesc> ImageDecoderBase::Setup(Workspace& ws) {
  const TensorList& in = ws.Input(0);
  const int n = in.num_samples();
  samples_.assign(static_cast<size_t>(n), SampleState{});
  PrepareBatch(ws);
  ForEachSample(ws, [&](int i, int) {
    SampleState& st = samples_[static_cast<size_t>(i)];
    try {
      if (in.shape(i).ndim() != 1) throw Error("expected encoded bytes (1-D), got shape " + in.shape(i).ToString());
      std::span<const uint8_t> bytes(in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements()));
      const kernels::ImageInfo info = kernels::PeekImage(bytes);
      const bool swap = base_.adjust_orientation && info.orientation >= 5;
      const int h = swap ? info.width : info.height, w = swap ? info.height : info.width;
      st.params = base_;
      st.params.roi = Window(ws, i, h, w);
      st.plan = kernels::PlanDecode(info, st.params);
    } catch (const Error& e) {
      if (!replace_on_error_) throw;
      Fail(i, e.message());
    }
  });
  OutputDesc d;
  d.dtype = DType::kUInt8;
  d.layout = "HWC";
  for (const auto& st : samples_) {
    const int c = st.plan.channels ? st.plan.channels : 3;
    d.shapes.push_back(st.error.empty() ? TensorShape{st.plan.height, st.plan.width, st.plan.channels} : TensorShape{0, 0, c});
  }
  return {d};
}

void ImageDecoderBase::Run(Workspace& ws) {
  const TensorList& in = ws.Input(0);
  TensorList& out = ws.Output(0);
  ForEachSample(ws, [&](int i, int) {
    SampleState& st = samples_[static_cast<size_t>(i)];
    if (!st.error.empty()) return;
    try {
      std::span<const uint8_t> bytes(in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements()));
      kernels::DecodeImage(bytes, st.params, out.mutable_sample<uint8_t>(i), out.sample_bytes(i));
    } catch (const Error& e) {
      if (!replace_on_error_) throw;
      Fail(i, e.message());
    }
  });
  if (replace_on_error_) ReplaceFailed(ws);
}

void ImageDecoderBase::ReplaceFailed(Workspace& ws) {
  const int n = static_cast<int>(samples_.size());
  std::vector<int> ok;
  for (int i = 0; i < n; ++i)
    if (samples_[static_cast<size_t>(i)].error.empty()) ok.push_back(i);
  if (static_cast<int>(ok.size()) == n) return;
  if (ok.empty()) {
    Error::Context c;
    c.sample = 0;
    c.source = ws.Input(0).source(0).ToString();
    throw Error("no sample of the batch could be decoded (on_error=\"replace\" needs at least one); first error: " +
                    samples_[0].error,
                c);
  }
  TensorList& out = ws.Output(0);
  std::lock_guard lk(log_mu_);
  for (int i = 0; i < n; ++i) {
    if (samples_[static_cast<size_t>(i)].error.empty()) continue;
    // The next sample that decoded, wrapping around: deterministic whatever the thread count.
    auto it = std::upper_bound(ok.begin(), ok.end(), i);
    const int r = it == ok.end() ? ok.front() : *it;
    out.ResizeSample(i, out.shape(r), ws.memory());
    std::memcpy(out.raw_mutable_sample(i), out.raw_sample(r), out.sample_bytes(r));
    SampleErrorRecord rec;
    rec.op = name();
    rec.iteration = ws.iteration();
    rec.sample = i;
    rec.source = ws.Input(0).source(i).ToString();
    rec.error = samples_[static_cast<size_t>(i)].error;
    rec.replaced_by = r;
    log_.push_back(std::move(rec));
    if (log_.size() > kMaxLogEntries) log_.pop_front();
    ++replaced_;
  }
}

std::vector<SampleErrorRecord> ImageDecoderBase::error_log() const {
  std::lock_guard lk(log_mu_);
  return {log_.begin(), log_.end()};
}

int64_t ImageDecoderBase::replaced_samples() const {
  std::lock_guard lk(log_mu_);
  return replaced_;
}

}  // namespace sluice
