// resize, device="gpu": descriptors and coefficient tables (see resize_gpu_descs.h).
#include "operators/resize/resize_gpu_descs.h"

#include <algorithm>

namespace sluice::gpu {
namespace {

using kernels::cuda::ResizeSampleDesc;
namespace rd = kernels::resize_detail;

size_t Align(size_t n, size_t a) { return (n + a - 1) / a * a; }

// Offsets in the upload: each array 16-byte aligned (as cuda::Packer lays them out).
struct Layout {
  template <typename T>
  size_t Add(size_t count) {
    offset = Align(offset, 16);
    const size_t at = offset;
    offset += count * sizeof(T);
    return at;
  }
  size_t offset = 0;
};

}  // namespace

void ResizeGpuDescs::Prepare(const ResizePlan& plan, DType in_type, int n, const ForEach& for_each) {
  fixed_ = in_type == DType::kUInt8 && plan.output.dtype == DType::kUInt8;
  const size_t mid_es = fixed_ ? 1 : 4;
  samples_.resize(static_cast<size_t>(n));
  for_each([&](int i) {
    const ResizeSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    Tables& t = samples_[static_cast<size_t>(i)];
    rd::ComputeAxisCoeffs(p.in_w, p.params.roi->x0, p.params.roi->x1, p.out_w, p.params, &t.cx, rd::ResizeAxis::kWidth);
    rd::ComputeAxisCoeffs(p.in_h, p.params.roi->y0, p.params.roi->y1, p.out_h, p.params, &t.cy,
                          rd::ResizeAxis::kHeightOrDepth);
  });
  Layout pack;
  descs_at_ = pack.Add<ResizeSampleDesc>(static_cast<size_t>(n));
  mid_bytes_ = 0;
  max_mid_ = max_out_ = 0;
  for (int i = 0; i < n; ++i) {
    const ResizeSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    Tables& t = samples_[static_cast<size_t>(i)];
    t.x_start_at = pack.Add<int32_t>(static_cast<size_t>(p.out_w));
    t.x_coef_at = pack.Add<int32_t>(static_cast<size_t>(p.out_w) * static_cast<size_t>(t.cx.taps));
    t.y_start_at = pack.Add<int32_t>(static_cast<size_t>(p.out_h));
    t.y_coef_at = pack.Add<int32_t>(static_cast<size_t>(p.out_h) * static_cast<size_t>(t.cy.taps));
    const int64_t ne = int64_t(p.out_w) * p.channels, rows = t.cy.last - t.cy.first;
    t.mid_at = mid_bytes_;
    mid_bytes_ += Align(static_cast<size_t>(ne * rows) * mid_es, 256);
    max_mid_ = std::max(max_mid_, ne * rows);
    max_out_ = std::max(max_out_, ne * p.out_h);
  }
  upload_bytes_ = pack.offset;
}

void ResizeGpuDescs::Fill(const ResizePlan& plan, const TensorList& in, TensorList& out, uint8_t* host,
                          const uint8_t* device, uint8_t* mid, const ForEach& for_each) const {
  auto* descs = reinterpret_cast<ResizeSampleDesc*>(host + descs_at_);
  for_each([&](int i) {
    const ResizeSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    const Tables& t = samples_[static_cast<size_t>(i)];
    auto* xs = reinterpret_cast<int32_t*>(host + t.x_start_at);
    auto* ys = reinterpret_cast<int32_t*>(host + t.y_start_at);
    for (int x = 0; x < p.out_w; ++x) xs[x] = t.cx.start[static_cast<size_t>(x)];
    for (int y = 0; y < p.out_h; ++y) ys[y] = t.cy.start[static_cast<size_t>(y)] - t.cy.first;
    auto put = [&](size_t at, const std::vector<double>& w) {  // exactly out * taps entries
      if (fixed_) {
        auto* c = reinterpret_cast<int32_t*>(host + at);
        for (size_t j = 0; j < w.size(); ++j) c[j] = rd::ToFixed(w[j]);
      } else {
        auto* c = reinterpret_cast<float*>(host + at);
        for (size_t j = 0; j < w.size(); ++j) c[j] = static_cast<float>(w[j]);
      }
    };
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
    d.x_start = reinterpret_cast<const int32_t*>(device + t.x_start_at);
    d.x_coef = device + t.x_coef_at;
    d.y_start = reinterpret_cast<const int32_t*>(device + t.y_start_at);
    d.y_coef = device + t.y_coef_at;
    descs[i] = d;
  });
}

}  // namespace sluice::gpu
