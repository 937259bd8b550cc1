// resize: separable resampling with antialiasing, DALI's arguments and output-size rules.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "kernels/resize/resize.h"
#include "operators/image/resize_size.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

std::optional<kernels::ResizeFilter> ParseFilter(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.rfind("TYPES.", 0) == 0) s = s.substr(6);
  if (s.rfind("INTERP_", 0) == 0) s = s.substr(7);
  if (s == "NN" || s == "NEAREST") return kernels::ResizeFilter::kNearest;
  if (s == "LINEAR" || s == "BILINEAR") return kernels::ResizeFilter::kLinear;
  if (s == "CUBIC" || s == "BICUBIC") return kernels::ResizeFilter::kCubic;
  if (s == "LANCZOS3" || s == "LANCZOS") return kernels::ResizeFilter::kLanczos3;
  if (s == "TRIANGULAR") return kernels::ResizeFilter::kTriangular;
  if (s == "GAUSSIAN") return kernels::ResizeFilter::kGaussian;
  return std::nullopt;
}

class ResizeOp : public Operator {
 public:
  explicit ResizeOp(const OpSpec& spec) : Operator(spec) {
    auto filter = [&](const char* arg) {
      auto f = ParseFilter(Arg<std::string>(arg));
      if (!f) ThrowArgError(arg, "unknown interpolation '" + Arg<std::string>(arg) +
                                     "' (expected NN, LINEAR, CUBIC, LANCZOS3, TRIANGULAR or GAUSSIAN)");
      return *f;
    };
    const auto interp = filter("interp_type");
    params_.min_filter = HasArg("min_filter") ? filter("min_filter") : interp;
    params_.mag_filter = HasArg("mag_filter") ? filter("mag_filter") : interp;
    params_.antialias = Arg<bool>("antialias");
    auto mode = ParseResizeMode(Arg<std::string>("mode"));
    if (!mode) ThrowArgError("mode", "expected default, stretch, not_larger or not_smaller");
    mode_ = *mode;
    if ((HasArg("resize_shorter") || HasArg("resize_longer")) && HasArg("mode"))
      ThrowArgError("mode", "cannot be combined with resize_shorter or resize_longer (they imply a mode)");
    const bool xy = HasArg("resize_x") || HasArg("resize_y");
    const int ways = (xy ? 1 : 0) + HasArg("size") + HasArg("resize_shorter") + HasArg("resize_longer");
    if (ways > 1) ThrowArgError("size", "give one of resize_x/resize_y, size, resize_shorter or resize_longer");
    if (ways == 0) ThrowArgError("size", "no output size: give resize_x/resize_y, size, resize_shorter or resize_longer");
    auto max = Arg<std::vector<double>>("max_size");
    if (max.size() == 1) max.push_back(max[0]);
    if (max.size() > 2) ThrowArgError("max_size", "expected one value or (height, width)");
    if (max.size() == 2) max_size_ = {max[0], max[1]};
    if (HasArg("dtype")) out_type_ = Arg<DType>("dtype");
    if (out_type_ && *out_type_ != DType::kUInt8 && *out_type_ != DType::kFloat32)
      ThrowArgError("dtype", "resize produces uint8 or float32");
    roi_relative_ = Arg<bool>("roi_relative");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8 && in.dtype() != DType::kFloat32)
      throw Error("resize takes uint8 or float32 images, got " + std::string(ToString(in.dtype())));
    if (!in.layout().empty() && in.layout() != "HWC")
      throw Error("resize takes HWC images, got layout '" + in.layout() + "'");
    const int n = in.num_samples();
    const auto rx = PerSampleArg<double>(ws, "resize_x");
    const auto ry = PerSampleArg<double>(ws, "resize_y");
    const auto shorter = PerSampleArg<double>(ws, "resize_shorter");
    const auto longer = PerSampleArg<double>(ws, "resize_longer");
    const auto size = PerSampleListArg<double>(ws, "size");
    const auto roi_start = PerSampleListArg<double>(ws, "roi_start");
    const auto roi_end = PerSampleListArg<double>(ws, "roi_end");
    plans_.resize(static_cast<size_t>(n));
    OutputDesc d;
    d.dtype = out_type_ ? *out_type_ : in.dtype();
    d.layout = "HWC";
    for (int i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i);
      const TensorShape& s = in.shape(i);
      if (s.ndim() != 3) throw Error("expected an HWC image, got shape " + s.ToString());
      Plan& p = plans_[k];
      p.in_h = static_cast<int>(s[0]);
      p.in_w = static_cast<int>(s[1]);
      p.channels = static_cast<int>(s[2]);
      // Region of interest, in (y, x) order like DALI; start > end mirrors.
      double y0 = 0, x0 = 0, y1 = p.in_h, x1 = p.in_w;
      if (!roi_start[k].empty() || !roi_end[k].empty()) {
        if (roi_start[k].size() != 2 || roi_end[k].size() != 2)
          ThrowArgError("roi_start", "roi_start and roi_end need (y, x) each");
        const double sy = roi_relative_ ? p.in_h : 1, sx = roi_relative_ ? p.in_w : 1;
        y0 = roi_start[k][0] * sy;
        x0 = roi_start[k][1] * sx;
        y1 = roi_end[k][0] * sy;
        x1 = roi_end[k][1] * sx;
      }
      ResizeRequest req;
      req.mode = mode_;
      req.max_size = max_size_;
      if (!size[k].empty()) {
        if (size[k].size() != 2) ThrowArgError("size", "expected (height, width)");
        req.size = {size[k][0], size[k][1]};
      } else if (HasArg("resize_shorter")) {
        req.size = {shorter[k], shorter[k]};
        req.mode = ResizeMode::kNotSmaller;
      } else if (HasArg("resize_longer")) {
        req.size = {longer[k], longer[k]};
        req.mode = ResizeMode::kNotLarger;
      } else {
        // A negative extent flips that axis.
        if (ry[k] < 0) std::swap(y0, y1);
        if (rx[k] < 0) std::swap(x0, x1);
        req.size = {std::abs(ry[k]), std::abs(rx[k])};
      }
      if (req.size[0] < 0 || req.size[1] < 0) ThrowArgError("size", "extents must not be negative");
      const double roi_h = std::abs(y1 - y0), roi_w = std::abs(x1 - x0);
      if (roi_h <= 0 || roi_w <= 0) ThrowArgError("roi_start", "the region of interest is empty");
      auto out = ResizeOutputSize(roi_h, roi_w, req);
      p.out_h = out[0];
      p.out_w = out[1];
      p.roi = kernels::ResizeRoi{static_cast<float>(x0), static_cast<float>(y0), static_cast<float>(x1), static_cast<float>(y1)};
      d.shapes.push_back(TensorShape{p.out_h, p.out_w, p.channels});
    }
    // A dense batch (fixed output size) is stored contiguously so it can be handed over as one tensor.
    d.contiguous = !d.shapes.empty() && std::all_of(d.shapes.begin(), d.shapes.end(), [&](const TensorShape& t) { return t == d.shapes[0]; });
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const Plan& p = plans_[static_cast<size_t>(i)];
    kernels::ResizeParams params = params_;
    params.roi = p.roi;
    auto run = [&](const auto* src) {
      if (out.dtype() == DType::kUInt8)
        kernels::Resize(src, p.in_h, p.in_w, p.channels, out.mutable_sample<uint8_t>(i), p.out_h, p.out_w, params);
      else
        kernels::Resize(src, p.in_h, p.in_w, p.channels, out.mutable_sample<float>(i), p.out_h, p.out_w, params);
    };
    if (in.dtype() == DType::kUInt8) run(in.sample<uint8_t>(i));
    else run(in.sample<float>(i));
  }

 private:
  struct Plan {
    int in_h, in_w, channels, out_h, out_w;
    kernels::ResizeRoi roi;
  };
  kernels::ResizeParams params_;
  ResizeMode mode_ = ResizeMode::kDefault;
  std::array<double, 2> max_size_{0, 0};
  std::optional<DType> out_type_;
  bool roi_relative_ = false;
  std::vector<Plan> plans_;
};

}  // namespace

void RegisterResize(OperatorRegistry& r) {
  r.Register(OpSchema("resize")
                 .Doc("Resizes HWC images with separable resampling. Downscaling is antialiased by default (the filter "
                      "widens with the scale, as in Pillow). Exactly one of resize_x/resize_y, size, resize_shorter or "
                      "resize_longer sets the output size; a missing extent keeps the aspect ratio.")
                 .Input("images", "HWC images, uint8 or float32.", {DType::kUInt8, DType::kFloat32})
                 .Output("resized", "Resized HWC images.")
                 .Arg("resize_x", ArgType::kFloat, 0.0, "Output width; 0 derives it from resize_y. Negative flips.", true)
                 .Arg("resize_y", ArgType::kFloat, 0.0, "Output height; 0 derives it from resize_x. Negative flips.", true)
                 .Arg("size", ArgType::kFloatList, std::vector<double>{}, "Output size (height, width); 0 extents are derived.", true)
                 .Arg("resize_shorter", ArgType::kFloat, 0.0, "Length of the shorter side, keeping the aspect ratio (mode not_smaller).", true)
                 .Arg("resize_longer", ArgType::kFloat, 0.0, "Length of the longer side, keeping the aspect ratio (mode not_larger).", true)
                 .Arg("max_size", ArgType::kFloatList, std::vector<double>{}, "Limit of the output size: one value or (height, width).")
                 .Arg("mode", ArgType::kString, std::string("default"), "default, stretch, not_larger or not_smaller.")
                 .Arg("interp_type", ArgType::kString, std::string("LINEAR"), "NN, LINEAR, CUBIC, LANCZOS3, TRIANGULAR or GAUSSIAN.")
                 .Arg("min_filter", ArgType::kString, std::string("LINEAR"), "Filter when downscaling (default: interp_type).")
                 .Arg("mag_filter", ArgType::kString, std::string("LINEAR"), "Filter when upscaling (default: interp_type).")
                 .Arg("antialias", ArgType::kBool, true, "Widen the filter when downscaling.")
                 .Arg("dtype", ArgType::kDType, std::string("uint8"), "Output type, uint8 or float32 (default: the input's).")
                 .Arg("roi_start", ArgType::kFloatList, std::vector<double>{}, "Start (y, x) of the input region to resize.", true)
                 .Arg("roi_end", ArgType::kFloatList, std::vector<double>{}, "End (y, x) of the input region; below start mirrors.", true)
                 .Arg("roi_relative", ArgType::kBool, false, "roi_start/roi_end are fractions of the input size.")
                 .Factory("cpu", [](const OpSpec& s) { return std::make_unique<ResizeOp>(s); }));
}

}  // namespace sluice
