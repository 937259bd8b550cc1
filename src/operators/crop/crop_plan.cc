#include "operators/crop/crop_plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/tensor/cast.h"
#include "operators/crop/crop_args.h"
#include "operators/crop/spatial_layout.h"

namespace sluice {
namespace {

// fill_values[c % size] for c < channels, converted to `dtype` (cast's rules), as bytes.
std::vector<uint8_t> FillPixel(const std::vector<double>& fill, DType dtype, int64_t channels) {
  const size_t es = SizeOf(dtype);
  std::vector<uint8_t> px(static_cast<size_t>(channels) * es);
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t c = 0; c < channels; ++c) {
      const double v = fill.empty() ? 0.0 : fill[fill.size() == 1 ? 0 : static_cast<size_t>(c) % fill.size()];
      const T t = kernels::ConvertSaturate<T>(v);
      std::memcpy(px.data() + static_cast<size_t>(c) * es, &t, es);
    }
  });
  return px;
}

}  // namespace

CropOpArgs::CropOpArgs(const Operator& op)
    : policy(ReadOutOfBoundsPolicy(op)), fill(op.Arg<std::vector<double>>("fill_values")) {}

void ApplyDepthPolicy(int& z, int& d, int in_d, kernels::OutOfBoundsPolicy policy, const std::string& op_name) {
  if (policy == kernels::OutOfBoundsPolicy::kPad || (z >= 0 && z + d <= in_d)) return;
  if (policy == kernels::OutOfBoundsPolicy::kTrim) {
    const int a = std::clamp(z, 0, in_d), b = std::clamp(z + d, a, in_d);
    z = a;
    d = b - a;
    return;
  }
  Error::Context c;
  c.op = op_name;
  throw Error("the crop window's depth (z " + std::to_string(z) + ", " + std::to_string(d) +
                  " slices) is outside the volume's " + std::to_string(in_d) +
                  " slices (out_of_bounds_policy=\"error\"; use \"pad\" or \"trim_to_shape\")",
              c);
}

void PlanCrop(const Operator& op, const CropOpArgs& args, const Workspace& ws, CropPlan& plan) {
  const TensorList& in = ws.Input(0);
  const SpatialLayout l = ResolveSpatialLayout(in, op.name());
  const CropArgs crop = ReadCropArgs(op, ws, /*volumetric=*/true);
  const bool any_fill = std::any_of(args.fill.begin(), args.fill.end(), [](double v) { return v != 0.0 || std::signbit(v); });
  plan.samples.resize(static_cast<size_t>(in.num_samples()));
  plan.channels_first = l.channels_first;
  plan.volume = l.volume;
  plan.output = OutputDesc{{}, in.dtype(), l.layout, false};
  for (int i = 0; i < in.num_samples(); ++i) {
    const SpatialExtents e = ExtentsOf(l, in.shape(i));
    const int h = static_cast<int>(e.height), w = static_cast<int>(e.width);
    CropSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    kernels::CropWindow win;
    p.in_d = e.depth;
    if (l.volume) {
      const CropWindow3 w3 = ResolveCrop3(crop, i, static_cast<int>(e.depth), h, w, op.name());
      win = w3.hw;
      p.z = w3.z;
      p.d = w3.d;
      ApplyDepthPolicy(p.z, p.d, static_cast<int>(e.depth), args.policy, op.name());
    } else {
      win = ResolveCrop(crop, i, h, w, op.name());
      p.z = 0;
      p.d = 1;
    }
    p.in_h = h;
    p.in_w = w;
    p.channels = e.channels;
    p.window = kernels::ApplyOutOfBoundsPolicy(win, h, w, args.policy);
    p.fill.clear();
    const bool inside = kernels::InsideImage(p.window, h, w) && p.z >= 0 && p.z + p.d <= e.depth;
    if (any_fill && !inside) p.fill = FillPixel(args.fill, in.dtype(), e.channels);
    plan.output.shapes.push_back(ShapeOf(l, SpatialExtents{p.d, p.window.h, p.window.w, e.channels}));
  }
  plan.output.contiguous = SameShapes(plan.output.shapes);
}

}  // namespace sluice
