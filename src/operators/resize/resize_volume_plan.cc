#include "operators/resize/resize_volume_plan.h"

#include <cmath>

#include "operators/resize/resize_types.h"

namespace sluice {
namespace {

// (z, y, x) of a 1- or 3-value argument; empty stays empty.
std::vector<double> ThreeAxes(const Operator& op, const std::vector<double>& v, const char* name) {
  if (v.empty()) return v;
  if (v.size() == 1) return {v[0], v[0], v[0]};
  if (v.size() != 3) op.ThrowArgError(name, "volumes take (depth, height, width) or one value");
  return v;
}

void PlanSample(const Operator& op, const ResizeArgs& args, const ResizeSampleArgs& a, double rz,
                const std::vector<double>& max_size, const TensorShape& s, bool channels_first,
                ResizeVolumeSamplePlan& p) {
  const int o = channels_first ? 1 : 0;  // the index of D
  p.in_d = static_cast<int>(s[o]);
  p.in_h = static_cast<int>(s[o + 1]);
  p.in_w = static_cast<int>(s[o + 2]);
  p.channels = static_cast<int>(channels_first ? s[0] : s[3]);
  if (p.in_d <= 0 || p.in_h <= 0 || p.in_w <= 0)
    throw Error("resize: empty extent (in " + s.ToString() + ")");
  // CDHW channels are resized one at a time, so any number of them; DHWC ones together (1..4).
  if (p.channels < 1 || (!channels_first && p.channels > 4))
    throw Error("resize: channels must be 1..4, got " + std::to_string(p.channels));
  const double in[3] = {double(p.in_d), double(p.in_h), double(p.in_w)};
  double lo[3] = {0, 0, 0}, hi[3] = {in[0], in[1], in[2]};
  if (!a.roi_start.empty() || !a.roi_end.empty()) {
    if (a.roi_start.empty() || a.roi_end.empty())
      op.ThrowArgError("roi_start", "roi_start and roi_end go together, (z, y, x) or one value each");
    const auto rs = ThreeAxes(op, a.roi_start, "roi_start"), re = ThreeAxes(op, a.roi_end, "roi_end");
    for (int d = 0; d < 3; ++d) {
      const double scale = args.roi_relative ? in[d] : 1.0;
      lo[d] = rs[size_t(d)] * scale;
      hi[d] = re[size_t(d)] * scale;
    }
  }
  std::vector<double> size(3, 0.0);
  ResizeMode mode = args.mode;
  if (!a.size.empty()) {
    size = ThreeAxes(op, a.size, "size");
  } else if (op.HasArg("resize_shorter")) {
    size = {a.shorter, a.shorter, a.shorter};
    mode = ResizeMode::kNotSmaller;
  } else if (op.HasArg("resize_longer")) {
    size = {a.longer, a.longer, a.longer};
    mode = ResizeMode::kNotLarger;
  } else {
    const double r[3] = {rz, a.ry, a.rx};  // a negative extent flips that axis
    for (int d = 0; d < 3; ++d) {
      if (r[d] < 0) std::swap(lo[d], hi[d]);
      size[size_t(d)] = std::abs(r[d]);
    }
  }
  for (double v : size)
    if (v < 0) op.ThrowArgError("size", "extents must not be negative");
  const std::vector<double> roi{std::abs(hi[0] - lo[0]), std::abs(hi[1] - lo[1]), std::abs(hi[2] - lo[2])};
  for (double v : roi)
    if (!(v > 0) || !std::isfinite(v)) op.ThrowArgError("roi_start", "the region of interest is empty");
  const std::vector<double> exact = ResizeOutputExtentsN(roi, size, mode, max_size);
  int out[3];
  for (int d = 0; d < 3; ++d) {
    out[d] = std::max(1, static_cast<int>(std::lround(exact[size_t(d)])));
    // subpixel_scale: a fractional extent keeps its scale, the region adjusted about its centre.
    if (args.subpixel_scale) KeepSubpixelScale(lo[d], hi[d], exact[size_t(d)], out[d]);
  }
  p.out_d = out[0];
  p.out_h = out[1];
  p.out_w = out[2];
  p.params = args.params;
  p.params.roi = kernels::ResizeRoi{static_cast<float>(lo[2]), static_cast<float>(lo[1]), static_cast<float>(hi[2]),
                                    static_cast<float>(hi[1])};
  p.depth = kernels::ResizeDepthRoi{static_cast<double>(static_cast<float>(lo[0])),
                                    static_cast<double>(static_cast<float>(hi[0]))};
}

}  // namespace

void PlanResizeVolumes(const Operator& op, const ResizeArgs& args, const Workspace& ws, ResizeVolumePlan& plan) {
  const TensorList& in = ws.Input(0);
  CheckResizeTypes(op, in.dtype(), args.out_type ? *args.out_type : in.dtype());
  if (op.HasArg("input_window")) op.ThrowArgError("input_window", "is not supported for volumes");
  const int n = in.num_samples();
  std::vector<ResizeSampleArgs> sample_args;
  ResizeSampleArgs::At(op, ws, n, sample_args);
  const std::vector<double> rz = op.PerSampleArg<double>(ws, "resize_z");
  std::vector<double> max_size = ThreeAxes(op, args.max_size_values, "max_size");
  if (max_size.empty()) max_size.assign(3, 0.0);
  plan.samples.resize(static_cast<size_t>(n));
  plan.output = OutputDesc{};
  plan.output.dtype = args.out_type ? *args.out_type : in.dtype();
  plan.channels_first = op.InputLayout(ws, 0) == "CDHW";
  plan.output.layout = plan.channels_first ? "CDHW" : "DHWC";
  for (int i = 0; i < n; ++i) {
    ResizeVolumeSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    PlanSample(op, args, sample_args[static_cast<size_t>(i)], rz[static_cast<size_t>(i)], max_size, in.shape(i),
               plan.channels_first, p);
    plan.output.shapes.push_back(plan.channels_first ? TensorShape{p.channels, p.out_d, p.out_h, p.out_w}
                                                     : TensorShape{p.out_d, p.out_h, p.out_w, p.channels});
  }
  plan.output.contiguous = SameShapes(plan.output.shapes);
}

}  // namespace sluice
