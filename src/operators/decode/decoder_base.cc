#include "operators/decode/decoder_base.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/color/color_space.h"
#include "operators/on_error_arg.h"
#include "operators/registry.h"
#include "operators/stand_in_samples.h"

namespace sluice {
namespace {

// output_type's spellings, in DALIImageType's order (an integer i names kColorNames[i]).
const std::vector<std::string> kColorNames = {"RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"};
constexpr kernels::OutputColor kColors[] = {kernels::OutputColor::kRGB, kernels::OutputColor::kBGR,
                                            kernels::OutputColor::kGray, kernels::OutputColor::kYCbCr,
                                            kernels::OutputColor::kAnyData};

kernels::OutputColor ColorOf(const std::string& s) {
  return kColors[std::find(kColorNames.begin(), kColorNames.end(), s) - kColorNames.begin()];  // schema-checked
}

}  // namespace

OpSchema& AddDecoderArgs(OpSchema& s, bool windowed) {
  const std::string scaled_doc =
      windowed ? "Opt-in: by default each window is decoded exactly, bit for bit (a decode_size_hint given by hand "
                 "applies either way). With True, when this decoder feeds only a resize to a fixed size, each JPEG's "
                 "window is decoded at the smallest DCT scale (1/8, 1/4, 1/2) that keeps both of its extents at or "
                 "above the resize's output, so only windows at least about twice that size are reduced. The window's "
                 "edges are scaled and rounded to the nearest whole scaled pixel: the output covers the same part of "
                 "the image as the exact decode, to within half a scaled pixel. The windows drawn do not depend on "
                 "this argument (random_crop: same seed, same windows); pixels differ (PSNR against the exact decode: "
                 "docs/benchmarks.md, \"Scaled ROI decode on 12-megapixel photographs\"). Not DALI's."
               : "Let the pipeline set decode_size_hint when this decoder feeds only a resize to a fixed size.";
  AddOnErrorArg(s, "cannot be decoded", "the operator and the sample's source", "decoded");
  return s.Input("data", "Encoded images (uint8, 1-D): JPEG, PNG, WebP, BMP or PNM; the format is detected from the bytes.",
                 {DType::kUInt8})
      .Output("images", "Decoded images, HWC uint8.")
      .Arg("output_type", ArgType::kString, std::string("RGB"), "Colour format of the output (ANY_DATA: the image's own channels).")
      .Enum(kColorNames, true)
      .Arg("dtype", ArgType::kDType, std::string("uint8"), "Output type; only uint8 is supported.")
      .Enum({"uint8"})
      .Arg("adjust_orientation", ArgType::kBool, true, "Apply the EXIF orientation of JPEG files.")
      .Arg("use_fast_idct", ArgType::kBool, false, "Use libjpeg-turbo's fast integer IDCT (less accurate).")
      .Arg("max_pixels", ArgType::kInt, int64_t{1} << 28,
           "Largest image (width x height) accepted; bigger images are an error before any memory is allocated (decompression bombs).")
      .Min(1)
      .Arg("decode_size_hint", ArgType::kIntList, std::vector<int64_t>{0, 0},
           "[height, width] the decoded image (or crop window) may be reduced to: JPEGs are then decoded at the smallest DCT scale "
           "(1/8, 1/4, 1/2) that keeps both extents at or above it. [0, 0] decodes at full resolution. Set automatically when "
           "the decoder feeds a resize directly (see `scaled_decode`).")
      .Count({2}).Min(0)
      .Arg("scaled_decode", ArgType::kBool, !windowed, scaled_doc)
      .AcceptsSizeHint("decode_size_hint", "scaled_decode")
      .Arg("roi_decode", ArgType::kBool, true,
           "decoders.image: let the pipeline decode only the part of each JPEG that the output uses when this "
           "decoder feeds only a resize whose output feeds only a fixed crop (validation: resize_shorter, then a "
           "center crop): rows above the part are skipped, rows below it are never decoded, columns are cropped. "
           "The output is unchanged bit for bit. No effect on decoders.image_crop and decoders.image_random_crop, "
           "which decode their own window.")
      .Arg("roi_decode_rule", ArgType::kStringList, std::vector<std::string>{},
           "Set by the pipeline (see `roi_decode`): the operators after the decoder, from which it finds the part "
           "to decode. With it the decoder has a second output, per sample [y, x, full_height, full_width] of the "
           "decoded part (int64).")
      // The mixed decoder's nvJPEG settings (DALI's); the CPU decoders accept them so that DALI
      // pipelines port unchanged.
      .Arg("nvjpeg", ArgType::kBool, true,
           "device=\"mixed\": decode JPEGs with nvJPEG (the GPU's JPEG engines and nvJPEG's hybrid backends) where the "
           "library and the device allow; False decodes every image on the host and uploads it. Other formats, CMYK, "
           "EXIF-rotated and YCbCr-output images are decoded on the host either way. No effect on the CPU.")
      .Arg("device_memory_padding", ArgType::kInt, int64_t{16} << 20,
           "device=\"mixed\": nvJPEG's device buffers grow in steps of this many bytes. No effect on the CPU.")
      .Min(0)
      .Arg("host_memory_padding", ArgType::kInt, int64_t{8} << 20,
           "device=\"mixed\": nvJPEG's pinned host buffers grow in steps of this many bytes. No effect on the CPU.")
      .Min(0)
      .Arg("hw_decoder_load", ArgType::kFloat, 0.65,
           "device=\"mixed\": the share of each batch (0..1) that the GPU's JPEG engines decode, taken from the "
           "images they support, in batch order; the rest goes to nvJPEG's hybrid backends on the thread pool. "
           "0 never opens the hardware decoder. No effect on the CPU or on GPUs without JPEG engines.")
      .Range(0, 1)
      .Arg("preallocate_width_hint", ArgType::kInt, int64_t{0},
           "device=\"mixed\": with preallocate_height_hint, sizes nvJPEG's buffers for images this large up front. "
           "No effect on the CPU.")
      .Min(0)
      .Arg("preallocate_height_hint", ArgType::kInt, int64_t{0}, "See preallocate_width_hint. No effect on the CPU.")
      .Min(0)
      .Arg("affine", ArgType::kBool, true, "GPU decoder thread affinity; no effect on the CPU.")
      .Arg("split_stages", ArgType::kBool, false, "Deprecated in DALI; no effect.")
      .Arg("memory_stats", ArgType::kBool, false, "GPU decoder only; no effect on the CPU.")
      .Arg("device_memory_padding_jpeg2k", ArgType::kInt, int64_t{0}, "GPU decoder only; no effect on the CPU.")
      .Arg("host_memory_padding_jpeg2k", ArgType::kInt, int64_t{0}, "GPU decoder only; no effect on the CPU.")
      .Arg("hybrid_huffman_threshold", ArgType::kInt, int64_t{1000000},
           "device=\"mixed\": images of more pixels than this that the JPEG engines do not take have their Huffman "
           "decoding done on the GPU (nvJPEG's GPU_HYBRID backend, sequential JPEGs only); smaller ones on the thread "
           "pool. No effect on the CPU.")
      .Min(0)
      .Arg("jpeg_fancy_upsampling", ArgType::kBool, false,
           "Makes DALI's GPU decoder upsample chroma like its CPU decoder; the CPU decoder always does (no effect).")
      .Arg("use_chunk_allocator", ArgType::kBool, false, "Deprecated in DALI; no effect.");
}

kernels::OutputColor DecoderOutputColor(const Operator& op) { return ColorOf(op.Arg<std::string>("output_type")); }
const std::vector<std::string>& ImageTypeNames() { return kColorNames; }
kernels::OutputColor ImageTypeColor(const std::string& name) { return ColorOf(name); }

ImageDecoding::ImageDecoding(const Operator& op, bool reduced_scale) : window_(MakeDecodeWindow(op)) {
  base_.output_type = DecoderOutputColor(op);
  base_.adjust_orientation = op.Arg<bool>("adjust_orientation");
  base_.use_fast_idct = op.Arg<bool>("use_fast_idct");
  base_.max_pixels = op.Arg<int64_t>("max_pixels");
  auto hint = op.Arg<std::vector<int64_t>>("decode_size_hint");
  base_.target_height = reduced_scale ? static_cast<int>(hint[0]) : 0;
  base_.target_width = reduced_scale ? static_cast<int>(hint[1]) : 0;
  replace_on_error_ = ReplacesOnError(op);
  const OpSchema* schema = OperatorRegistry::Get().Find(op.spec().op);
  auto it = op.spec().args.find("roi_decode_rule");
  if (it != op.spec().args.end() && op.spec().device == "cpu" && schema && schema->windowed_output()) {
    const auto& chain = std::get<std::vector<std::string>>(it->second);
    if (!chain.empty()) roi_rule_ = std::make_unique<RoiRule>(chain, op.name(), "roi_decode_rule");
  }
}

OutputDesc ImageDecoding::Setup(const Operator& op, const Workspace& ws, const ParallelFor& for_each) {
  const TensorList& in = ws.Input(0);
  const int n = in.num_samples();
  samples_.assign(static_cast<size_t>(n), SampleState{});
  window_->PrepareBatch(op, ws);
  for_each([&](int i, int) {
    SampleState& st = samples_[static_cast<size_t>(i)];
    try {
      if (in.shape(i).ndim() != 1) throw Error("expected encoded bytes (1-D), got shape " + in.shape(i).ToString());
      std::span<const uint8_t> bytes(in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements()));
      const kernels::ImageInfo& info = st.info = kernels::PeekImage(bytes);
      const bool swap = base_.adjust_orientation && info.orientation >= 5;
      const int h = swap ? info.width : info.height, w = swap ? info.height : info.width;
      st.params = base_;
      st.params.roi = window_->Window(op, ws, i, h, w);
      st.plan = kernels::PlanDecode(info, st.params);
      if (roi_rule_) {
        // The consumers' window of the image as decoded whole (at the scale chosen for it);
        // JPEG only: other formats decode whole anyway.
        const int fh = st.plan.height, fw = st.plan.width;
        const kernels::CropWindow win = info.format == kernels::ImageFormat::kJpeg && !st.params.roi
                                            ? roi_rule_->Window(fh, fw)
                                            : kernels::CropWindow{0, 0, fw, fh};
        if (win.x != 0 || win.y != 0 || win.w != fw || win.h != fh) {
          st.params.scaled_roi = win;
          st.plan = kernels::PlanDecode(info, st.params);
        }
        st.window = {win.y, win.x, fh, fw};
      }
    } catch (const Error& e) {
      if (!replace_on_error_) throw;
      st.error = e.message();
    }
  });
  OutputDesc d;
  d.dtype = DType::kUInt8;
  d.layout = "HWC";
  for (const auto& st : samples_) {
    const int c = st.plan.channels ? st.plan.channels : 3;
    d.shapes.push_back(st.error.empty() ? TensorShape{st.plan.height, st.plan.width, st.plan.channels} : TensorShape{0, 0, c});
  }
  return d;
}

void ImageDecoding::Run(const Operator& op, const Workspace& ws, TensorList& out, const ParallelFor& for_each) {
  for_each([&](int i, int) { DecodeSample(ws, i, out); });
  if (replace_on_error_) ReplaceFailed(op, ws, out);
}

void ImageDecoding::DecodeSample(const Workspace& ws, int i, TensorList& out) {
  SampleState& st = samples_[static_cast<size_t>(i)];
  if (!st.error.empty()) return;
  const TensorList& in = ws.Input(0);
  try {
    std::span<const uint8_t> bytes(in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements()));
    if (st.params.output_type == kernels::OutputColor::kYCbCr) {
      // DALI 2.4's YCbCr is its RGB decode converted as color_space_conversion converts (BT.601,
      // studio range), not JPEG's own full-range YCbCr: decode RGB, then the same kernel.
      kernels::DecodeParams rgb_params = st.params;
      rgb_params.output_type = kernels::OutputColor::kRGB;
      std::vector<uint8_t> rgb(out.sample_bytes(i));
      kernels::DecodeImage(bytes, st.info, rgb_params, rgb.data(), rgb.size());
      kernels::ConvertColorSpace(rgb.data(), kernels::ColorSpace::kRGB, out.mutable_sample<uint8_t>(i),
                                 kernels::ColorSpace::kYCbCr, DType::kUInt8, rgb.size() / 3);
    } else {
      kernels::DecodeImage(bytes, st.info, st.params, out.mutable_sample<uint8_t>(i), out.sample_bytes(i));
    }
  } catch (const Error& e) {
    if (!replace_on_error_) throw;
    st.error = e.message();
  }
}

std::vector<std::pair<int, int>> ImageDecoding::Replacements(const Operator& op, const Workspace& ws) {
  auto pairs = PickStandIns(
      static_cast<int>(samples_.size()), [&](int i) -> const std::string& { return samples_[static_cast<size_t>(i)].error; },
      [&](int i) -> const SourceInfo& { return ws.Input(0).source(i); }, ws);
  for (const auto& [i, r] : pairs) samples_[static_cast<size_t>(i)].window = samples_[static_cast<size_t>(r)].window;
  return pairs;
}

void ImageDecoding::ReplaceFailed(const Operator& op, const Workspace& ws, TensorList& out) {
  CopyStandIns(Replacements(op, ws), out, ws);
}

OutputDesc ImageDecoding::WindowDesc() const {
  OutputDesc d;
  d.dtype = DType::kInt64;
  d.shapes.assign(samples_.size(), TensorShape{4});
  d.contiguous = true;
  return d;
}

void ImageDecoding::WriteWindows(TensorList& out) const {
  for (size_t i = 0; i < samples_.size(); ++i)
    std::copy(samples_[i].window.begin(), samples_[i].window.end(), out.mutable_sample<int64_t>(static_cast<int>(i)));
}

std::vector<OutputDesc> ImageDecoderOp::Setup(Workspace& ws) {
  OutputDesc images = decoding_.Setup(*this, ws, [&](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); });
  if (!decoding_.has_roi_rule()) return {images};
  return {images, decoding_.WindowDesc()};
}

void ImageDecoderOp::Run(Workspace& ws) {
  decoding_.Run(*this, ws, ws.Output(0), [&](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); });
  if (decoding_.has_roi_rule()) decoding_.WriteWindows(ws.Output(1));
}

}  // namespace sluice
