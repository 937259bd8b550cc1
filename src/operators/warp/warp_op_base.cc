#include "operators/warp/warp_op_base.h"

#include <cmath>
#include <type_traits>

#include "kernels/warp/warp_affine_3d.h"

namespace sluice {

const std::vector<std::string>& WarpInterpNames() {
  static const std::vector<std::string> names = {"NN", "LINEAR", "CUBIC", "LANCZOS3", "TRIANGULAR", "GAUSSIAN"};
  return names;
}

WarpOpBase::WarpOpBase(const OpSpec& spec) : Operator(spec) {
  options_.interp = Arg<std::string>("interp_type") == "NN" ? kernels::WarpInterp::kNearest : kernels::WarpInterp::kLinear;
  const auto fill = Arg<std::vector<double>>("fill_value");
  options_.clamp = fill.empty();  // DALI: no fill_value -> the border pixels are repeated
  options_.fill = fill.empty() ? 0.0f : static_cast<float>(fill[0]);
}

std::vector<std::optional<std::array<int64_t, 2>>> WarpOpBase::ExplicitSizes(const Workspace& ws) const {
  const auto n = static_cast<size_t>(ws.batch_size());
  std::vector<std::optional<std::array<int64_t, 2>>> out(n);
  if (!HasArg("size")) return out;
  const auto sizes = PerSampleListArg<double>(ws, "size");
  for (size_t i = 0; i < n; ++i) {
    const auto& s = sizes[i];
    if (s.empty() && !IsArgInput("size")) continue;
    if (s.size() != 2)
      ThrowPerSample("size", static_cast<int>(i), "expected (height, width), got " + std::to_string(s.size()) + " values");
    std::array<int64_t, 2> hw{};
    for (int d = 0; d < 2; ++d) {
      const double v = s[static_cast<size_t>(d)];
      if (!(v > 0) || !std::isfinite(v) || v > 1e8)
        ThrowPerSample("size", static_cast<int>(i), "output extents must be positive, got " + std::to_string(v));
      hw[static_cast<size_t>(d)] = std::max<int64_t>(static_cast<int64_t>(std::lround(v)), 1);
    }
    out[i] = hw;
  }
  return out;
}

std::vector<std::optional<std::array<int64_t, 3>>> WarpOpBase::ExplicitSizes3(const Workspace& ws) const {
  const auto n = static_cast<size_t>(ws.batch_size());
  std::vector<std::optional<std::array<int64_t, 3>>> out(n);
  if (!HasArg("size")) return out;
  const auto sizes = PerSampleListArg<double>(ws, "size");
  for (size_t i = 0; i < n; ++i) {
    const auto& s = sizes[i];
    if (s.empty()) continue;
    if (s.size() != 3)
      ThrowPerSample("size", static_cast<int>(i),
                     "volumes take (depth, height, width), got " + std::to_string(s.size()) + " values");
    std::array<int64_t, 3> dhw{};
    for (int d = 0; d < 3; ++d) {
      const double v = s[static_cast<size_t>(d)];
      if (!(v > 0) || !std::isfinite(v) || v > 1e8)
        ThrowPerSample("size", static_cast<int>(i), "output extents must be positive, got " + std::to_string(v));
      dhw[static_cast<size_t>(d)] = std::max<int64_t>(static_cast<int64_t>(std::lround(v)), 1);
    }
    out[i] = dhw;
  }
  return out;
}

void WarpOpBase::PlanVolumes(const Workspace&) { throw Error("volumes are not supported"); }

std::vector<OutputDesc> WarpOpBase::Setup(Workspace& ws) {
  const TensorList& in = ws.Input(0);
  if (in.dtype() != DType::kUInt8 && in.dtype() != DType::kFloat32)
    throw Error("input type " + std::string(ToString(in.dtype())) + " is not supported (uint8 or float32)");
  out_type_ = HasArg("dtype") ? Arg<DType>("dtype") : in.dtype();
  const auto n = static_cast<size_t>(ws.batch_size());
  volumes_ = InputLayout(ws, 0) == "DHWC";  // the schema declares whether volumes are taken
  if (volumes_) {
    maps3_.assign(n, kernels::Affine3D{});
    sizes3_.assign(n, {0, 0, 0});
    PlanVolumes(ws);
    OutputDesc d;
    d.dtype = out_type_;
    d.layout = "DHWC";
    for (size_t i = 0; i < n; ++i)
      d.shapes.push_back(TensorShape{sizes3_[i][0], sizes3_[i][1], sizes3_[i][2], in.shape(static_cast<int>(i))[3]});
    d.contiguous = SameShapes(d.shapes);
    return {d};
  }
  for (int i = 0; i < in.num_samples(); ++i) {
    const TensorShape& s = in.shape(i);
    if (s[2] < 1)
      throw Error("expected HWC images of at least one channel, sample " + std::to_string(i) + " has shape " +
                  s.ToString());
  }
  maps_.assign(n, kernels::Affine2D{});
  sizes_.assign(n, {0, 0});
  Plan(ws);
  OutputDesc d;
  d.dtype = out_type_;
  d.layout = "HWC";
  for (size_t i = 0; i < n; ++i) d.shapes.push_back(TensorShape{sizes_[i][0], sizes_[i][1], in.shape(static_cast<int>(i))[2]});
  d.contiguous = !d.shapes.empty();
  for (const TensorShape& s : d.shapes) d.contiguous = d.contiguous && s == d.shapes[0];
  return {d};
}

void WarpOpBase::RunVolume(Workspace& ws, int i) {
  const TensorList& in = ws.Input(0);
  TensorList& out = ws.Output(0);
  const TensorShape& is = in.shape(i);
  const TensorShape& os = out.shape(i);
  const kernels::Affine3D& m = maps3_[static_cast<size_t>(i)];
  auto run = [&](const auto* src) {
    using In = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    const kernels::DhwcView<const In> iv{src, is[0], is[1], is[2], is[3]};
    if (out_type_ == DType::kUInt8)
      kernels::WarpAffine3D(iv, kernels::DhwcView<uint8_t>{out.mutable_sample<uint8_t>(i), os[0], os[1], os[2], os[3]}, m,
                            options_);
    else
      kernels::WarpAffine3D(iv, kernels::DhwcView<float>{out.mutable_sample<float>(i), os[0], os[1], os[2], os[3]}, m,
                            options_);
  };
  if (in.dtype() == DType::kUInt8) run(in.sample<uint8_t>(i));
  else run(in.sample<float>(i));
}

void WarpOpBase::RunSample(Workspace& ws, int i, int) {
  if (volumes_) return RunVolume(ws, i);
  const TensorList& in = ws.Input(0);
  TensorList& out = ws.Output(0);
  const TensorShape& is = in.shape(i);
  const TensorShape& os = out.shape(i);
  const kernels::Affine2D& m = maps_[static_cast<size_t>(i)];
  auto run = [&](const auto* src) {
    using In = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    const kernels::HwcView<const In> iv{src, is[0], is[1], is[2]};
    if (out_type_ == DType::kUInt8)
      kernels::WarpAffine(iv, kernels::HwcView<uint8_t>{out.mutable_sample<uint8_t>(i), os[0], os[1], os[2]}, m, options_);
    else
      kernels::WarpAffine(iv, kernels::HwcView<float>{out.mutable_sample<float>(i), os[0], os[1], os[2]}, m, options_);
  };
  if (in.dtype() == DType::kUInt8) run(in.sample<uint8_t>(i));
  else run(in.sample<float>(i));
}

OpSchema& AddWarpArgs(OpSchema& s, bool volumes) {
  InputLayouts layouts = InputLayouts{"HWC"}.AllowSequence();
  if (volumes) layouts.AllowVolume();
  s.RenamedArg("output_dtype", "dtype");  // deprecated in DALI 0.24
  return s.Input("images",
                 volumes ? "HWC images or DHWC volumes (or sequences of them), uint8 or float32, any number of channels."
                         : "HWC images (or FHWC sequences), uint8 or float32, any number of channels.",
                 {DType::kUInt8, DType::kFloat32}, layouts)
      .UnfoldsSequences()
      .Output("output", volumes ? "The warped HWC images or DHWC volumes." : "The warped HWC images.")
      .Arg("size", ArgType::kFloatList, std::vector<double>{},
           volumes ? "Output size (height, width), or (depth, height, width) for volumes, rounded; empty: the "
                     "operator's default (warp_affine: the input's size)."
                   : "Output size (height, width), rounded; empty: the operator's default.",
           true)
      .Count(volumes ? std::vector<int>{0, 2, 3} : std::vector<int>{0, 2})
      .Above(0)
      .Arg("fill_value", ArgType::kFloatList, std::vector<double>{},
           "Value of output pixels that map outside the source image. Empty (not given): the source coordinates are "
           "clamped and the border pixels repeated.")
      .Count({0, 1})
      .Arg("interp_type", ArgType::kString, std::string("LINEAR"),
           "Interpolation: types.INTERP_NN or types.INTERP_LINEAR (or their names).")
      .Enum(WarpInterpNames(), true)
      .Check([](const ArgView& a) {
        const std::string t = a.String("interp_type");
        if (!t.empty() && t != "NN" && t != "LINEAR")
          throw ArgCheckError{"interp_type", "only INTERP_NN and INTERP_LINEAR are supported (as in DALI), got INTERP_" + t};
      })
      .Arg("dtype", ArgType::kDType, std::string("uint8"), "Output type, uint8 or float32 (default: the input's).")
      .Enum({"uint8", "float32"});
}

}  // namespace sluice
