#include "operators/resize/tensor_resize_plan.h"

#include <cmath>
#include <numeric>
#include <string>

#include "operators/slice/slice_pad_util.h"
#include "operators/resize/resampling_args.h"
#include "operators/resize/resize_types.h"

namespace sluice {
namespace {

// One value per listed axis, or one value for every listed axis (empty stays empty).
std::vector<double> PerAxis(const Operator& op, const char* name, const std::vector<double>& v, size_t nargs) {
  if (v.empty() || v.size() == nargs) return v;
  if (v.size() == 1) return std::vector<double>(nargs, v[0]);
  op.ThrowArgError(name, "expected " + std::to_string(nargs) + " values (one per resized axis) or one, got " +
                             std::to_string(v.size()));
}

int RoundExtent(double x, SizeRounding r) {
  switch (r) {
    case SizeRounding::kTruncate: return static_cast<int>(x);
    case SizeRounding::kCeil: return static_cast<int>(std::ceil(x));
    default: return static_cast<int>(std::lround(x));
  }
}

// The per-axis values of one sample (every axis of the tensor), DALI's CalculateSampleParams.
struct AxisPlan {
  int64_t in = 0;
  int out = 0;
  double lo = 0, hi = 0;
  bool resized() const { return out != in || lo != 0.0 || hi != double(in); }
};

// The tensor as outer x groups x channels (see the header).
void Group(const std::vector<AxisPlan>& ax, bool exact_identity, TensorResizeSamplePlan& p) {
  const int n = static_cast<int>(ax.size());
  int first = n, last = -1;
  for (int d = 0; d < n; ++d)
    if (ax[size_t(d)].resized()) first = std::min(first, d), last = d;
  p.copy = last < 0;
  if (p.copy) return;
  struct G { int64_t in; int out; double lo, hi; };
  std::vector<G> g;
  for (int d = first; d <= last; ++d) {
    const AxisPlan& a = ax[size_t(d)];
    if (a.resized()) {
      g.push_back({a.in, a.out, a.lo, a.hi});
    } else if (!g.empty() && !ax[size_t(d - 1)].resized()) {  // extends the unchanged group before it
      g.back().in *= a.in;
      g.back().out = static_cast<int>(g.back().in);
      g.back().hi = double(g.back().in);
    } else {
      g.push_back({a.in, static_cast<int>(a.in), 0.0, double(a.in)});
    }
  }
  int64_t outer = 1, trailing = 1;
  for (int d = 0; d < first; ++d) outer *= ax[size_t(d)].in;
  for (int d = last + 1; d < n; ++d) trailing *= ax[size_t(d)].in;
  p.channels = static_cast<int>(trailing);
  if (trailing > 4) {
    g.push_back({trailing, static_cast<int>(trailing), 0.0, double(trailing)});
    p.channels = 1;
  }
  if (g.size() < 3 && outer > 1 && exact_identity) {  // one call: outer as an unchanged leading group
    g.insert(g.begin(), {outer, static_cast<int>(outer), 0.0, double(outer)});
    outer = 1;
  }
  if (g.size() == 1) g.insert(g.begin(), {1, 1, 0.0, 1.0});
  if (g.size() > 3)
    throw Error("tensor_resize: the resized axes, with the unresized axes between them and more than 4 trailing "
                "elements, make " + std::to_string(g.size()) + " groups of axes; at most 3 are supported");
  p.outer = outer;
  p.groups = static_cast<int>(g.size());
  for (size_t k = 0; k < g.size(); ++k) {
    if (g[k].in > (1 << 30)) throw Error("tensor_resize: an extent of " + std::to_string(g[k].in) + " is too large");
    p.in[k] = static_cast<int>(g[k].in);
    p.out[k] = g[k].out;
    p.lo[k] = g[k].lo;
    p.hi[k] = g[k].hi;
  }
}

}  // namespace

TensorResizeArgs::TensorResizeArgs(const Operator& op) : params(ResizeFilterParams(op)) {
  mode = *ParseResizeMode(op.Arg<std::string>("mode"));
  const std::string r = op.Arg<std::string>("size_rounding");
  rounding = r == "truncate" ? SizeRounding::kTruncate : r == "ceil" ? SizeRounding::kCeil : SizeRounding::kRound;
  max_size = op.Arg<std::vector<double>>("max_size");
  if (op.HasArg("dtype")) out_type = op.Arg<DType>("dtype");
  roi_relative = op.Arg<bool>("roi_relative");
  subpixel_scale = op.Arg<bool>("subpixel_scale");
  has_sizes = op.HasArg("sizes");
}

void PlanTensorResize(const Operator& op, const TensorResizeArgs& args, const Workspace& ws, TensorResizePlan& plan) {
  const TensorList& in = ws.Input(0);
  const int n = in.num_samples();
  const int ndim = n > 0 ? in.shape(0).ndim() : 1;
  if (ndim < 1) throw Error("tensor_resize: the input must have at least 1 dimension, got a scalar");
  std::vector<int> axes;
  if (op.HasArg("axis_names")) {
    axes = AxesFromNames(op, "axis_names", op.Arg<std::string>("axis_names"), in.layout());
  } else if (op.HasArg("axes")) {
    axes = NormalizeAxes(op, "axes", op.Arg<std::vector<int>>("axes"), ndim);
  } else {
    axes.resize(size_t(ndim));
    std::iota(axes.begin(), axes.end(), 0);
  }
  const size_t nargs = axes.size();
  const auto sizes = op.PerSampleListArg<double>(ws, args.has_sizes ? "sizes" : "scales");
  const auto roi_start = op.PerSampleListArg<double>(ws, "roi_start");
  const auto roi_end = op.PerSampleListArg<double>(ws, "roi_end");
  const auto alignment = op.PerSampleListArg<double>(ws, "alignment");
  const std::vector<double> max_size = PerAxis(op, "max_size", args.max_size, nargs);
  // Unchanged groups are copied exactly unless the filter they get (the magnification one, scale
  // 1) is the Gaussian, which smooths at scale 1 as in resize.
  const bool exact_identity = args.params.mag_filter != kernels::ResizeFilter::kGaussian;
  plan.samples.assign(size_t(n), TensorResizeSamplePlan{});
  OutputDesc& d = plan.output;
  d = OutputDesc{};
  d.dtype = args.out_type ? *args.out_type : in.dtype();
  CheckResizeTypes(op, in.dtype(), d.dtype);
  d.layout = in.layout();
  for (int i = 0; i < n; ++i) {
    const size_t k = size_t(i);
    const TensorShape& s = in.shape(i);
    const std::vector<double> req_arg = PerAxis(op, args.has_sizes ? "sizes" : "scales", sizes[k], nargs);
    if (req_arg.size() != nargs)
      op.ThrowArgError(args.has_sizes ? "sizes" : "scales", "expected " + std::to_string(nargs) + " values");
    const std::vector<double> rs = PerAxis(op, "roi_start", roi_start[k], nargs);
    const std::vector<double> re = PerAxis(op, "roi_end", roi_end[k], nargs);
    const std::vector<double> al = PerAxis(op, "alignment", alignment[k], nargs);
    // Every axis: the requested extent (unlisted: unchanged), the region, the alignment.
    const size_t nd = static_cast<size_t>(ndim);
    std::vector<AxisPlan> ax(nd);
    std::vector<double> req(nd), roi(nd), align(nd, 0.5), cap(nd, 0.0);
    std::vector<bool> flip(nd, false);
    bool empty = false;
    for (int a = 0; a < ndim; ++a) {
      ax[size_t(a)].in = s[a];
      ax[size_t(a)].hi = double(s[a]);
      req[size_t(a)] = double(s[a]);
      empty = empty || s[a] == 0;
    }
    for (size_t j = 0; j < nargs; ++j) {
      const size_t a = size_t(axes[j]);
      const double extent = double(s[int(a)]);
      req[a] = args.has_sizes ? req_arg[j] : req_arg[j] * extent;  // scales: of the whole extent, as DALI
      if (!rs.empty()) {
        const double scale = args.roi_relative ? extent : 1.0;
        ax[a].lo = rs[j] * scale;
        ax[a].hi = re[j] * scale;
      }
      if (!al.empty()) align[a] = al[j];
      if (!max_size.empty()) cap[a] = max_size[j];
    }
    for (size_t a = 0; a < size_t(ndim); ++a) {
      if (req[a] < 0) op.ThrowArgError(args.has_sizes ? "sizes" : "scales", "must not be negative");
      if (ax[a].hi < ax[a].lo) {  // a flipped region: planned unflipped, flipped back below
        std::swap(ax[a].lo, ax[a].hi);
        flip[a] = true;
      }
      roi[a] = ax[a].hi - ax[a].lo;
      if (!std::isfinite(roi[a]) || (roi[a] == 0 && req[a] != 0 && !empty))
        op.ThrowArgError("roi_start", "the region of interest is empty along axis " + std::to_string(a));
    }
    TensorResizeSamplePlan& p = plan.samples[k];
    std::vector<int64_t> out_dims(nd);
    if (empty) {  // nothing to sample: the output keeps the input's (empty) shape
      p.copy = true;
      p.out_shape = s;
      d.shapes.push_back(s);
      continue;
    }
    const std::vector<double> exact = ResizeOutputExtentsN(roi, req, args.mode, cap);
    for (size_t a = 0; a < size_t(ndim); ++a) {
      AxisPlan& x = ax[a];
      x.out = std::max(1, RoundExtent(exact[a], args.rounding));
      if (flip[a]) std::swap(x.lo, x.hi);
      if (args.subpixel_scale) KeepSubpixelScale(x.lo, x.hi, exact[a], x.out, align[a]);
      // The kernels take the region as float: plan with the values they will use.
      x.lo = double(float(x.lo));
      x.hi = double(float(x.hi));
      out_dims[a] = x.out;
    }
    p.out_shape = TensorShape(out_dims);
    Group(ax, exact_identity, p);
    d.shapes.push_back(p.out_shape);
  }
  d.contiguous = SameShapes(d.shapes);
}

}  // namespace sluice
