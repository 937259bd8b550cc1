#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"

#include "operators/crop/crop_args.h"
#include "operators/crop/crop_plan.h"
#include "operators/sequence_frames.h"

namespace sluice {
namespace {

std::vector<float> Floats(const Operator& op, const std::string& name) {
  std::vector<float> v;
  for (double x : op.Arg<std::vector<double>>(name)) v.push_back(static_cast<float>(x));
  return v;
}

}  // namespace

CmnArgs::CmnArgs(const Operator& op)
    : out_type(op.Arg<DType>("dtype")),
      layout(op.Arg<std::string>("output_layout")),
      mean(Floats(op, "mean")),
      stddev(Floats(op, "std")),
      fill(Floats(op, "fill_values")),
      scale(static_cast<float>(op.Arg<double>("scale"))),
      shift(static_cast<float>(op.Arg<double>("shift"))),
      pad_output(op.Arg<bool>("pad_output")),
      policy(ReadOutOfBoundsPolicy(op)) {
  sequence_layout = layout.front() == 'F';
  if (sequence_layout) layout.erase(0, 1);
}

void PlanCropMirrorNormalize(const Operator& op, const CmnArgs& args, const Workspace& ws, CmnPlan& plan) {
  const TensorList& in = ws.Input(0);
  PlanCropMirrorNormalize(op, args, ws, in.shapes(), in.dtype(), ResolveSpatialLayout(in, op.name()), plan);
}

void PlanCropMirrorNormalize(const Operator& op, const CmnArgs& args, const Workspace& ws,
                             const std::vector<TensorShape>& shapes, DType dtype, const SpatialLayout& layout,
                             CmnPlan& plan) {
  if (dtype != DType::kUInt8 && dtype != DType::kFloat32)
    throw Error("crop_mirror_normalize takes uint8 or float32 images, got " + std::string(ToString(dtype)));
  if (args.sequence_layout && !SetupOnSequenceFrames())
    throw Error(op.name() + ": output_layout '" + op.Arg<std::string>("output_layout") +
                "' is for sequences (an input whose layout begins with F), the input is '" + layout.layout +
                "'; use '" + args.layout + "'");
  const bool volume = layout.volume;
  plan.channels_first = layout.channels_first;
  const CropArgs crop = ReadCropArgs(op, ws, /*volumetric=*/true);
  const std::vector<int> mirror = op.PerSampleArg<int>(ws, "mirror");
  const int n = static_cast<int>(shapes.size());
  const bool chw = args.layout[0] == 'C';
  plan.samples.resize(static_cast<size_t>(n));
  plan.volume = volume;
  OutputDesc& d = plan.output;
  d = OutputDesc{};
  d.dtype = args.out_type;
  d.layout = volume ? (chw ? "CDHW" : "DHWC") : (chw ? "CHW" : "HWC");
  for (int i = 0; i < n; ++i) {
    const TensorShape& s = shapes[static_cast<size_t>(i)];
    if (s.ndim() != layout.ndim())
      throw Error("expected " + layout.layout + (volume ? " volumes" : " images") + ", got shape " + s.ToString());
    const SpatialExtents e = ExtentsOf(layout, s);
    const int h = static_cast<int>(e.height), w = static_cast<int>(e.width), c = static_cast<int>(e.channels);
    for (const auto* v : {&args.mean, &args.stddev, &args.fill})
      if (v->size() > 1 && static_cast<int>(v->size()) != c)
        throw Error("mean, std and fill_values need 1 or " + std::to_string(c) + " values for " + std::to_string(c) +
                    "-channel images");
    if (c < 1 || c > 4)
      throw Error("crop_mirror_normalize: invalid input shape " + std::to_string(h) + "x" + std::to_string(w) + "x" +
                  std::to_string(c));
    CmnSamplePlan& sp = plan.samples[static_cast<size_t>(i)];
    kernels::CropWindow win;
    if (volume) {
      const CropWindow3 w3 = ResolveCrop3(crop, i, static_cast<int>(e.depth), h, w, op.name());
      win = kernels::ApplyOutOfBoundsPolicy(w3.hw, h, w, args.policy);
      sp.in_d = static_cast<int>(e.depth);
      sp.z = w3.z;
      sp.d = w3.d;
      ApplyDepthPolicy(sp.z, sp.d, sp.in_d, args.policy, op.name());
    } else {
      win = kernels::ApplyOutOfBoundsPolicy(ResolveCrop(crop, i, h, w, op.name()), h, w, args.policy);
      sp.in_d = 1;
      sp.z = 0;
      sp.d = 1;
    }
    sp.in_h = h;
    sp.in_w = w;
    sp.channels = c;
    kernels::CmnParams& p = sp.params;
    p.crop_x = win.x;
    p.crop_y = win.y;
    p.crop_w = win.w;
    p.crop_h = win.h;
    p.mirror = mirror[static_cast<size_t>(i)] != 0;
    p.mean = args.mean;
    p.stddev = args.stddev;
    p.fill_values = args.fill;
    p.scale = args.scale;
    p.shift = args.shift;
    p.layout = chw ? kernels::CmnLayout::kCHW : kernels::CmnLayout::kHWC;
    p.pad_output = args.pad_output;
    sp.coeffs = kernels::CmnNormalization(p, c);
    sp.out_channels = kernels::CmnOutputChannels(p, c);
    if (volume)
      d.shapes.push_back(chw ? TensorShape{sp.out_channels, sp.d, win.h, win.w}
                             : TensorShape{sp.d, win.h, win.w, sp.out_channels});
    else
      d.shapes.push_back(chw ? TensorShape{sp.out_channels, win.h, win.w} : TensorShape{win.h, win.w, sp.out_channels});
  }
  d.contiguous = SameShapes(d.shapes);
}

}  // namespace sluice
