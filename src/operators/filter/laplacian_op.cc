// laplacian: DALI's Laplacian (dali/operators/image/convolution/laplacian*.h) of 2-D images: the sum
// of the second-order partial derivatives along H and W, each a separable filter with a derivative
// window of `window_size` along its axis and a smoothing window of `smoothing_size` (default: the
// window size) along the other (kernels/filter/laplacian.h has the windows), reflect-101 borders,
// float32 arithmetic. window_size and smoothing_size are one value or one per axis (H, W); scale is
// one factor or one per partial derivative (d/dH first); normalized_kernel scales each partial
// derivative by 2^(-s + 4) (s: its two window sizes summed). Layouts HWC, CHW, HW and their
// sequences (frame by frame; per-frame arguments through fn.per_frame), and volumes DHWC, CDHW, DHW
// in 3-D as DALI: three partial derivatives (D, H, W), the arguments one value or three, normalized
// by 2^(-s + 5) (kernels::Laplacian3D).
#include "kernels/filter/laplacian.h"
#include "operators/filter/image_geom.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

constexpr int kMaxWindow = 31;  // DALI 2.4's limit (its error message: "between 3 and 31")

void CheckOddWindows(const ArgView& a, const char* name) {
  for (double w : a.Numbers(name))
    if (static_cast<int64_t>(w) % 2 == 0)
      throw ArgCheckError{name, "must be odd, got " + std::to_string(static_cast<int64_t>(w))};
}

class LaplacianOp : public Operator {
 public:
  explicit LaplacianOp(const OpSpec& spec) : Operator(spec), normalized_(Arg<bool>("normalized_kernel")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    types_ = ReadFilterBatchTypes(*this, ws);
    volume_ = types_.layout.find('D') != std::string::npos;
    const size_t axes = volume_ ? 3 : 2;
    const std::string count = volume_ ? "3 (one per spatial axis D, H, W)" : "2 (one per spatial axis H, W)";
    const int n = ws.batch_size();
    const auto windows = PerSampleListArg<int>(ws, "window_size");
    const auto smooth = PerSampleListArg<int>(ws, "smoothing_size");
    const auto scales = PerSampleListArg<float>(ws, "scale");
    windows_.assign(static_cast<size_t>(n), {});
    windows3_.assign(volume_ ? static_cast<size_t>(n) : 0, {});
    for (int i = 0; i < n; ++i) {
      const auto& w = windows[static_cast<size_t>(i)];
      const auto& s = smooth[static_cast<size_t>(i)].empty() ? w : smooth[static_cast<size_t>(i)];
      const auto& sc = scales[static_cast<size_t>(i)];
      // Lengths and values of per-sample inputs (constants were checked at the call).
      auto pick = [&](const std::vector<int>& v, const char* arg, int axis, int lo) {
        if (v.size() != 1 && v.size() != axes)
          ThrowPerSample(arg, i, "expected 1 value or " + count + ", got " + std::to_string(v.size()));
        const int x = v[v.size() == 1 ? 0 : static_cast<size_t>(axis)];
        if (x < lo || x > kMaxWindow || x % 2 == 0)
          ThrowPerSample(arg, i, "must be odd and in [" + std::to_string(lo) + ", " + std::to_string(kMaxWindow) + "], got " + std::to_string(x));
        return x;
      };
      if (sc.size() != 1 && sc.size() != axes)
        ThrowPerSample("scale", i, "expected 1 value or " + std::to_string(axes) + " (one per partial derivative), got " +
                                       std::to_string(sc.size()));
      const char* sname = smooth[static_cast<size_t>(i)].empty() ? "window_size" : "smoothing_size";
      // Without smoothing_size, DALI smooths each partial derivative with windows of that partial's
      // own window_size along the other axes (checked against DALI 2.4 with window_size=[3, 5]).
      const bool own = smooth[static_cast<size_t>(i)].empty();
      if (volume_) {
        int win[3], sm[3];
        float f[3];
        for (int a = 0; a < 3; ++a) {
          win[a] = pick(w, "window_size", a, 3);
          sm[a] = own ? 0 : pick(s, sname, a, 1);
          f[a] = sc[sc.size() == 1 ? 0 : static_cast<size_t>(a)];
        }
        windows3_[static_cast<size_t>(i)] = kernels::MakeLaplacianWindows3D(win, own ? nullptr : sm, normalized_, f);
        continue;
      }
      windows_[static_cast<size_t>(i)] = kernels::MakeLaplacianWindows(
          pick(w, "window_size", 0, 3), pick(w, "window_size", 1, 3), own ? pick(w, sname, 1, 3) : pick(s, sname, 0, 1),
          own ? pick(w, sname, 0, 3) : pick(s, sname, 1, 1),
          normalized_, sc[0], sc[sc.size() == 1 ? 0 : 1]);
    }
    return {OutputDesc{in.shapes(), types_.out_type, types_.layout, in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    if (volume_) {
      // DHWC, CDHW or DHW: one depth slice's geometry and the stride between slices.
      const TensorShape& s = in.shape(i);
      const bool cf = types_.layout == "CDHW";
      const int64_t c = types_.layout == "DHW" ? 1 : cf ? s[0] : s[3];
      const int64_t d = cf ? s[1] : s[0], h = cf ? s[2] : s[1], w = cf ? s[3] : s[2];
      kernels::ImageGeom plane = cf ? kernels::ImageGeom::CHW(c, h, w) : kernels::ImageGeom::HWC(h, w, c);
      if (cf) plane.stride_c = d * h * w;
      kernels::Laplacian3D(in.raw_sample(i), types_.in_type, ws.Output(0).raw_mutable_sample(i), types_.out_type,
                           plane, d, cf ? h * w : h * w * c, windows3_[static_cast<size_t>(i)]);
      return;
    }
    kernels::Laplacian2D(in.raw_sample(i), types_.in_type, ws.Output(0).raw_mutable_sample(i), types_.out_type,
                         FilterImageGeom(in.shape(i), types_.layout), windows_[static_cast<size_t>(i)]);
  }

 private:
  const bool normalized_;
  FilterBatchTypes types_;
  bool volume_ = false;
  std::vector<kernels::LaplacianWindows> windows_;
  std::vector<kernels::LaplacianWindows3D> windows3_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterLaplacian) {
  OpSchema s("laplacian");
  s.Doc("Computes the Laplacian of images: the sum of the second-order partial derivatives along H and W, each a "
        "separable convolution with a derivative window of window_size along its own axis and a smoothing window "
        "of smoothing_size (default: that derivative's window_size) along the other (binomial smoothing; the "
        "derivative window is "
        "[1, -2, 1] convolved with the smoothing window two shorter, as cv2.Laplacian). Borders reflect-101; "
        "float32 arithmetic, integer outputs rounded and saturated. HWC, CHW, HW images and sequences of them; DHWC, "
        "CDHW, DHW volumes in 3-D (three partial derivatives, D first).")
      .Input("input", "Images: uint8, int16, uint16 or float32.",
             {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32},
             InputLayouts{"HWC", "CHW", "HW"}.AllowSequence().AllowVolume())
      .UnfoldsSequences()
      .Output("output", "The Laplacian, same shape.")
      .Arg("window_size", ArgType::kIntList, std::vector<int64_t>{3},
           "Size of the derivative window, odd, in [3, 31]: one value or one per spatial axis (H, W; volumes D, H, W) (per sample "
           "allowed).",
           true)
      .Range(3, kMaxWindow)
      .Count({1, 2, 3})
      .Arg("smoothing_size", ArgType::kIntList, std::vector<int64_t>{},
           "Size of the smoothing windows, odd, in [1, 31] (1: no smoothing): one value or one per spatial axis "
           "(H, W; volumes D, H, W) (per sample allowed). Not given: each partial derivative smooths with its own "
           "window_size along the other axes, as DALI.",
           true)
      .Range(1, kMaxWindow)
      .Count({0, 1, 2, 3})
      .Arg("scale", ArgType::kFloatList, std::vector<double>{1.0},
           "Factors of the partial derivatives: one value or one per partial derivative (d/dH, d/dW; volumes d/dD first) (per sample "
           "allowed). Not with normalized_kernel=True.",
           true)
      .Count({1, 2, 3})
      .Arg("normalized_kernel", ArgType::kBool, false,
           "Scale each partial derivative by 2^(-s + n + 2), s the sum of its window sizes, n the number of spatial "
           "axes (2; volumes 3), as DALI.")
      .Check([](const ArgView& a) {
        CheckOddWindows(a, "window_size");
        CheckOddWindows(a, "smoothing_size");
        const Value* norm = a.Get("normalized_kernel");
        if (norm && std::get<bool>(*norm) && a.Given("scale"))
          throw ArgCheckError{"scale", "must not be given with normalized_kernel=True"};
      })
      .Factory("cpu", MakeFactory<LaplacianOp>());
  s.Arg("dtype", ArgType::kDType, std::string("uint8"),
        "Output type: uint8, int16, uint16 or float32 (default: the input's; DALI allows only the input's or "
        "float32). Integer results are rounded to nearest even and saturated.")
      .Enum({"uint8", "int16", "uint16", "float32"});
  r.Register(std::move(s));
}

}  // namespace sluice
