// gaussian_blur: DALI's separable Gaussian blur (dali/operators/image/convolution/gaussian_blur*.h).
// sigma and window_size are one value for all spatial axes or one per axis (H, W: outermost
// first), constant or per sample. Only sigma: window = 2 * ceil(3 * sigma) + 1; only window:
// sigma = ((window - 1) / 2 - 1) * 0.3 + 0.8; weights exp(-x^2 / (2 sigma^2)) normalized to 1.
// Borders reflect without repeating the edge (reflect-101, OpenCV's BORDER_REFLECT_101). Computed
// in float32; integer outputs round to nearest and saturate. Layouts HWC, CHW, HW, sequences of
// them (frame by frame) and volumes DHWC, CDHW, DHW, blurred in 3-D as DALI does: sigma and
// window_size then take one value or three (D, H, W); each depth slice is blurred along W and H
// into a float32 volume, which is then blurred along D into the output (one rounding, at the end).
#include <cstdint>

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
    volume_ = types_.layout.find('D') != std::string::npos;
    const int n = ws.batch_size();
    const auto sigmas = PerSampleListArg<float>(ws, "sigma");
    const auto windows = PerSampleListArg<int>(ws, "window_size");
    const size_t axes = volume_ ? 3 : 2;
    const std::string count = volume_ ? "3 (one per spatial axis D, H, W)" : "2 (one per spatial axis H, W)";
    static const char* const kImageAxes[] = {"H", "W"};
    static const char* const kVolumeAxes[] = {"D", "H", "W"};
    const char* const* axis_names = volume_ ? kVolumeAxes : kImageAxes;
    weights_.assign(static_cast<size_t>(n), std::vector<std::vector<float>>(axes));
    for (int i = 0; i < n; ++i) {
      const auto& s = sigmas[static_cast<size_t>(i)];
      const auto& w = windows[static_cast<size_t>(i)];
      if (s.size() != 1 && s.size() != axes)
        ThrowPerSample("sigma", i, "expected 1 value or " + count + ", got " + std::to_string(s.size()));
      if (w.size() != 1 && w.size() != axes)
        ThrowPerSample("window_size", i, "expected 1 value or " + count + ", got " + std::to_string(w.size()));
      for (size_t axis = 0; axis < axes; ++axis) {
        float sigma = s[s.size() == 1 ? 0 : axis];
        int window = w[w.size() == 1 ? 0 : axis];
        if (sigma < 0) ThrowPerSample("sigma", i, "must be >= 0, got " + std::to_string(sigma));
        if (window < 0) ThrowPerSample("window_size", i, "must be >= 0, got " + std::to_string(window));
        if (sigma == 0 && window == 0)
          ThrowArgError("sigma", "sigma or window_size must be given (both are 0 for axis " +
                                     std::string(axis_names[axis]) + ")");
        if (window == 0) window = kernels::GaussianSigmaToWindow(sigma);
        if (window % 2 == 0) ThrowPerSample("window_size", i, "must be odd, got " + std::to_string(window));
        if (sigma == 0) sigma = kernels::GaussianWindowToSigma(window);
        // window 1: the identity (DALI's window of one tap).
        auto weights = window == 1 ? std::vector<float>{1.f} : kernels::GaussianWindow(window, sigma);
        weights_[static_cast<size_t>(i)][axis] = std::move(weights);
      }
    }
    return {OutputDesc{in.shapes(), types_.out_type, types_.layout, in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const auto& w = weights_[static_cast<size_t>(i)];
    if (volume_) return BlurVolume(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), in.shape(i), w);
    kernels::SeparableFilter2D(in.raw_sample(i), types_.in_type, ws.Output(0).raw_mutable_sample(i),
                               types_.out_type, FilterImageGeom(in.shape(i), types_.layout), w[0], w[1],
                               kernels::BorderMode::kReflect101);
  }

 private:
  // A DHWC, CDHW or DHW volume: W and H per depth slice into float32, then D (the H x W positions
  // of a slice are one axis of uniform stride in all three layouts).
  void BlurVolume(const void* in, void* out, const TensorShape& s, const std::vector<std::vector<float>>& w) const {
    const bool cf = types_.layout == "CDHW";
    const int64_t c = types_.layout == "DHW" ? 1 : cf ? s[0] : s[3];
    const int64_t d = cf ? s[1] : s[0], h = cf ? s[2] : s[1], wd = cf ? s[3] : s[2];
    const int64_t slice = cf ? h * wd : h * wd * c;  // elements from one depth slice to the next
    kernels::ImageGeom plane = cf ? kernels::ImageGeom::CHW(c, h, wd) : kernels::ImageGeom::HWC(h, wd, c);
    if (cf) plane.stride_c = d * h * wd;
    std::vector<float> tmp(static_cast<size_t>(d * h * wd * c));
    const size_t in_size = SizeOf(types_.in_type);
    for (int64_t z = 0; z < d; ++z)
      kernels::SeparableFilter2D(static_cast<const uint8_t*>(in) + z * slice * static_cast<int64_t>(in_size),
                                 types_.in_type, tmp.data() + z * slice, DType::kFloat32, plane, w[1], w[2],
                                 kernels::BorderMode::kReflect101);
    kernels::ImageGeom depth{d, h * wd, c, slice, cf ? 1 : c, cf ? d * h * wd : 1};
    kernels::SeparableFilter2D(tmp.data(), DType::kFloat32, out, types_.out_type, depth, w[0], {1.f},
                               kernels::BorderMode::kReflect101);
  }

  FilterBatchTypes types_;
  bool volume_ = false;
  std::vector<std::vector<std::vector<float>>> weights_;  // per sample, per spatial axis (outermost first)
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterGaussianBlur) {
  OpSchema s("gaussian_blur");
  s.Doc("Blurs images with a Gaussian kernel (separable, reflect-101 borders). Give sigma, window_size or both, one "
        "value for all spatial axes or one per axis (H, W; volumes D, H, W, blurred in 3-D). Only sigma: window = 2 * ceil(3 * sigma) + 1; only "
        "window_size: sigma = ((window_size - 1) / 2 - 1) * 0.3 + 0.8.")
      .Input("input", "Images: uint8, int16, uint16 or float32, sequences of them (frame by frame) or volumes.",
             {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32},
             FilterImageLayouts().AllowSequence().AllowVolume())
      .UnfoldsSequences()
      .Output("output", "The blurred images, same shape.")
      .Arg("sigma", ArgType::kFloatList, std::vector<double>{0.0},
           "Standard deviation of the Gaussian, one value or one per spatial axis (H, W; volumes D, H, W; per "
           "sample allowed); 0: from window_size.",
           true)
      .Min(0)
      .Count({1, 2, 3})
      .Arg("window_size", ArgType::kIntList, std::vector<int64_t>{0},
           "Diameter of the kernel (odd), one value or one per spatial axis (H, W; volumes D, H, W; per sample "
           "allowed); 0: from sigma.",
           true)
      .Min(0)
      .Count({1, 2, 3})
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
