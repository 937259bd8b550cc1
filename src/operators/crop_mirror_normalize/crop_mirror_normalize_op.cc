// crop_mirror_normalize: crop + mirror + normalize + layout + cast, one fused pass; DHWC volumes
// slice by slice (crop_d, crop_pos_z; output CDHW or DHWC); CHW/CDHW input channel by channel.
#include "operators/crop/crop_args.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_planar.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_volume.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class CropMirrorNormalizeOp : public Operator {
 public:
  explicit CropMirrorNormalizeOp(const OpSpec& spec) : Operator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanCropMirrorNormalize(*this, args_, ws, plan_);
    return {plan_.output};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const CmnSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
    if (p.empty()) return;
    void* out = ws.Output(0).raw_mutable_sample(i);
    const bool out_channels_first = plan_.output.layout[0] == 'C';
    if (plan_.channels_first)
      return RunCmnPlanar(in.raw_sample(i), in.dtype(), p, plan_.volume, out_channels_first, args_.out_type, out);
    if (plan_.volume) return RunCmnVolume(in.raw_sample(i), in.dtype(), p, plan_.output.layout == "CDHW", args_.out_type, out);
    if (in.dtype() == DType::kUInt8)
      kernels::CropMirrorNormalize(in.sample<uint8_t>(i), p.in_h, p.in_w, p.channels, p.params, args_.out_type, out);
    else
      kernels::CropMirrorNormalize(in.sample<float>(i), p.in_h, p.in_w, p.channels, p.params, args_.out_type, out);
  }

 private:
  const CmnArgs args_;
  CmnPlan plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCropMirrorNormalize) {
  OpSchema s("crop_mirror_normalize");
  s.Doc("Crops, mirrors, normalizes (out = scale * (in - mean) / std + shift), changes the layout (HWC -> CHW) and "
        "casts, in one pass.")
      .Input("images", "HWC or CHW images, DHWC or CDHW volumes (without a layout: HWC for 3 dimensions, DHWC for "
             "4), or sequences of them (every frame of a sample cropped, mirrored and normalized alike), uint8 or "
             "float32. Channel-first inputs are processed channel by channel (CPU only).",
             {DType::kUInt8, DType::kFloat32})
      .UnfoldsSequences()
      .Output("output", "Normalized images in output_layout.")
      .Arg("mirror", ArgType::kInt, int64_t{0}, "Mirror horizontally (per sample: 0 or 1).", true)
      .Range(0, 1)
      .Arg("mean", ArgType::kFloatList, std::vector<double>{0.0}, "Mean per channel (one value or one per channel).")
      .Count({1, 2, 3, 4})
      .Arg("std", ArgType::kFloatList, std::vector<double>{1.0}, "Standard deviation per channel.")
      .Count({1, 2, 3, 4}).Above(0)
      .Arg("scale", ArgType::kFloat, 1.0, "Multiplier applied after normalization.")
      .Arg("shift", ArgType::kFloat, 0.0, "Added after scaling.")
      .Arg("dtype", ArgType::kDType, std::string("float32"), "Output type: float, float16, uint8 or int8.")
      .Enum({"float32", "float16", "uint8", "int8"})
      .Arg("output_layout", ArgType::kString, std::string("CHW"),
           "CHW or HWC; for volumes CHW and CDHW give CDHW, HWC and DHWC give DHWC. Sequences: the same with a "
           "leading F (FCHW, FHWC, FCDHW, FDHWC; DALI's spelling for them), or without it.")
      .Enum({"CHW", "HWC", "CDHW", "DHWC", "FCHW", "FHWC", "FCDHW", "FDHWC"})
      .Arg("pad_output", ArgType::kBool, false, "Pad the channels to 4 (the extra channel is 0).")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"),
           "A window outside the image: error, pad (with fill_values) or trim_to_shape.")
      .Enum({"error", "pad", "trim_to_shape"})
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Output values of padded pixels, per channel.")
      .Count({1, 2, 3, 4})
      .InputRegion(CropInputRegion)
      .Factory("cpu", [](const OpSpec& sp) { return std::make_unique<CropMirrorNormalizeOp>(sp); });
  AddCropArgs(s, /*volumetric=*/true);
  s.RetiredArg("image_type").RenamedArg("output_dtype", "dtype");  // deprecated in DALI 0.24
  r.Register(std::move(s));
}

}  // namespace sluice
