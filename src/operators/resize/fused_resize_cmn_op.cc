// _fused.resize_crop_mirror_normalize: a resize whose only reader is a crop_mirror_normalize, run
// as one step per sample. The operator-fusion pass (pipeline/operator_fusion.h) puts it in place
// of the two; users never call it. Each sample is resized into a scratch image of the pool
// thread (grow-only, the size of one resized image) and normalized from there into the output:
// the resized batch is never materialised, so the pipeline holds no buffer for it and the
// normalize reads an image that is still in cache. Both operators' own plans and kernels run,
// with their own names in errors, so the output is the unfused chain's bit for bit.
#include <memory>
#include <optional>
#include <sstream>

#include "kernels/crop_mirror_normalize/crop_mirror_normalize.h"
#include "kernels/resize/resize.h"
#include "kernels/resize/resize_window.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_planar.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_volume.h"
#include "operators/resize/resize_plan.h"
#include "operators/resize/resize_sample.h"
#include "operators/resize/resize_types.h"
#include "operators/resize/resize_volume_plan.h"
#include "operators/op_spec_encoding.h"
#include "operators/registry.h"

namespace sluice {
namespace {

constexpr const char* kSpecsArg = "fused_specs";
constexpr const char* kArgInputsArg = "fused_arg_inputs";

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);)
    if (!part.empty()) out.push_back(part);
  return out;
}

class FusedResizeCmnOp : public Operator {
 public:
  explicit FusedResizeCmnOp(const OpSpec& spec) : Operator(spec) {
    const auto specs = Arg<std::vector<std::string>>(kSpecsArg);
    const auto arg_inputs = Arg<std::vector<std::string>>(kArgInputsArg);
    const auto names = Split(spec.name, '+');
    if (specs.size() != 2 || arg_inputs.size() != 2 || names.size() != 2)
      throw Error("operator '" + spec.name + "' needs the specs, argument inputs and names of 2 operators");
    resize_ = Shadow(specs[0], names[0], arg_inputs[0]);
    cmn_ = Shadow(specs[1], names[1], arg_inputs[1]);
    resize_args_.emplace(*resize_);
    cmn_args_.emplace(*cmn_);
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    // resize keeps its input's layout (HWC, CHW, DHWC or CDHW), which crop_mirror_normalize reads.
    const SpatialLayout layout = ResolveSpatialLayout(ws.Input(0), resize_->name());
    volumes_ = layout.volume;
    planar_ = layout.channels_first;
    scratch_.resize(static_cast<size_t>(ws.pool().num_threads()));
    if (volumes_) {
      PlanResizeVolumes(*resize_, *resize_args_, ws, volume_plan_);
      PlanCropMirrorNormalize(*cmn_, *cmn_args_, ws, volume_plan_.output.shapes, volume_plan_.output.dtype, layout,
                              cmn_plan_);
      return {cmn_plan_.output};
    }
    PlanResize(*resize_, *resize_args_, ws, resize_plan_, /*windowed_input=*/true, /*planar_input=*/true);
    PlanCropMirrorNormalize(*cmn_, *cmn_args_, ws, resize_plan_.output.shapes, resize_plan_.output.dtype, layout,
                            cmn_plan_);
    return {cmn_plan_.output};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const CmnSamplePlan& c = cmn_plan_.samples[static_cast<size_t>(i)];
    if (c.empty()) return;
    if (planar_) return RunPlanar(ws, i, thread, c);
    if (volumes_) return RunVolume(ws, i, thread, c);
    const ResizeSamplePlan& p = resize_plan_.samples[static_cast<size_t>(i)];
    const DType mid = resize_plan_.output.dtype;
    const size_t bytes = size_t(p.out_h) * size_t(p.out_w) * size_t(p.channels) * SizeOf(mid);
    std::vector<uint8_t>& buf = scratch_[static_cast<size_t>(thread)];
    if (buf.size() < bytes) buf.resize(bytes);
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    // What resize's RunSample computes, into the scratch image.
    auto resize = [&](const auto* src, auto* dst) {
      using TIn = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
      if constexpr (std::is_same_v<TIn, uint8_t> || std::is_same_v<TIn, float>) {
        if (p.window) {  // ROI decode: uint8
          kernels::ResizeWindow(src, int(s[0]), int(s[1]), p.channels, *p.window, dst, p.out_h, p.out_w, p.params);
          return;
        }
      }
      kernels::Resize(src, p.in_h, p.in_w, p.channels, dst, p.out_h, p.out_w, p.params);
    };
    // The scratch image is uint8 or float32 (what crop_mirror_normalize reads; 16-bit inputs are
    // planned to float32).
    VisitResizeTypes(in.raw_sample(i), in.dtype(), buf.data(), mid, resize);
    void* out = ws.Output(0).raw_mutable_sample(i);
    if (mid == DType::kUInt8)
      kernels::CropMirrorNormalize(buf.data(), c.in_h, c.in_w, c.channels, c.params, cmn_args_->out_type, out);
    else
      kernels::CropMirrorNormalize(reinterpret_cast<const float*>(buf.data()), c.in_h, c.in_w, c.channels, c.params,
                                   cmn_args_->out_type, out);
  }

 private:
  // CHW images and CDHW volumes: what resize computes (plane by plane) into the scratch sample,
  // then crop_mirror_normalize's channel-first path from there.
  void RunPlanar(Workspace& ws, int i, int thread, const CmnSamplePlan& c) {
    const DType mid = volumes_ ? volume_plan_.output.dtype : resize_plan_.output.dtype;
    const TensorShape& shape = volumes_ ? volume_plan_.output.shapes[static_cast<size_t>(i)]
                                        : resize_plan_.output.shapes[static_cast<size_t>(i)];
    const size_t bytes = static_cast<size_t>(shape.num_elements()) * SizeOf(mid);
    std::vector<uint8_t>& buf = scratch_[static_cast<size_t>(thread)];
    if (buf.size() < bytes) buf.resize(bytes);
    const TensorList& in = ws.Input(0);
    if (volumes_)
      ResizeVolumeSample(in.raw_sample(i), in.dtype(), volume_plan_.samples[static_cast<size_t>(i)],
                         /*channels_first=*/true, buf.data(), mid);
    else
      ResizePlanes(in.raw_sample(i), in.dtype(), resize_plan_.samples[static_cast<size_t>(i)], buf.data(), mid);
    RunCmnPlanar(buf.data(), mid, c, volumes_, cmn_plan_.output.layout[0] == 'C', cmn_args_->out_type,
                 ws.Output(0).raw_mutable_sample(i));
  }

  // DHWC volumes: what resize computes (ResizeVolume) into the scratch volume, then
  // crop_mirror_normalize's volume path from there.
  void RunVolume(Workspace& ws, int i, int thread, const CmnSamplePlan& c) {
    const ResizeVolumeSamplePlan& p = volume_plan_.samples[static_cast<size_t>(i)];
    const DType mid = volume_plan_.output.dtype;
    const size_t bytes = size_t(p.out_d) * size_t(p.out_h) * size_t(p.out_w) * size_t(p.channels) * SizeOf(mid);
    std::vector<uint8_t>& buf = scratch_[static_cast<size_t>(thread)];
    if (buf.size() < bytes) buf.resize(bytes);
    const TensorList& in = ws.Input(0);
    ResizeVolumeSample(in.raw_sample(i), in.dtype(), p, /*channels_first=*/false, buf.data(), mid);
    RunCmnVolume(buf.data(), mid, c, cmn_plan_.output.layout == "CDHW", cmn_args_->out_type,
                 ws.Output(0).raw_mutable_sample(i));
  }

  // The operator as the user declared it (its name, arguments and argument inputs), run through
  // its plan functions only.
  std::unique_ptr<Operator> Shadow(const std::string& encoded, const std::string& name, const std::string& arg_inputs) {
    OpSpec s = DecodeSpec(encoded);
    s.name = name;
    for (const auto& a : Split(arg_inputs, ','))
      if (auto it = spec_.arg_inputs.find(a); it != spec_.arg_inputs.end()) s.arg_inputs[a] = it->second;
    const OperatorFactory* f = OperatorRegistry::Get().GetSchema(s.op).FindFactory("cpu");
    if (!f) throw Error("operator '" + s.op + "' has no CPU implementation to fuse");
    return (*f)(s);
  }

  std::unique_ptr<Operator> resize_, cmn_;
  std::optional<ResizeArgs> resize_args_;
  std::optional<CmnArgs> cmn_args_;
  ResizePlan resize_plan_;
  bool volumes_ = false;  // this batch is DHWC or CDHW
  bool planar_ = false;   // this batch is CHW or CDHW
  ResizeVolumePlan volume_plan_;
  CmnPlan cmn_plan_;
  std::vector<std::vector<uint8_t>> scratch_;  // per pool thread: one resized image
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterFusedResizeCmn) {
  r.Register(OpSchema("_fused.resize_crop_mirror_normalize")
                 .Doc("resize followed by crop_mirror_normalize, one step per sample; put in place of the two by "
                      "the pipeline's operator fusion (PipelineOptions.fuse_operators). Internal.")
                 .Input("images", "HWC/CHW images or DHWC/CDHW volumes, resize's input types.", ResizeInputTypes(),
                        InputLayouts{"HWC", "CHW"}.AllowSequence().AllowVolume())
                 .UnfoldsSequences()
                 .Output("output", "crop_mirror_normalize's output.")
                 .Arg(kSpecsArg, ArgType::kStringList, std::nullopt, "The two operators' specs (set by the pipeline).")
                 .Arg(kArgInputsArg, ArgType::kStringList, std::nullopt,
                      "Each operator's per-sample argument names, comma-separated (set by the pipeline).")
                 .Fuses(FusedChain{{"resize", "crop_mirror_normalize"}, kSpecsArg, kArgInputsArg, nullptr})
                 .Factory("cpu", [](const OpSpec& s) { return std::make_unique<FusedResizeCmnOp>(s); }));
}

}  // namespace sluice
