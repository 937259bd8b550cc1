#include "operators/resize/resize_plan.h"

#include <algorithm>
#include <cmath>

#include "operators/resize/resampling_args.h"
#include "operators/resize/resize_types.h"

namespace sluice {

ResizeArgs::ResizeArgs(const Operator& op) : params(ResizeFilterParams(op)) {
  mode = *ParseResizeMode(op.Arg<std::string>("mode"));
  auto max = op.Arg<std::vector<double>>("max_size");
  max_size_values = max;
  if (max.size() == 1) max.push_back(max[0]);
  if (max.size() == 2) max_size = {max[0], max[1]};
  if (op.HasArg("dtype")) out_type = op.Arg<DType>("dtype");
  roi_relative = op.Arg<bool>("roi_relative");
  subpixel_scale = op.Arg<bool>("subpixel_scale");
}

void ResizeSampleArgs::At(const Operator& op, const Workspace& ws, int n, std::vector<ResizeSampleArgs>& out) {
  const auto rx = op.PerSampleArg<double>(ws, "resize_x");
  const auto ry = op.PerSampleArg<double>(ws, "resize_y");
  const auto shorter = op.PerSampleArg<double>(ws, "resize_shorter");
  const auto longer = op.PerSampleArg<double>(ws, "resize_longer");
  const auto size = op.PerSampleListArg<double>(ws, "size");
  const auto roi_start = op.PerSampleListArg<double>(ws, "roi_start");
  const auto roi_end = op.PerSampleListArg<double>(ws, "roi_end");
  out.resize(static_cast<size_t>(n));
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = ResizeSampleArgs{rx[k], ry[k], shorter[k], longer[k], size[k], roi_start[k], roi_end[k]};
}

ResizeSampleArgs ResizeSampleArgs::Constant(const Operator& op) {
  return ResizeSampleArgs{op.Arg<double>("resize_x"),          op.Arg<double>("resize_y"),
                          op.Arg<double>("resize_shorter"),    op.Arg<double>("resize_longer"),
                          op.Arg<std::vector<double>>("size"), op.Arg<std::vector<double>>("roi_start"),
                          op.Arg<std::vector<double>>("roi_end")};
}

void PlanResizeSample(const Operator& op, const ResizeArgs& args, const ResizeSampleArgs& a, int in_h, int in_w,
                      int channels, ResizeSamplePlan& p) {
  p.in_h = in_h;
  p.in_w = in_w;
  p.channels = channels;
  // Region of interest, in (y, x) order like DALI; start > end mirrors.
  double y0 = 0, x0 = 0, y1 = p.in_h, x1 = p.in_w;
  if (!a.roi_start.empty() || !a.roi_end.empty()) {
    // (y, x) each, or one value for both axes.
    if (a.roi_start.empty() || a.roi_end.empty() || a.roi_start.size() > 2 || a.roi_end.size() > 2)
      op.ThrowArgError("roi_start", "roi_start and roi_end go together, (y, x) or one value each");
    const auto& rs = a.roi_start;
    const auto& re = a.roi_end;
    const double sy = args.roi_relative ? p.in_h : 1, sx = args.roi_relative ? p.in_w : 1;
    y0 = rs[0] * sy;
    x0 = rs.back() * sx;
    y1 = re[0] * sy;
    x1 = re.back() * sx;
  }
  ResizeRequest req;
  req.mode = args.mode;
  req.max_size = args.max_size;
  if (!a.size.empty()) {
    // (height, width), or one value for every extent (DALI's scalar size, e.g. size=256 with
    // mode="not_smaller" makes the shorter side 256).
    if (a.size.size() > 2) op.ThrowArgError("size", "expected (height, width) or one value");
    req.size = {a.size[0], a.size.back()};
  } else if (op.HasArg("resize_shorter")) {
    req.size = {a.shorter, a.shorter};
    req.mode = ResizeMode::kNotSmaller;
  } else if (op.HasArg("resize_longer")) {
    req.size = {a.longer, a.longer};
    req.mode = ResizeMode::kNotLarger;
  } else {
    // A negative extent flips that axis.
    if (a.ry < 0) std::swap(y0, y1);
    if (a.rx < 0) std::swap(x0, x1);
    req.size = {std::abs(a.ry), std::abs(a.rx)};
  }
  if (req.size[0] < 0 || req.size[1] < 0) op.ThrowArgError("size", "extents must not be negative");
  const double roi_h = std::abs(y1 - y0), roi_w = std::abs(x1 - x0);
  if (roi_h <= 0 || roi_w <= 0) op.ThrowArgError("roi_start", "the region of interest is empty");
  const auto out = ResizeOutputSize(roi_h, roi_w, req);
  p.out_h = out[0];
  p.out_w = out[1];
  if (args.subpixel_scale) {
    // Keep the requested scale along an axis whose exact extent was fractional: the region
    // grows or shrinks about its centre by rounded / exact (a flipped region stays flipped).
    const auto exact = ResizeOutputExtents(roi_h, roi_w, req);
    KeepSubpixelScale(y0, y1, exact[0], p.out_h);
    KeepSubpixelScale(x0, x1, exact[1], p.out_w);
  }
  const kernels::ResizeRoi roi{static_cast<float>(x0), static_cast<float>(y0), static_cast<float>(x1), static_cast<float>(y1)};
  // What the kernel would reject, checked here so that every backend fails alike, in Setup.
  if (p.in_h <= 0 || p.in_w <= 0)
    throw Error("resize: empty extent (in " + std::to_string(p.in_h) + "x" + std::to_string(p.in_w) + ", out " +
                std::to_string(p.out_h) + "x" + std::to_string(p.out_w) + ")");
  if (p.channels < 1 || p.channels > 4) throw Error("resize: channels must be 1..4, got " + std::to_string(p.channels));
  if (roi.x0 == roi.x1 || roi.y0 == roi.y1 || !std::isfinite(roi.x0) || !std::isfinite(roi.x1) || !std::isfinite(roi.y0) ||
      !std::isfinite(roi.y1))
    throw Error("resize: degenerate ROI");
  p.params = args.params;
  p.params.roi = roi;
}

void PlanResize(const Operator& op, const ResizeArgs& args, const Workspace& ws, ResizePlan& plan, bool windowed_input,
                bool planar_input) {
  const TensorList& in = ws.Input(0);
  CheckResizeTypes(op, in.dtype(), args.out_type ? *args.out_type : in.dtype());
  const int n = in.num_samples();
  if (n > 0 && in.shape(0).ndim() != 3)
    throw Error("resize: volumes (layout " + in.layout() + ") are resized by the CPU operator only");
  if (args.max_size_values.size() > 2) op.ThrowArgError("max_size", "(depth, height, width) is for volumes");
  if (op.HasArg("resize_z")) op.ThrowArgError("resize_z", "is for volumes (DHWC, CDHW)");
  plan.channels_first = op.InputLayout(ws, 0) == "CHW";
  if (plan.channels_first && !planar_input) throw Error("resize: CHW images are resized by the CPU operator only");
  std::vector<ResizeSampleArgs> sample_args;
  ResizeSampleArgs::At(op, ws, n, sample_args);
  const bool has_window = op.HasArg("input_window");
  if (has_window && !windowed_input) op.ThrowArgError("input_window", "is supported by the CPU resize only");
  if (has_window && plan.channels_first) op.ThrowArgError("input_window", "is for HWC images, not CHW");
  const auto windows = has_window ? op.PerSampleListArg<int64_t>(ws, "input_window")
                                  : std::vector<std::vector<int64_t>>(static_cast<size_t>(n));
  plan.samples.resize(static_cast<size_t>(n));
  OutputDesc& d = plan.output;
  d = OutputDesc{};
  d.dtype = args.out_type ? *args.out_type : in.dtype();
  d.layout = plan.channels_first ? "CHW" : "HWC";
  const int first = plan.channels_first ? 1 : 0;  // the index of H
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    const TensorShape& s = in.shape(i);
    ResizeSamplePlan& p = plan.samples[k];
    const int h = static_cast<int>(s[first]), w = static_cast<int>(s[first + 1]);
    p.window.reset();
    int full_h = h, full_w = w;
    if (!windows[k].empty()) {
      // The input is a window of a bigger image (ROI decode): plan for the whole image.
      const auto& v = windows[k];
      if (v.size() != 4 || v[0] < 0 || v[1] < 0 || v[0] + h > v[2] || v[1] + w > v[3])
        op.ThrowArgError("input_window", "expected [y, x, full_height, full_width] holding the " + std::to_string(h) +
                                             "x" + std::to_string(w) + " input");
      full_h = static_cast<int>(v[2]);
      full_w = static_cast<int>(v[3]);
      if (full_h != h || full_w != w)
        p.window = kernels::ResizeInputWindow{static_cast<int>(v[0]), static_cast<int>(v[1]), full_h, full_w};
    }
    if (plan.channels_first) {
      // Planes are resized one at a time as 1-channel images, so any number of them.
      if (s[0] < 1) throw Error("resize: a CHW image needs at least 1 channel, got shape " + s.ToString());
      PlanResizeSample(op, args, sample_args[k], full_h, full_w, 1, p);
      p.channels = static_cast<int>(s[0]);
      d.shapes.push_back(TensorShape{p.channels, p.out_h, p.out_w});
      continue;
    }
    PlanResizeSample(op, args, sample_args[k], full_h, full_w, static_cast<int>(s[2]), p);
    d.shapes.push_back(TensorShape{p.out_h, p.out_w, p.channels});
  }
  // A dense batch (fixed output size) is stored contiguously so it can be handed over as one tensor.
  d.contiguous = SameShapes(d.shapes);
}

}  // namespace sluice
