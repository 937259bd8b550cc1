// resize, device="gpu": two batched launches (horizontal, vertical) per batch. Arguments, output
// sizes and errors come from the CPU operator (twin). The coefficient tables are computed on the
// host by the CPU kernel's own code (resample_coeffs.h) and uploaded with the descriptors, so the
// GPU result matches the CPU kernel (uint8 -> uint8 bit for bit; float to rounding).
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "kernels/cuda/image_kernels.h"
#include "kernels/resize/resample_coeffs.h"
#include "operators/gpu/gpu_operator.h"

namespace sluice::gpu {
namespace {

using kernels::ResizeFilter;
using kernels::cuda::ResizeSampleDesc;

// The CPU operator's filter names (resize_op.cc).
std::optional<ResizeFilter> ParseFilter(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.rfind("TYPES.", 0) == 0) s = s.substr(6);
  if (s.rfind("INTERP_", 0) == 0) s = s.substr(7);
  if (s == "NN" || s == "NEAREST") return ResizeFilter::kNearest;
  if (s == "LINEAR" || s == "BILINEAR") return ResizeFilter::kLinear;
  if (s == "CUBIC" || s == "BICUBIC") return ResizeFilter::kCubic;
  if (s == "LANCZOS3" || s == "LANCZOS") return ResizeFilter::kLanczos3;
  if (s == "TRIANGULAR") return ResizeFilter::kTriangular;
  if (s == "GAUSSIAN") return ResizeFilter::kGaussian;
  return std::nullopt;
}

size_t Align(size_t n) { return (n + 255) / 256 * 256; }

class ResizeGpu : public GpuOperator {
 public:
  explicit ResizeGpu(const OpSpec& spec) : GpuOperator(spec) {
    // The twin has validated every argument; only read them here.
    const auto interp = *ParseFilter(Arg<std::string>("interp_type"));
    params_.min_filter = HasArg("min_filter") ? *ParseFilter(Arg<std::string>("min_filter")) : interp;
    params_.mag_filter = HasArg("mag_filter") ? *ParseFilter(Arg<std::string>("mag_filter")) : interp;
    params_.antialias = Arg<bool>("antialias");
    roi_relative_ = Arg<bool>("roi_relative");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    std::vector<OutputDesc> out = GpuOperator::Setup(ws);
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    const auto rx = PerSampleArg<double>(ws, "resize_x");
    const auto ry = PerSampleArg<double>(ws, "resize_y");
    const auto size = PerSampleListArg<double>(ws, "size");
    const auto roi_start = PerSampleListArg<double>(ws, "roi_start");
    const auto roi_end = PerSampleListArg<double>(ws, "roi_end");
    const bool shorter_or_longer = HasArg("resize_shorter") || HasArg("resize_longer");
    out_type_ = out[0].dtype;
    samples_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i);
      const TensorShape& s = in.shape(i);
      Sample& p = samples_[k];
      p.in_h = static_cast<int>(s[0]);
      p.in_w = static_cast<int>(s[1]);
      p.channels = static_cast<int>(s[2]);
      p.out_h = static_cast<int>(out[0].shapes[k][0]);
      p.out_w = static_cast<int>(out[0].shapes[k][1]);
      // The CPU operator's region of interest (y, x order; start > end mirrors), stored as float.
      double y0 = 0, x0 = 0, y1 = p.in_h, x1 = p.in_w;
      if (!roi_start[k].empty() || !roi_end[k].empty()) {
        const double sy = roi_relative_ ? p.in_h : 1, sx = roi_relative_ ? p.in_w : 1;
        y0 = roi_start[k][0] * sy;
        x0 = roi_start[k][1] * sx;
        y1 = roi_end[k][0] * sy;
        x1 = roi_end[k][1] * sx;
      }
      if (size[k].empty() && !shorter_or_longer) {  // resize_x/resize_y: a negative extent flips
        if (ry[k] < 0) std::swap(y0, y1);
        if (rx[k] < 0) std::swap(x0, x1);
      }
      p.roi = kernels::ResizeRoi{static_cast<float>(x0), static_cast<float>(y0), static_cast<float>(x1),
                                 static_cast<float>(y1)};
      const auto& r = p.roi;
      if (r.x0 == r.x1 || r.y0 == r.y1 || !std::isfinite(r.x0) || !std::isfinite(r.x1) || !std::isfinite(r.y0) ||
          !std::isfinite(r.y1))
        throw Error("resize: degenerate ROI");
      if (p.channels < 1 || p.channels > 4) throw Error("resize: channels must be 1..4, got " + std::to_string(p.channels));
    }
    return out;
  }

  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const int n = in.num_samples();
    const bool fixed = in.dtype() == DType::kUInt8 && out_type_ == DType::kUInt8;
    const size_t mid_es = fixed ? 1 : 4;
    // Coefficient tables on the host (the CPU kernel's code), then one packed upload.
    cuda::Packer pack;
    const size_t descs_at = pack.Add<ResizeSampleDesc>(static_cast<size_t>(n));
    size_t mid_total = 0;
    int64_t max_mid = 0, max_out = 0;
    ForEachSample(ws, [&](int i, int) {
      Sample& p = samples_[static_cast<size_t>(i)];
      if (p.out_h <= 0 || p.out_w <= 0 || p.in_h <= 0 || p.in_w <= 0)
        throw Error("resize: empty extent (in " + std::to_string(p.in_h) + "x" + std::to_string(p.in_w) + ", out " +
                    std::to_string(p.out_h) + "x" + std::to_string(p.out_w) + ")");
      kernels::resize_detail::ComputeAxisCoeffs(p.in_w, p.roi.x0, p.roi.x1, p.out_w, params_, &p.cx);
      kernels::resize_detail::ComputeAxisCoeffs(p.in_h, p.roi.y0, p.roi.y1, p.out_h, params_, &p.cy);
    });
    for (int i = 0; i < n; ++i) {
      Sample& p = samples_[static_cast<size_t>(i)];
      p.x_start_at = pack.Add<int32_t>(static_cast<size_t>(p.out_w));
      p.x_coef_at = pack.Add<int32_t>(static_cast<size_t>(p.out_w) * static_cast<size_t>(p.cx.taps));
      p.y_start_at = pack.Add<int32_t>(static_cast<size_t>(p.out_h));
      p.y_coef_at = pack.Add<int32_t>(static_cast<size_t>(p.out_h) * static_cast<size_t>(p.cy.taps));
      const int64_t ne = int64_t(p.out_w) * p.channels, rows = p.cy.last - p.cy.first;
      p.mid_at = mid_total;
      mid_total += Align(static_cast<size_t>(ne * rows) * mid_es);
      max_mid = std::max(max_mid, ne * rows);
      max_out = std::max(max_out, ne * p.out_h);
    }
    uint8_t* mid = scratch_.Get(std::max<size_t>(mid_total, 1), ws.memory());
    auto area = staging_.Prepare(pack.size(), ws.memory());
    auto* descs = reinterpret_cast<ResizeSampleDesc*>(area.host + descs_at);
    ForEachSample(ws, [&](int i, int) {
      const Sample& p = samples_[static_cast<size_t>(i)];
      auto* xs = reinterpret_cast<int32_t*>(area.host + p.x_start_at);
      auto* ys = reinterpret_cast<int32_t*>(area.host + p.y_start_at);
      for (int x = 0; x < p.out_w; ++x) xs[x] = p.cx.start[static_cast<size_t>(x)];
      for (int y = 0; y < p.out_h; ++y) ys[y] = p.cy.start[static_cast<size_t>(y)] - p.cy.first;
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
      put(p.x_coef_at, p.cx.weights);
      put(p.y_coef_at, p.cy.weights);
      ResizeSampleDesc d{};
      d.in = in.raw_sample(i);
      d.mid = mid + p.mid_at;
      d.out = out.raw_mutable_sample(i);
      d.in_pitch = int64_t(p.in_w) * p.channels;
      d.channels = p.channels;
      d.first_row = p.cy.first;
      d.mid_rows = p.cy.last - p.cy.first;
      d.out_w = p.out_w;
      d.out_h = p.out_h;
      d.xt = p.cx.taps;
      d.yt = p.cy.taps;
      d.x_start = reinterpret_cast<const int32_t*>(area.device + p.x_start_at);
      d.x_coef = area.device + p.x_coef_at;
      d.y_start = reinterpret_cast<const int32_t*>(area.device + p.y_start_at);
      d.y_coef = area.device + p.y_coef_at;
      descs[i] = d;
    });
    staging_.Upload(pack.size(), Stream(ws));
    kernels::cuda::LaunchResize(reinterpret_cast<const ResizeSampleDesc*>(area.device + descs_at), n, max_mid,
                                max_out, in.dtype(), out_type_, Stream(ws));
  }

 private:
  struct Sample {
    int in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
    kernels::ResizeRoi roi;
    kernels::resize_detail::AxisCoeffs cx, cy;
    size_t x_start_at = 0, x_coef_at = 0, y_start_at = 0, y_coef_at = 0, mid_at = 0;
  };
  kernels::ResizeParams params_;
  bool roi_relative_ = false;
  DType out_type_ = DType::kUInt8;
  std::vector<Sample> samples_;
  cuda::DeviceScratch scratch_;
};

}  // namespace

void RegisterResizeGpu(OperatorRegistry& r) { AttachBackend(r, "resize", "gpu", MakeGpu<ResizeGpu>()); }

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
