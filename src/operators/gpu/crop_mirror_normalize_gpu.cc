// crop_mirror_normalize, device="gpu": one fused kernel launch per batch. Arguments, shapes and
// errors come from the CPU operator (twin); the per-sample window and coefficients are computed
// here exactly as the CPU operator and kernel compute them.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>

#include "kernels/cuda/image_kernels.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/image/crop_args.h"

namespace sluice::gpu {
namespace {

float PerChannel(const std::vector<float>& v, int c, float dflt) {
  if (v.empty()) return dflt;
  return v.size() == 1 ? v[0] : v[static_cast<size_t>(c)];
}

class CropMirrorNormalizeGpu : public GpuOperator {
 public:
  explicit CropMirrorNormalizeGpu(const OpSpec& spec) : GpuOperator(spec) {
    out_type_ = Arg<DType>("dtype");
    chw_ = Arg<std::string>("output_layout") == "CHW";
    for (double v : Arg<std::vector<double>>("mean")) mean_.push_back(static_cast<float>(v));
    for (double v : Arg<std::vector<double>>("std")) std_.push_back(static_cast<float>(v));
    for (double v : Arg<std::vector<double>>("fill_values")) fill_.push_back(static_cast<float>(v));
    scale_ = static_cast<float>(Arg<double>("scale"));
    shift_ = static_cast<float>(Arg<double>("shift"));
    pad_ = Arg<bool>("pad_output");
    policy_ = Arg<std::string>("out_of_bounds_policy");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    std::vector<OutputDesc> out = GpuOperator::Setup(ws);  // validates; throws like the CPU operator
    const TensorList& in = ws.Input(0);
    const CropArgs crop = ReadCropArgs(*this, ws);
    const std::vector<int> mirror = PerSampleArg<int>(ws, "mirror");
    const int n = in.num_samples();
    descs_.assign(static_cast<size_t>(n), kernels::cuda::CmnSampleDesc{});
    max_px_ = 0;
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      const int h = static_cast<int>(s[0]), w = static_cast<int>(s[1]), c = static_cast<int>(s[2]);
      if (c < 1 || c > 4) throw Error("crop_mirror_normalize: invalid input shape " + s.ToString());
      kernels::CropWindow win = ResolveCrop(crop, i, h, w, name());
      const bool inside = win.x >= 0 && win.y >= 0 && win.x + win.w <= w && win.y + win.h <= h;
      if (!inside && policy_ == "trim_to_shape") {
        const int x0 = std::max(0, win.x), y0 = std::max(0, win.y);
        win = {x0, y0, std::max(0, std::min(w, win.x + win.w) - x0), std::max(0, std::min(h, win.y + win.h) - y0)};
      }
      auto& d = descs_[static_cast<size_t>(i)];
      d.in_h = h;
      d.in_w = w;
      d.channels = c;
      d.crop_x = win.x;
      d.crop_y = win.y;
      d.out_w = win.w;
      d.out_h = win.h;
      d.out_channels = c + (pad_ ? 1 : 0);
      d.mirror = mirror[static_cast<size_t>(i)] != 0;
      // The CPU kernel's SIMD rows (fused multiply-add) serve uint8 RGB without channel padding.
      d.fma = in.dtype() == DType::kUInt8 && c == 3 && (chw_ || !pad_);
      for (int k = 0; k < c; ++k) {
        // The CPU kernel's expressions, in the same order (a = scale / std, b = shift - mean * a).
        const float sd = PerChannel(std_, k, 1.f);
        d.a[k] = scale_ / sd;
        d.b[k] = shift_ - PerChannel(mean_, k, 0.f) * d.a[k];
        d.fill[k] = PerChannel(fill_, k, 0.f);
      }
      max_px_ = std::max<int64_t>(max_px_, int64_t(win.w) * win.h);
    }
    return out;
  }

  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    for (int i = 0; i < in.num_samples(); ++i) {
      auto& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      if (!d.in || !d.out) d.out_w = d.out_h = 0;  // empty sample: nothing to write
    }
    const auto* dev = UploadDescs(descs_, ws);
    kernels::cuda::LaunchCropMirrorNormalize(dev, in.num_samples(), max_px_, in.dtype(), out_type_, chw_, Stream(ws));
  }

 private:
  DType out_type_;
  bool chw_ = true, pad_ = false;
  std::vector<float> mean_, std_, fill_;
  float scale_ = 1, shift_ = 0;
  std::string policy_;
  std::vector<kernels::cuda::CmnSampleDesc> descs_;
  int64_t max_px_ = 0;
};

}  // namespace

void RegisterCropMirrorNormalizeGpu(OperatorRegistry& r) {
  AttachBackend(r, "crop_mirror_normalize", "gpu", MakeGpu<CropMirrorNormalizeGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
