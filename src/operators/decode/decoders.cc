// decoders.image, decoders.image_random_crop, decoders.image_crop.
#include <algorithm>
#include <cmath>

#include "kernels/crop/random_crop_window.h"
#include "operators/decode/decoder_base.h"
#include "operators/crop/crop_args.h"
#include "operators/crop/random_crop_args.h"
#include "operators/registry.h"
#include "operators/slice/slice_window.h"

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

// decoders.image_slice: slice's window (operators/slice/slice_window.h: the named arguments
// start|rel_start with end|rel_end|shape|rel_shape, or the anchor and shape inputs, in the order of
// axis_names / axes), with slice's rounding: start = llround(start), end = llround(end).
// out_of_bounds_policy "error" (DALI's default) rejects a window outside the image,
// "trim_to_shape" trims it; "pad" cannot be decoded and is rejected when the pipeline is built.
class SliceWindow : public DecodeWindow {
 public:
  explicit SliceWindow(const Operator& op)
      : window_(op), trim_(op.Arg<std::string>("out_of_bounds_policy") == "trim_to_shape") {
    if (op.Arg<std::string>("out_of_bounds_policy") == "pad")
      op.ThrowArgError("out_of_bounds_policy", "\"pad\" is not supported by the decoder (decode, then use slice)");
    // Which image axis (0: H, 1: W) each window value is for.
    if (op.HasArg("axes") && !op.HasArg("axis_names")) {
      for (int64_t a : op.Arg<std::vector<int64_t>>("axes")) {
        if (a != 0 && a != 1 && a != -3 && a != -2)
          op.ThrowArgError("axes", "only the image's height (0) and width (1) can be sliced");
        axes_.push_back(a == 0 || a == -3 ? 0 : 1);
      }
    } else {
      for (char c : op.Arg<std::string>("axis_names")) {
        if (c != 'H' && c != 'W') op.ThrowArgError("axis_names", "only H and W can be sliced by the decoder");
        axes_.push_back(c == 'H' ? 0 : 1);
      }
    }
    if (axes_.empty() || axes_.size() > 2 || (axes_.size() == 2 && axes_[0] == axes_[1]))
      op.ThrowArgError(op.HasArg("axes") && !op.HasArg("axis_names") ? "axes" : "axis_names",
                       "expected one or two distinct axes among H and W");
  }
  void PrepareBatch(const Operator&, const Workspace& ws) override { window_.Prepare(ws, 1); }
  std::optional<kernels::CropWindow> Window(const Operator&, const Workspace& ws, int i, int h, int w) const override {
    int64_t lo[2] = {0, 0}, hi[2] = {h, w};
    std::string window_arg;
    for (size_t k = 0; k < axes_.size(); ++k) {
      const int axis = axes_[k];
      double start, end;
      window_.Resolve(ws, i, axes_.size(), k, axis == 0 ? h : w, start, end, window_arg);
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
  SliceWindowArgs window_;
  const bool trim_;
  std::vector<int> axes_;
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
  slice.Doc("Decodes a slice of each image: slice's window (named arguments start or rel_start with end, rel_end, "
            "shape or rel_shape, or the anchor and shape inputs, e.g. random_bbox_crop's outputs), decoding only that "
            "window: JPEG rows above and below it are skipped and columns cropped to iMCU boundaries.")
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  AddDecoderArgs(slice, /*windowed=*/true)
      .Input("anchor", "The window's start per sliced axis (float: relative with normalized_anchor; integer: pixels).")
      .Input("shape_input", "The window's extent per sliced axis (float: relative with normalized_shape; integer: pixels).")
      .OptionalInputs(2)
      .Arg("start", ArgType::kFloatList, std::vector<double>{}, "Slice start coordinates (pixels), per sliced axis.", true)
      .Arg("rel_start", ArgType::kFloatList, std::vector<double>{}, "Slice start coordinates (fractions of the extent).", true)
      .Arg("end", ArgType::kFloatList, std::vector<double>{}, "Slice end coordinates (pixels, exclusive).", true)
      .Arg("rel_end", ArgType::kFloatList, std::vector<double>{}, "Slice end coordinates (fractions of the extent).", true)
      .Arg("shape", ArgType::kFloatList, std::vector<double>{}, "Slice shape (pixels).", true)
      .Min(0)
      .Arg("rel_shape", ArgType::kFloatList, std::vector<double>{}, "Slice shape (fractions of the extent).", true)
      .Min(0)
      .Exclusive({"start", "rel_start"})
      .Exclusive({"end", "rel_end", "shape", "rel_shape"})
      .Arg("axis_names", ArgType::kString, std::string("WH"), "The axes the window values refer to, in their order.")
      .Arg("axes", ArgType::kIntList, std::vector<int64_t>{1, 0},
           "The axes as indices of HWC (used when given without axis_names).")
      .Arg("normalized_anchor", ArgType::kBool, true, "A float anchor input is relative to the image's extent.")
      .Arg("normalized_shape", ArgType::kBool, true, "A float shape input is relative to the image's extent.")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"),
           "A window outside the image: \"error\" or \"trim_to_shape\" (\"pad\" is not supported when decoding).")
      .Enum({"error", "trim_to_shape", "pad"})
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Accepted for compatibility (no padding).");
  r.Register(std::move(slice));
}

}  // namespace sluice
