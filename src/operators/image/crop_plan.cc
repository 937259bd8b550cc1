#include "operators/image/crop_plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/tensor/cast.h"
#include "operators/image/crop_args.h"
#include "operators/image/hwc_image.h"

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

void PlanCrop(const Operator& op, const CropOpArgs& args, const Workspace& ws, CropPlan& plan) {
  const TensorList& in = ws.Input(0);
  const CropArgs crop = ReadCropArgs(op, ws);
  const bool any_fill = std::any_of(args.fill.begin(), args.fill.end(), [](double v) { return v != 0.0 || std::signbit(v); });
  plan.samples.resize(static_cast<size_t>(in.num_samples()));
  plan.output = OutputDesc{{}, in.dtype(), ImageLayout(in), false};
  for (int i = 0; i < in.num_samples(); ++i) {
    const TensorShape& s = in.shape(i);
    RequireHwc(s);
    const int h = static_cast<int>(s[0]), w = static_cast<int>(s[1]);
    const kernels::CropWindow win = ResolveCrop(crop, i, h, w, op.name());
    CropSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    p.in_h = h;
    p.in_w = w;
    p.channels = s[2];
    p.window = kernels::ApplyOutOfBoundsPolicy(win, h, w, args.policy);
    p.fill.clear();
    if (any_fill && !kernels::InsideImage(p.window, h, w)) p.fill = FillPixel(args.fill, in.dtype(), s[2]);
    plan.output.shapes.push_back(TensorShape{p.window.h, p.window.w, s[2]});
  }
  plan.output.contiguous = SameShapes(plan.output.shapes);
}

}  // namespace sluice
