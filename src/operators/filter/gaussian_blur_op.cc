// gaussian_blur: DALI's separable Gaussian blur (dali/operators/image/convolution/gaussian_blur*.h).
// sigma and window_size are one value for both spatial axes or one per axis (H, W: outermost
// first), constant or per sample. Only sigma: window = 2 * ceil(3 * sigma) + 1; only window:
// sigma = ((window - 1) / 2 - 1) * 0.3 + 0.8; weights exp(-x^2 / (2 sigma^2)) normalized to 1.
// Borders reflect without repeating the edge (reflect-101, OpenCV's BORDER_REFLECT_101). Computed
// in float32; integer outputs round to nearest and saturate. Layouts HWC, CHW, HW.
#include "kernels/filter/convolution.h"
#include "kernels/filter/gaussian_window.h"
#include "operators/filter/image_geom.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class GaussianBlurOp : public Operator {
 public:
  explicit GaussianBlurOp(const OpSpec& spec) : Operator(spec) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    types_ = ReadFilterBatchTypes(*this, ws);
    const int n = ws.batch_size();
    const auto sigmas = PerSampleListArg<float>(ws, "sigma");
    const auto windows = PerSampleListArg<int>(ws, "window_size");
    wy_.assign(static_cast<size_t>(n), {});
    wx_.assign(static_cast<size_t>(n), {});
    for (int i = 0; i < n; ++i) {
      const auto& s = sigmas[static_cast<size_t>(i)];
      const auto& w = windows[static_cast<size_t>(i)];
      if (s.size() != 1 && s.size() != 2)
        ThrowPerSample("sigma", i, "expected 1 value or 2 (one per spatial axis), got " + std::to_string(s.size()));
      if (w.size() != 1 && w.size() != 2)
        ThrowPerSample("window_size", i,
                       "expected 1 value or 2 (one per spatial axis), got " + std::to_string(w.size()));
      for (int axis = 0; axis < 2; ++axis) {
        float sigma = s[s.size() == 1 ? 0 : static_cast<size_t>(axis)];
        int window = w[w.size() == 1 ? 0 : static_cast<size_t>(axis)];
        if (sigma < 0) ThrowPerSample("sigma", i, "must be >= 0, got " + std::to_string(sigma));
        if (window < 0) ThrowPerSample("window_size", i, "must be >= 0, got " + std::to_string(window));
        if (sigma == 0 && window == 0)
          ThrowArgError("sigma", "sigma or window_size must be given (both are 0 for axis " +
                                     std::string(axis == 0 ? "H" : "W") + ")");
        if (window == 0) window = kernels::GaussianSigmaToWindow(sigma);
        if (window % 2 == 0) ThrowPerSample("window_size", i, "must be odd, got " + std::to_string(window));
        if (sigma == 0) sigma = kernels::GaussianWindowToSigma(window);
        // window 1: the identity (DALI's window of one tap).
        auto weights = window == 1 ? std::vector<float>{1.f} : kernels::GaussianWindow(window, sigma);
        (axis == 0 ? wy_ : wx_)[static_cast<size_t>(i)] = std::move(weights);
      }
    }
    return {OutputDesc{in.shapes(), types_.out_type, types_.layout, in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::SeparableFilter2D(in.raw_sample(i), types_.in_type, ws.Output(0).raw_mutable_sample(i),
                               types_.out_type, FilterImageGeom(in.shape(i), types_.layout), wy_[static_cast<size_t>(i)],
                               wx_[static_cast<size_t>(i)], kernels::BorderMode::kReflect101);
  }

 private:
  FilterBatchTypes types_;
  std::vector<std::vector<float>> wy_, wx_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterGaussianBlur) {
  OpSchema s("gaussian_blur");
  s.Doc("Blurs images with a Gaussian kernel (separable, reflect-101 borders). Give sigma, window_size or both, one "
        "value for both spatial axes or one per axis (H, W). Only sigma: window = 2 * ceil(3 * sigma) + 1; only "
        "window_size: sigma = ((window_size - 1) / 2 - 1) * 0.3 + 0.8.")
      .Input("input", "Images: uint8, int16, uint16 or float32.",
             {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32}, FilterImageLayouts().AllowSequence())
      .UnfoldsSequences()
      .Output("output", "The blurred images, same shape.")
      .Arg("sigma", ArgType::kFloatList, std::vector<double>{0.0},
           "Standard deviation of the Gaussian, one value or one per spatial axis (per sample allowed); 0: from "
           "window_size.",
           true)
      .Min(0)
      .Count({1, 2})
      .Arg("window_size", ArgType::kIntList, std::vector<int64_t>{0},
           "Diameter of the kernel (odd), one value or one per spatial axis (per sample allowed); 0: from sigma.", true)
      .Min(0)
      .Count({1, 2})
      .Check([](const ArgView& a) {
        for (double w : a.Numbers("window_size"))
          if (w > 0 && static_cast<int64_t>(w) % 2 == 0)
            throw ArgCheckError{"window_size", "must be odd, got " + std::to_string(static_cast<int64_t>(w))};
        // Neither given is the usual mistake: refused at the call. Both given as 0 (each the
        // default) is refused when the batch is set up, naming the axis.
        if (!a.Given("sigma") && !a.Given("window_size"))
          throw ArgCheckError{"sigma", "sigma or window_size must be given (> 0)"};
      })
      .Factory("cpu", MakeFactory<GaussianBlurOp>());
  AddFilterOutputTypeArg(s);
  r.Register(std::move(s));
}

}  // namespace sluice
