// crop_mirror_normalize: crop + mirror + normalize + layout + cast, one fused pass.
#include <algorithm>

#include "kernels/crop_mirror_normalize.h"
#include "operators/image/crop_args.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

enum class OutOfBounds { kError, kPad, kTrim };

OutOfBounds ParseOutOfBounds(const Operator& op) {
  const std::string s = op.Arg<std::string>("out_of_bounds_policy");
  if (s == "error") return OutOfBounds::kError;
  if (s == "pad") return OutOfBounds::kPad;
  if (s == "trim_to_shape") return OutOfBounds::kTrim;
  op.ThrowArgError("out_of_bounds_policy", "expected error, pad or trim_to_shape, got '" + s + "'");
}

// Applies the out-of-bounds policy to a window of an in_h x in_w image.
kernels::CropWindow ApplyPolicy(kernels::CropWindow w, int in_h, int in_w, OutOfBounds policy) {
  const bool inside = w.x >= 0 && w.y >= 0 && w.x + w.w <= in_w && w.y + w.h <= in_h;
  if (inside || policy == OutOfBounds::kPad) return w;
  if (policy == OutOfBounds::kError)
    throw Error("the crop window (x " + std::to_string(w.x) + ", y " + std::to_string(w.y) + ", " + std::to_string(w.w) +
                "x" + std::to_string(w.h) + ") is outside the " + std::to_string(in_w) + "x" + std::to_string(in_h) +
                " image (out_of_bounds_policy=\"error\"; use \"pad\" or \"trim_to_shape\")");
  const int x0 = std::max(0, w.x), y0 = std::max(0, w.y);
  const int x1 = std::min(in_w, w.x + w.w), y1 = std::min(in_h, w.y + w.h);
  return {x0, y0, std::max(0, x1 - x0), std::max(0, y1 - y0)};
}

class CropMirrorNormalizeOp : public Operator {
 public:
  explicit CropMirrorNormalizeOp(const OpSpec& spec) : Operator(spec) {
    out_type_ = Arg<DType>("dtype");
    if (out_type_ != DType::kFloat32 && out_type_ != DType::kFloat16 && out_type_ != DType::kUInt8 && out_type_ != DType::kInt8)
      ThrowArgError("dtype", "expected float, float16, uint8 or int8");
    const std::string layout = Arg<std::string>("output_layout");
    if (layout == "CHW") layout_ = kernels::CmnLayout::kCHW;
    else if (layout == "HWC") layout_ = kernels::CmnLayout::kHWC;
    else ThrowArgError("output_layout", "expected \"CHW\" or \"HWC\", got \"" + layout + "\"");
    layout_name_ = layout;
    for (double v : Arg<std::vector<double>>("mean")) mean_.push_back(static_cast<float>(v));
    for (double v : Arg<std::vector<double>>("std")) {
      if (v == 0) ThrowArgError("std", "must not be zero");
      std_.push_back(static_cast<float>(v));
    }
    for (double v : Arg<std::vector<double>>("fill_values")) fill_.push_back(static_cast<float>(v));
    scale_ = static_cast<float>(Arg<double>("scale"));
    shift_ = static_cast<float>(Arg<double>("shift"));
    pad_ = Arg<bool>("pad_output");
    policy_ = ParseOutOfBounds(*this);
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8 && in.dtype() != DType::kFloat32)
      throw Error("crop_mirror_normalize takes uint8 or float32 images, got " + std::string(ToString(in.dtype())));
    const CropArgs crop = ReadCropArgs(*this, ws);
    mirror_ = PerSampleArg<int>(ws, "mirror");
    const int n = in.num_samples();
    params_.resize(static_cast<size_t>(n));
    OutputDesc d;
    d.dtype = out_type_;
    d.layout = layout_name_;
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      if (s.ndim() != 3) throw Error("expected an HWC image, got shape " + s.ToString());
      const int h = static_cast<int>(s[0]), w = static_cast<int>(s[1]), c = static_cast<int>(s[2]);
      for (const auto* v : {&mean_, &std_, &fill_})
        if (v->size() > 1 && static_cast<int>(v->size()) != c)
          throw Error("mean, std and fill_values need 1 or " + std::to_string(c) + " values for " + std::to_string(c) +
                      "-channel images");
      kernels::CropWindow win = ApplyPolicy(ResolveCrop(crop, i, h, w, name()), h, w, policy_);
      kernels::CmnParams& p = params_[static_cast<size_t>(i)];
      p.crop_x = win.x;
      p.crop_y = win.y;
      p.crop_w = win.w;
      p.crop_h = win.h;
      p.mirror = mirror_[static_cast<size_t>(i)] != 0;
      p.mean = mean_;
      p.stddev = std_;
      p.scale = scale_;
      p.shift = shift_;
      p.layout = layout_;
      p.pad_output = pad_;
      p.fill_values = fill_;
      const int oc = kernels::CmnOutputChannels(p, c);
      d.shapes.push_back(layout_ == kernels::CmnLayout::kCHW ? TensorShape{oc, win.h, win.w} : TensorShape{win.h, win.w, oc});
    }
    d.contiguous = !d.shapes.empty() && std::all_of(d.shapes.begin(), d.shapes.end(), [&](const TensorShape& t) { return t == d.shapes[0]; });
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const auto& p = params_[static_cast<size_t>(i)];
    if (p.crop_w == 0 || p.crop_h == 0) return;
    void* out = ws.Output(0).raw_mutable_sample(i);
    if (in.dtype() == DType::kUInt8)
      kernels::CropMirrorNormalize(in.sample<uint8_t>(i), static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]), p, out_type_, out);
    else
      kernels::CropMirrorNormalize(in.sample<float>(i), static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]), p, out_type_, out);
  }

 private:
  DType out_type_;
  kernels::CmnLayout layout_;
  std::string layout_name_;
  std::vector<float> mean_, std_, fill_;
  float scale_ = 1, shift_ = 0;
  bool pad_ = false;
  OutOfBounds policy_;
  std::vector<int> mirror_;
  std::vector<kernels::CmnParams> params_;
};

}  // namespace

void RegisterCropMirrorNormalize(OperatorRegistry& r) {
  OpSchema s("crop_mirror_normalize");
  s.Doc("Crops, mirrors, normalizes (out = scale * (in - mean) / std + shift), changes the layout (HWC -> CHW) and "
        "casts, in one pass.")
      .Input("images", "HWC images, uint8 or float32.", {DType::kUInt8, DType::kFloat32})
      .Output("output", "Normalized images in output_layout.")
      .Arg("mirror", ArgType::kInt, int64_t{0}, "Mirror horizontally (per sample: 0 or 1).", true)
      .Arg("mean", ArgType::kFloatList, std::vector<double>{0.0}, "Mean per channel (one value or one per channel).")
      .Arg("std", ArgType::kFloatList, std::vector<double>{1.0}, "Standard deviation per channel.")
      .Arg("scale", ArgType::kFloat, 1.0, "Multiplier applied after normalization.")
      .Arg("shift", ArgType::kFloat, 0.0, "Added after scaling.")
      .Arg("dtype", ArgType::kDType, std::string("float32"), "Output type: float, float16, uint8 or int8.")
      .Arg("output_layout", ArgType::kString, std::string("CHW"), "CHW or HWC.")
      .Arg("pad_output", ArgType::kBool, false, "Pad the channels to 4 (the extra channel is 0).")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"),
           "A window outside the image: error, pad (with fill_values) or trim_to_shape.")
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Output values of padded pixels, per channel.")
      .Factory("cpu", [](const OpSpec& sp) { return std::make_unique<CropMirrorNormalizeOp>(sp); });
  AddCropArgs(s);
  r.Register(std::move(s));
}

}  // namespace sluice
