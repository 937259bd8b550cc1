// paste: DALI's paste (dali/operators/image/paste/paste.cu): each HWC image is placed on a canvas of
// (int(ratio * H), int(ratio * W)), each at least int(min_canvas_size), at
// (int(paste_y * (canvas_H - H)), int(paste_x * (canvas_W - W))), the rest filled with fill_value.
// A slice of the image with a negative anchor (kernels/slice/slice_pad.h).
#include "operators/slice/slice_pad_util.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class PasteOp : public Operator {
 public:
  explicit PasteOp(const OpSpec& spec) : Operator(spec), fill_(Arg<std::vector<double>>("fill_value")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8 && in.dtype() != DType::kFloat32)
      throw Error("paste takes uint8 or float32 images, got " + std::string(ToString(in.dtype())));
    const int n = in.num_samples();
    const auto ratio = PerSampleArg<double>(ws, "ratio");
    const auto px = PerSampleArg<double>(ws, "paste_x");
    const auto py = PerSampleArg<double>(ws, "paste_y");
    const auto min_canvas = PerSampleArg<double>(ws, "min_canvas_size");
    OutputDesc d;
    d.dtype = in.dtype();
    d.layout = "HWC";
    specs_.assign(static_cast<size_t>(n), {});
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const TensorShape& s = in.shape(i);
      const int64_t h = s[0], w = s[1], c = s[2];
      if (fill_.size() != 1 && static_cast<int64_t>(fill_.size()) != c)
        ThrowArgError("fill_value", "has " + std::to_string(fill_.size()) + " values for images of " + std::to_string(c) +
                                        " channels (give one, or one per channel)");
      if (ratio[k] * static_cast<double>(std::max(h, w)) > 1e9) ThrowPerSample("ratio", i, "the canvas would be too large");
      const auto mc = static_cast<int64_t>(min_canvas[k]);
      const int64_t oh = std::max(static_cast<int64_t>(ratio[k] * static_cast<double>(h)), mc);
      const int64_t ow = std::max(static_cast<int64_t>(ratio[k] * static_cast<double>(w)), mc);
      kernels::SliceSpec& sp = specs_[k];
      sp.in_shape = {h, w, c};
      sp.out_shape = {oh, ow, c};
      sp.anchor = {-static_cast<int64_t>(py[k] * static_cast<double>(oh - h)),
                   -static_cast<int64_t>(px[k] * static_cast<double>(ow - w)), 0};
      sp.channel_dim = 2;
      d.shapes.push_back(TensorShape{oh, ow, c});
    }
    d.contiguous = AllSameShape(d.shapes);
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    RunSlicePad(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i), in.dtype(), specs_[static_cast<size_t>(i)],
                fill_);
  }

 private:
  std::vector<double> fill_;
  std::vector<kernels::SliceSpec> specs_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterPaste) {
  OpSchema s("paste");
  s.Doc("Pastes HWC images onto a larger canvas of (int(ratio * H), int(ratio * W)) (at least min_canvas_size each), at "
        "the relative position (paste_x, paste_y); the rest of the canvas takes fill_value.")
      .Input("images", "HWC images, uint8 or float32.", {DType::kUInt8, DType::kFloat32}, InputLayouts{"HWC"})
      .Output("output", "The canvases.")
      .Arg("ratio", ArgType::kFloat, std::nullopt, "Canvas size / input size; at least 1.", true)
      .Min(1)
      .Arg("fill_value", ArgType::kIntList, std::nullopt, "The canvas colour: one value, or one per channel.")
      .Arg("n_channels", ArgType::kInt, int64_t{3}, "Number of channels DALI expects; the images' own count is used.")
      .Min(1)
      .Arg("paste_x", ArgType::kFloat, 0.5, "Horizontal position of the image: 0 = left, 1 = right.", true)
      .Range(0, 1)
      .Arg("paste_y", ArgType::kFloat, 0.5, "Vertical position of the image: 0 = top, 1 = bottom.", true)
      .Range(0, 1)
      .Arg("min_canvas_size", ArgType::kFloat, 0.0, "Minimum canvas extent (both axes), after scaling by ratio.", true)
      .Min(0)
      .Factory("cpu", MakeFactory<PasteOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
