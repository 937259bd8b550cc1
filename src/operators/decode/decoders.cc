// decoders.image, decoders.image_random_crop, decoders.image_crop.
#include <algorithm>
#include <cmath>

#include "kernels/crop/random_crop_window.h"
#include "operators/decode/decoder_base.h"
#include "operators/crop/crop_args.h"
#include "operators/crop/random_crop_args.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class WholeImage : public DecodeWindow {
 public:
  std::optional<kernels::CropWindow> Window(const Operator&, const Workspace&, int, int, int) const override {
    return std::nullopt;
  }
};

// DALI's random-resized-crop window.
class RandomWindow : public DecodeWindow {
 public:
  explicit RandomWindow(const Operator& op) : params_(RandomCropParamsFrom(op)) {}
  std::optional<kernels::CropWindow> Window(const Operator&, const Workspace& ws, int i, int h, int w) const override {
    RandomGenerator rng = ws.SampleRng(i);
    return kernels::RandomCropWindow(h, w, params_, [&] { return rng.Uniform01(); });
  }

 private:
  kernels::RandomCropParams params_;
};

// A fixed window (crop, crop_pos_x/y), clamped to the image.
class FixedWindow : public DecodeWindow {
 public:
  void PrepareBatch(const Operator& op, const Workspace& ws) override { crop_ = ReadCropArgs(op, ws); }
  std::optional<kernels::CropWindow> Window(const Operator& op, const Workspace&, int i, int h, int w) const override {
    // Decoding can only produce pixels of the image: keep the part of the window inside it.
    const kernels::CropWindow win = kernels::ClampToImage(ResolveCrop(crop_, i, h, w, op.name()), h, w);
    if (win.w == 0 || win.h == 0) throw Error("the crop window lies outside the image");
    return win;
  }

 private:
  CropArgs crop_;
};

// decoders.image_slice: the window given by the anchor and shape inputs (as slice's positional
// inputs, in the order of axis_names / axes; float values relative to the extent when
// normalized_anchor / normalized_shape, integers absolute), with slice's rounding: start =
// llround(anchor), end = llround(anchor + shape) (relative: llround((a + s) * extent)).
// out_of_bounds_policy "error" (DALI's default) rejects a window outside the image,
// "trim_to_shape" trims it; "pad" cannot be decoded and is rejected when the pipeline is built.
class SliceWindow : public DecodeWindow {
 public:
  explicit SliceWindow(const Operator& op)
      : normalized_anchor_(op.Arg<bool>("normalized_anchor")),
        normalized_shape_(op.Arg<bool>("normalized_shape")),
        trim_(op.Arg<std::string>("out_of_bounds_policy") == "trim_to_shape") {
    if (op.Arg<std::string>("out_of_bounds_policy") == "pad")
      op.ThrowArgError("out_of_bounds_policy", "\"pad\" is not supported by the decoder (decode, then use slice)");
    // Which image axis (0: H, 1: W) each value of anchor/shape is for.
    if (op.HasArg("axes") && !op.HasArg("axis_names")) {
      for (int64_t a : op.Arg<std::vector<int64_t>>("axes")) {
        if (a != 0 && a != 1) op.ThrowArgError("axes", "only the image's height (0) and width (1) can be sliced");
        axes_.push_back(static_cast<int>(a));
      }
    } else {
      for (char c : op.Arg<std::string>("axis_names")) {
        if (c != 'H' && c != 'W') op.ThrowArgError("axis_names", "only H and W can be sliced by the decoder");
        axes_.push_back(c == 'H' ? 0 : 1);
      }
    }
    if (axes_.empty() || axes_.size() > 2 || (axes_.size() == 2 && axes_[0] == axes_[1]))
      op.ThrowArgError("axis_names", "expected one or two distinct axes among H and W");
  }
  void PrepareBatch(const Operator& op, const Workspace& ws) override {
    const TensorList& anchor = ws.Input(1);
    const TensorList& shape = ws.Input(2);
    const int n = ws.Input(0).num_samples();
    if (anchor.num_samples() != n || shape.num_samples() != n)
      throw Error("the anchor and shape inputs must have one sample per image");
    if (anchor.dtype() != shape.dtype())
      throw Error("the anchor and shape inputs must have the same type, got " + std::string(ToString(anchor.dtype())) +
                  " and " + std::string(ToString(shape.dtype())));
    const bool is_float = anchor.dtype() == DType::kFloat32 || anchor.dtype() == DType::kFloat64 ||
                          anchor.dtype() == DType::kFloat16;
    rel_anchor_ = is_float && normalized_anchor_;
    rel_shape_ = is_float && normalized_shape_;
    values_.assign(static_cast<size_t>(n), {});
    const auto na = static_cast<int64_t>(axes_.size());
    for (int i = 0; i < n; ++i) {
      if (anchor.shape(i).num_elements() != na || shape.shape(i).num_elements() != na)
        throw Error("sample " + std::to_string(i) + ": anchor and shape need " + std::to_string(na) +
                    " values (one per sliced axis), got " + std::to_string(anchor.shape(i).num_elements()) + " and " +
                    std::to_string(shape.shape(i).num_elements()));
      for (int64_t k = 0; k < na; ++k) {
        values_[static_cast<size_t>(i)].push_back(detail::ReadElement<double>(anchor, i, k));
        values_[static_cast<size_t>(i)].push_back(detail::ReadElement<double>(shape, i, k));
      }
    }
  }
  std::optional<kernels::CropWindow> Window(const Operator&, const Workspace&, int i, int h, int w) const override {
    int64_t lo[2] = {0, 0}, hi[2] = {h, w};
    const auto& v = values_[static_cast<size_t>(i)];
    for (size_t k = 0; k < axes_.size(); ++k) {
      const int axis = axes_[k];
      const double extent = axis == 0 ? h : w, a = v[2 * k], s = v[2 * k + 1];
      if (!std::isfinite(a) || !std::isfinite(s) || s < 0 || std::abs(a) > 1e15 || std::abs(s) > 1e15)
        throw Error("the slice anchor/shape (" + std::to_string(a) + ", " + std::to_string(s) + ") is not valid");
      double start, end;
      if (rel_anchor_ && rel_shape_) {
        start = a * extent;
        end = (a + s) * extent;
      } else {
        start = rel_anchor_ ? a * extent : a;
        end = start + (rel_shape_ ? s * extent : s);
      }
      lo[axis] = std::llround(start);
      hi[axis] = std::llround(end);
    }
    if (!trim_ && (lo[0] < 0 || lo[1] < 0 || hi[0] > h || hi[1] > w))
      throw Error("the slice [" + std::to_string(lo[0]) + ", " + std::to_string(hi[0]) + ") x [" + std::to_string(lo[1]) + ", " +
                  std::to_string(hi[1]) + ") is outside the " + std::to_string(h) + "x" + std::to_string(w) +
                  " image (out_of_bounds_policy=\"error\"; \"trim_to_shape\" trims it)");
    for (int d = 0; d < 2; ++d) {
      const int64_t ext = d == 0 ? h : w;
      lo[d] = std::clamp<int64_t>(lo[d], 0, ext);
      hi[d] = std::clamp<int64_t>(hi[d], lo[d], ext);
    }
    if (hi[0] == lo[0] || hi[1] == lo[1]) throw Error("the slice window is empty");
    kernels::CropWindow win;
    win.y = static_cast<int>(lo[0]);
    win.x = static_cast<int>(lo[1]);
    win.h = static_cast<int>(hi[0] - lo[0]);
    win.w = static_cast<int>(hi[1] - lo[1]);
    return win;
  }

 private:
  const bool normalized_anchor_, normalized_shape_, trim_;
  std::vector<int> axes_;
  bool rel_anchor_ = true, rel_shape_ = true;
  std::vector<std::vector<double>> values_;  // per sample: anchor, shape per axis
};

}  // namespace

std::unique_ptr<DecodeWindow> MakeDecodeWindow(const Operator& op) {
  if (op.spec().op == "decoders.image_slice") return std::make_unique<SliceWindow>(op);
  if (op.spec().op == "decoders.image_random_crop") return std::make_unique<RandomWindow>(op);
  if (op.spec().op == "decoders.image_crop") return std::make_unique<FixedWindow>();
  return std::make_unique<WholeImage>();
}

SLUICE_REGISTER_OPERATORS(RegisterDecoders) {
  OpSchema image("decoders.image");
  image.Doc("Decodes images (JPEG with libjpeg-turbo, PNG, WebP, BMP, PNM) into HWC uint8. Grayscale, CMYK and "
            "progressive JPEGs are supported and EXIF orientation is applied.")
      .ProducesWindows("roi_decode_rule", "roi_decode")
      .NumOutputsFn([](const OpSpec& s) {
        auto it = s.args.find("roi_decode_rule");
        const auto* chain = it == s.args.end() ? nullptr : std::get_if<std::vector<std::string>>(&it->second);
        return s.device == "cpu" && chain && !chain->empty() ? 2 : 1;
      })
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  r.Register(std::move(AddDecoderArgs(image)));

  OpSchema rc("decoders.image_random_crop");
  rc.Doc("Decodes a random crop of each image (DALI's random-resized-crop window), decoding only that window: "
         "JPEG rows above and below it are skipped and columns cropped to iMCU boundaries.")
      .Random()
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  AddRandomCropArgs(rc, "crop");
  r.Register(std::move(AddDecoderArgs(rc, /*windowed=*/true)));

  OpSchema crop("decoders.image_crop");
  crop.Doc("Decodes a fixed window of each image (crop, crop_pos_x, crop_pos_y), decoding only that window. A window "
           "extending past the image is clamped to it.")
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  AddCropArgs(crop);
  r.Register(std::move(AddDecoderArgs(crop, /*windowed=*/true)));

  OpSchema slice("decoders.image_slice");
  slice.Doc("Decodes the window given by the anchor and shape inputs (as slice's, e.g. random_bbox_crop's outputs), "
            "decoding only that window: JPEG rows above and below it are skipped and columns cropped to iMCU "
            "boundaries.")
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  AddDecoderArgs(slice, /*windowed=*/true)
      .Input("anchor", "The window's start per sliced axis (float: relative with normalized_anchor; integer: pixels).")
      .Input("shape", "The window's extent per sliced axis (float: relative with normalized_shape; integer: pixels).")
      .Arg("axis_names", ArgType::kString, std::string("WH"), "The axes anchor and shape refer to, in their order.")
      .Arg("axes", ArgType::kIntList, std::vector<int64_t>{1, 0},
           "The axes as indices of HWC (used when given without axis_names).")
      .Arg("normalized_anchor", ArgType::kBool, true, "A float anchor is relative to the image's extent.")
      .Arg("normalized_shape", ArgType::kBool, true, "A float shape is relative to the image's extent.")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"),
           "A window outside the image: \"error\" or \"trim_to_shape\" (\"pad\" is not supported when decoding).")
      .Enum({"error", "trim_to_shape", "pad"})
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Accepted for compatibility (no padding).");
  r.Register(std::move(slice));
}

}  // namespace sluice
