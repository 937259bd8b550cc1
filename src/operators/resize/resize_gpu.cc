// resize, device="gpu": the CPU operator's plan (resize_plan.h), then two batched launches
// (horizontal, vertical) per batch. The coefficient tables are computed on the host from the
// plan's parameters by the CPU kernel's own code (resample_coeffs.h) and uploaded with the
// descriptors, so the GPU result matches the CPU kernel (uint8 -> uint8 bit for bit; float to
// rounding).
#ifdef SLUICE_WITH_CUDA
#include <algorithm>

#include "kernels/resize/resample_coeffs.h"
#include "kernels/resize/resize_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/resize/resize_plan.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::ResizeSampleDesc;

size_t Align(size_t n) { return (n + 255) / 256 * 256; }

class ResizeGpu : public GpuOperator {
 public:
  explicit ResizeGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    const DType in_type = ws.Input(0).dtype();
    if (in_type != DType::kUInt8 && in_type != DType::kFloat32)
      throw Error("resize: " + std::string(ToString(in_type)) + " images are resized by the CPU operator only");
    PlanResize(*this, args_, ws, plan_);
    samples_.resize(plan_.samples.size());
    return {plan_.output};
  }

  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const int n = in.num_samples();
    const DType out_type = plan_.output.dtype;
    const bool fixed = in.dtype() == DType::kUInt8 && out_type == DType::kUInt8;
    const size_t mid_es = fixed ? 1 : 4;
    // Coefficient tables on the host (the CPU kernel's code), then one packed upload.
    cuda::Packer pack;
    const size_t descs_at = pack.Add<ResizeSampleDesc>(static_cast<size_t>(n));
    size_t mid_total = 0;
    int64_t max_mid = 0, max_out = 0;
    ForEachSample(ws, [&](int i, int) {
      const ResizeSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
      Tables& t = samples_[static_cast<size_t>(i)];
      kernels::resize_detail::ComputeAxisCoeffs(p.in_w, p.params.roi->x0, p.params.roi->x1, p.out_w, p.params, &t.cx,
                                                kernels::resize_detail::ResizeAxis::kWidth);
      kernels::resize_detail::ComputeAxisCoeffs(p.in_h, p.params.roi->y0, p.params.roi->y1, p.out_h, p.params, &t.cy,
                                                kernels::resize_detail::ResizeAxis::kHeightOrDepth);
    });
    for (int i = 0; i < n; ++i) {
      const ResizeSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
      Tables& t = samples_[static_cast<size_t>(i)];
      t.x_start_at = pack.Add<int32_t>(static_cast<size_t>(p.out_w));
      t.x_coef_at = pack.Add<int32_t>(static_cast<size_t>(p.out_w) * static_cast<size_t>(t.cx.taps));
      t.y_start_at = pack.Add<int32_t>(static_cast<size_t>(p.out_h));
      t.y_coef_at = pack.Add<int32_t>(static_cast<size_t>(p.out_h) * static_cast<size_t>(t.cy.taps));
      const int64_t ne = int64_t(p.out_w) * p.channels, rows = t.cy.last - t.cy.first;
      t.mid_at = mid_total;
      mid_total += Align(static_cast<size_t>(ne * rows) * mid_es);
      max_mid = std::max(max_mid, ne * rows);
      max_out = std::max(max_out, ne * p.out_h);
    }
    uint8_t* mid = scratch_.Get(std::max<size_t>(mid_total, 1), ws.memory());
    auto area = staging_.Prepare(pack.size(), ws.memory());
    auto* descs = reinterpret_cast<ResizeSampleDesc*>(area.host + descs_at);
    ForEachSample(ws, [&](int i, int) {
      const ResizeSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
      const Tables& t = samples_[static_cast<size_t>(i)];
      auto* xs = reinterpret_cast<int32_t*>(area.host + t.x_start_at);
      auto* ys = reinterpret_cast<int32_t*>(area.host + t.y_start_at);
      for (int x = 0; x < p.out_w; ++x) xs[x] = t.cx.start[static_cast<size_t>(x)];
      for (int y = 0; y < p.out_h; ++y) ys[y] = t.cy.start[static_cast<size_t>(y)] - t.cy.first;
      auto put = [&](size_t at, const std::vector<double>& w) {
        if (fixed) {
          auto* c = reinterpret_cast<int32_t*>(area.host + at);
          for (size_t j = 0; j < w.size(); ++j) c[j] = kernels::resize_detail::ToFixed(w[j]);
        } else {
          auto* c = reinterpret_cast<float*>(area.host + at);
          for (size_t j = 0; j < w.size(); ++j) c[j] = static_cast<float>(w[j]);
        }
      };
      // weights hold exactly out * taps entries (ComputeAxisCoeffs assigns them).
      put(t.x_coef_at, t.cx.weights);
      put(t.y_coef_at, t.cy.weights);
      ResizeSampleDesc d{};
      d.in = in.raw_sample(i);
      d.mid = mid + t.mid_at;
      d.out = out.raw_mutable_sample(i);
      d.in_pitch = int64_t(p.in_w) * p.channels;
      d.channels = p.channels;
      d.first_row = t.cy.first;
      d.mid_rows = t.cy.last - t.cy.first;
      d.out_w = p.out_w;
      d.out_h = p.out_h;
      d.xt = t.cx.taps;
      d.yt = t.cy.taps;
      d.x_start = reinterpret_cast<const int32_t*>(area.device + t.x_start_at);
      d.x_coef = area.device + t.x_coef_at;
      d.y_start = reinterpret_cast<const int32_t*>(area.device + t.y_start_at);
      d.y_coef = area.device + t.y_coef_at;
      descs[i] = d;
    });
    staging_.Upload(pack.size(), Stream(ws));
    kernels::cuda::LaunchResize(reinterpret_cast<const ResizeSampleDesc*>(area.device + descs_at), n, max_mid,
                                max_out, in.dtype(), out_type, Stream(ws));
  }

 private:
  // A sample's coefficient tables and where its pieces lie in the upload and the intermediate.
  struct Tables {
    kernels::resize_detail::AxisCoeffs cx, cy;
    size_t x_start_at = 0, x_coef_at = 0, y_start_at = 0, y_coef_at = 0, mid_at = 0;
  };
  const ResizeArgs args_;
  ResizePlan plan_;
  std::vector<Tables> samples_;
  cuda::DeviceScratch scratch_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterResizeGpu) { AttachBackend(r, "resize", "gpu", MakeFactory<ResizeGpu>()); }

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
