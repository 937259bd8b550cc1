#include "operators/image/geometry_plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cast.h"
#include "kernels/transpose.h"
#include "operators/image/crop_args.h"

namespace sluice {
namespace {

void RequireHwc(const TensorShape& s) {
  if (s.ndim() != 3) throw Error("expected an HWC image, got shape " + s.ToString());
}

std::string ImageLayout(const TensorList& in) { return in.layout().empty() ? "HWC" : in.layout(); }

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

bool SameShapes(const std::vector<TensorShape>& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](const TensorShape& t) { return t == s[0]; });
}

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

void PlanFlip(const Operator& op, const Workspace& ws, FlipPlan& plan) {
  plan.horizontal = op.PerSampleArg<int>(ws, "horizontal");
  plan.vertical = op.PerSampleArg<int>(ws, "vertical");
  const TensorList& in = ws.Input(0);
  for (int i = 0; i < in.num_samples(); ++i) RequireHwc(in.shape(i));
  plan.output = {in.shapes(), in.dtype(), ImageLayout(in), SameShapes(in.shapes())};
}

TransposeArgs::TransposeArgs(const Operator& op)
    : output_layout(op.Arg<std::string>("output_layout")), transpose_layout(op.Arg<bool>("transpose_layout")) {
  for (int64_t p : op.Arg<std::vector<int64_t>>("perm")) perm.push_back(static_cast<int>(p));
}

OutputDesc PlanTranspose(const Operator& op, const TransposeArgs& args, const Workspace& ws) {
  const TensorList& in = ws.Input(0);
  OutputDesc d{{}, in.dtype(), "", false};
  for (int i = 0; i < in.num_samples(); ++i) {
    const auto& dims = in.shape(i).dims();
    if (dims.size() != args.perm.size())
      op.ThrowArgError("perm", "has " + std::to_string(args.perm.size()) + " entries for a " + std::to_string(dims.size()) +
                                   "-d input");
    std::vector<int64_t> out(dims.size());
    try {
      kernels::TransposedShape(dims, args.perm, out);
    } catch (const Error& e) {
      op.ThrowArgError("perm", e.message());
    }
    d.shapes.push_back(TensorShape(out));
  }
  if (!args.output_layout.empty()) {
    d.layout = args.output_layout;
  } else if (args.transpose_layout && in.layout().size() == args.perm.size()) {
    for (int p : args.perm) d.layout += in.layout()[static_cast<size_t>(p)];
  }
  d.contiguous = SameShapes(d.shapes);
  return d;
}

OutputDesc PlanCast(DType to, const Workspace& ws) {
  const TensorList& in = ws.Input(0);
  return {in.shapes(), to, in.layout(), in.is_contiguous()};
}

}  // namespace sluice
