// crop, flip, transpose and cast, device="gpu": one batched launch each. Arguments, shapes and
// errors come from the CPU operators (twins); the windows and fill pixels are computed here
// exactly as the CPU operators compute them.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cstring>

#include "kernels/cast.h"
#include "kernels/cuda/image_kernels.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/image/crop_args.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::CastDesc;
using kernels::cuda::CropFlipDesc;
using kernels::cuda::TransposeDesc;

class CropGpu : public GpuOperator {
 public:
  explicit CropGpu(const OpSpec& spec) : GpuOperator(spec) {
    policy_ = Arg<std::string>("out_of_bounds_policy");
    fill_ = Arg<std::vector<double>>("fill_values");
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    std::vector<OutputDesc> out = GpuOperator::Setup(ws);
    const TensorList& in = ws.Input(0);
    const CropArgs crop = ReadCropArgs(*this, ws);
    const size_t es = SizeOf(in.dtype());
    descs_.assign(static_cast<size_t>(in.num_samples()), CropFlipDesc{});
    max_el_ = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      const int h = static_cast<int>(s[0]), w = static_cast<int>(s[1]);
      kernels::CropWindow win = ResolveCrop(crop, i, h, w, name());
      const bool inside = win.x >= 0 && win.y >= 0 && win.x + win.w <= w && win.y + win.h <= h;
      if (!inside && policy_ == "trim_to_shape") {
        const int x0 = std::max(0, win.x), y0 = std::max(0, win.y);
        win = {x0, y0, std::max(0, std::min(w, win.x + win.w) - x0), std::max(0, std::min(h, win.y + win.h) - y0)};
      }
      CropFlipDesc& d = descs_[static_cast<size_t>(i)];
      d.outer = 1;
      d.in_h = h;
      d.in_w = w;
      d.inner = s[2];
      d.x0 = win.x;
      d.y0 = win.y;
      d.out_h = win.h;
      d.out_w = win.w;
      // The CPU operator's fill pixel: fill_values[c % size], converted with the cast rules.
      const bool any_fill = std::any_of(fill_.begin(), fill_.end(), [](double v) { return v != 0.0; });
      if (any_fill && !inside) {
        if (static_cast<size_t>(s[2]) * es > sizeof(d.fill))
          throw Error("crop (gpu): a fill pixel of " + std::to_string(s[2]) + " channels is too large");
        VisitDType(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          for (int64_t c = 0; c < s[2]; ++c) {
            const double v = fill_.empty() ? 0.0 : fill_[fill_.size() == 1 ? 0 : static_cast<size_t>(c) % fill_.size()];
            T t = kernels::ConvertSaturate<T>(v);
            std::memcpy(d.fill + static_cast<size_t>(c) * es, &t, es);
          }
        });
        d.has_fill = 1;
      }
      max_el_ = std::max<int64_t>(max_el_, int64_t(win.w) * win.h * s[2]);
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
      if (!d.out) d.out_h = d.out_w = 0;
    }
    kernels::cuda::LaunchCropFlip(UploadDescs(descs_, ws), in.num_samples(), max_el_, SizeOf(in.dtype()), Stream(ws));
  }

 private:
  std::string policy_;
  std::vector<double> fill_;
  std::vector<CropFlipDesc> descs_;
  int64_t max_el_ = 0;
};

class FlipGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    std::vector<OutputDesc> out = GpuOperator::Setup(ws);
    horizontal_ = PerSampleArg<int>(ws, "horizontal");
    vertical_ = PerSampleArg<int>(ws, "vertical");
    return out;
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    descs_.assign(static_cast<size_t>(in.num_samples()), CropFlipDesc{});
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      CropFlipDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.outer = 1;
      d.in_h = d.out_h = s[0];
      d.in_w = d.out_w = s[1];
      d.inner = s[2];
      d.hflip = horizontal_[static_cast<size_t>(i)] != 0;
      d.vflip = vertical_[static_cast<size_t>(i)] != 0;
      if (!d.out) d.out_h = d.out_w = 0;
    }
    kernels::cuda::LaunchCropFlip(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), SizeOf(in.dtype()),
                                  Stream(ws));
  }

 private:
  std::vector<int> horizontal_, vertical_;
  std::vector<CropFlipDesc> descs_;
};

class TransposeGpu : public GpuOperator {
 public:
  explicit TransposeGpu(const OpSpec& spec) : GpuOperator(spec) {
    for (int64_t p : Arg<std::vector<int64_t>>("perm")) perm_.push_back(static_cast<int>(p));
    if (perm_.size() > static_cast<size_t>(kernels::cuda::kMaxGpuTransposeDims))
      ThrowArgError("perm", "at most " + std::to_string(kernels::cuda::kMaxGpuTransposeDims) + " dimensions on the GPU");
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    descs_.assign(static_cast<size_t>(in.num_samples()), TransposeDesc{});
    for (int i = 0; i < in.num_samples(); ++i) {
      const auto& dims = in.shape(i).dims();
      const int nd = static_cast<int>(dims.size());
      TransposeDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.ndim = nd;
      int64_t stride[kernels::cuda::kMaxGpuTransposeDims];
      int64_t acc = 1;
      for (int k = nd - 1; k >= 0; --k) {
        stride[k] = acc;
        acc *= dims[static_cast<size_t>(k)];
      }
      for (int k = 0; k < nd; ++k) {
        d.out_shape[k] = dims[static_cast<size_t>(perm_[static_cast<size_t>(k)])];
        d.in_stride[k] = stride[perm_[static_cast<size_t>(k)]];
      }
      if (!d.out || acc == 0) d.ndim = 1, d.out_shape[0] = 0;
    }
    kernels::cuda::LaunchTranspose(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), SizeOf(in.dtype()),
                                   Stream(ws));
  }

 private:
  std::vector<int> perm_;
  std::vector<TransposeDesc> descs_;
};

class CastGpu : public GpuOperator {
 public:
  explicit CastGpu(const OpSpec& spec) : GpuOperator(spec), to_(Arg<DType>("dtype")) {}
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    descs_.assign(static_cast<size_t>(in.num_samples()), CastDesc{});
    for (int i = 0; i < in.num_samples(); ++i) {
      CastDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.n = d.out ? in.shape(i).num_elements() : 0;
    }
    kernels::cuda::LaunchCast(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), in.dtype(), to_, Stream(ws));
  }

 private:
  DType to_;
  std::vector<CastDesc> descs_;
};

}  // namespace

void RegisterGeometryGpu(OperatorRegistry& r) {
  AttachBackend(r, "crop", "gpu", MakeGpu<CropGpu>());
  AttachBackend(r, "flip", "gpu", MakeGpu<FlipGpu>());
  AttachBackend(r, "transpose", "gpu", MakeGpu<TransposeGpu>());
  AttachBackend(r, "cast", "gpu", MakeGpu<CastGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
