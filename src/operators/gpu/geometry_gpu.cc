// crop, flip, transpose and cast, device="gpu": the CPU operators' plans (geometry_plan.h), one
// descriptor per sample, one batched launch each.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cstring>

#include "kernels/cuda/image_kernels.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/image/geometry_plan.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::CastDesc;
using kernels::cuda::CropFlipDesc;
using kernels::cuda::TransposeDesc;

class CropGpu : public GpuOperator {
 public:
  explicit CropGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanCrop(*this, args_, ws, plan_);
    for (const CropSamplePlan& p : plan_.samples)
      if (p.fill.size() > sizeof(CropFlipDesc::fill))
        throw Error("crop (gpu): a fill pixel of " + std::to_string(p.channels) + " channels is too large");
    return {plan_.output};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    descs_.assign(static_cast<size_t>(in.num_samples()), CropFlipDesc{});
    int64_t max_el = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      const CropSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
      CropFlipDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.outer = 1;
      d.in_h = p.in_h;
      d.in_w = p.in_w;
      d.inner = p.channels;
      d.x0 = p.window.x;
      d.y0 = p.window.y;
      d.out_h = d.out ? p.window.h : 0;
      d.out_w = d.out ? p.window.w : 0;
      d.has_fill = !p.fill.empty();
      if (d.has_fill) std::memcpy(d.fill, p.fill.data(), p.fill.size());
      max_el = std::max<int64_t>(max_el, int64_t(p.window.w) * p.window.h * p.channels);
    }
    kernels::cuda::LaunchCropFlip(UploadDescs(descs_, ws), in.num_samples(), max_el, SizeOf(in.dtype()), Stream(ws));
  }

 private:
  const CropOpArgs args_;
  CropPlan plan_;
  std::vector<CropFlipDesc> descs_;
};

class FlipGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanFlip(*this, ws, plan_);
    return {plan_.output};
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
      d.in_h = d.out_h = d.out ? s[0] : 0;
      d.in_w = d.out_w = d.out ? s[1] : 0;
      d.inner = s[2];
      d.hflip = plan_.horizontal[static_cast<size_t>(i)] != 0;
      d.vflip = plan_.vertical[static_cast<size_t>(i)] != 0;
    }
    kernels::cuda::LaunchCropFlip(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), SizeOf(in.dtype()),
                                  Stream(ws));
  }

 private:
  FlipPlan plan_;
  std::vector<CropFlipDesc> descs_;
};

class TransposeGpu : public GpuOperator {
 public:
  explicit TransposeGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {
    if (args_.perm.size() > static_cast<size_t>(kernels::cuda::kMaxGpuTransposeDims))
      ThrowArgError("perm", "at most " + std::to_string(kernels::cuda::kMaxGpuTransposeDims) + " dimensions on the GPU");
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    return {PlanTranspose(*this, args_, ws)};
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
      int64_t stride[kernels::cuda::kMaxGpuTransposeDims];  // row-major strides of the input
      for (int k = nd - 1; k >= 0; --k) stride[k] = k == nd - 1 ? 1 : stride[k + 1] * dims[static_cast<size_t>(k + 1)];
      for (int k = 0; k < nd; ++k) {
        const int from = args_.perm[static_cast<size_t>(k)];
        d.out_shape[k] = out.shape(i)[k];
        d.in_stride[k] = stride[from];
      }
      if (!d.out || in.shape(i).num_elements() == 0) d.ndim = 1, d.out_shape[0] = 0;
    }
    kernels::cuda::LaunchTranspose(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), SizeOf(in.dtype()),
                                   Stream(ws));
  }

 private:
  const TransposeArgs args_;
  std::vector<TransposeDesc> descs_;
};

class CastGpu : public GpuOperator {
 public:
  explicit CastGpu(const OpSpec& spec) : GpuOperator(spec), to_(Arg<DType>("dtype")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    return {PlanCast(to_, ws)};
  }
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

SLUICE_REGISTER_BACKENDS(RegisterGeometryGpu) {
  AttachBackend(r, "crop", "gpu", MakeFactory<CropGpu>());
  AttachBackend(r, "flip", "gpu", MakeFactory<FlipGpu>());
  AttachBackend(r, "transpose", "gpu", MakeFactory<TransposeGpu>());
  AttachBackend(r, "cast", "gpu", MakeFactory<CastGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
