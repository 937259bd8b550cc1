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
#include "kernels/resize/resize_volume.h"
#include "kernels/resize/resize_window.h"
#include "operators/image/crop_mirror_normalize_plan.h"
#include "operators/image/crop_mirror_normalize_volume.h"
#include "operators/image/resize_plan.h"
#include "operators/image/resize_types.h"
#include "operators/image/resize_volume_plan.h"
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
    volumes_ = InputLayout(ws, 0) == "DHWC";
    scratch_.resize(static_cast<size_t>(ws.pool().num_threads()));
    if (volumes_) {
      PlanResizeVolumes(*resize_, *resize_args_, ws, volume_plan_);
      PlanCropMirrorNormalize(*cmn_, *cmn_args_, ws, volume_plan_.output.shapes, volume_plan_.output.dtype, cmn_plan_);
      return {cmn_plan_.output};
    }
    PlanResize(*resize_, *resize_args_, ws, resize_plan_, /*windowed_input=*/true);
    PlanCropMirrorNormalize(*cmn_, *cmn_args_, ws, resize_plan_.output.shapes, resize_plan_.output.dtype, cmn_plan_);
    return {cmn_plan_.output};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const CmnSamplePlan& c = cmn_plan_.samples[static_cast<size_t>(i)];
    if (c.empty()) return;
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
    auto from = [&](auto* dst) { FromInput(in, i, resize, dst); };
    void* out = ws.Output(0).raw_mutable_sample(i);
    if (mid == DType::kUInt8) {
      auto* img = buf.data();
      from(img);
      kernels::CropMirrorNormalize(img, c.in_h, c.in_w, c.channels, c.params, cmn_args_->out_type, out);
    } else {
      auto* img = reinterpret_cast<float*>(buf.data());
      from(img);
      kernels::CropMirrorNormalize(img, c.in_h, c.in_w, c.channels, c.params, cmn_args_->out_type, out);
    }
  }

 private:
  // DHWC volumes: what resize computes (ResizeVolume) into the scratch volume, then
  // crop_mirror_normalize's volume path from there.
  // resize(src, dst) with sample i of `in` (any of resize's input types) into the scratch `dst`
  // (uint8 or float32: what crop_mirror_normalize reads; 16-bit inputs reach it as float32).
  template <typename Resize, typename TMid>
  static void FromInput(const TensorList& in, int i, Resize& resize, TMid* dst) {
    switch (in.dtype()) {
      case DType::kUInt8: return resize(in.sample<uint8_t>(i), dst);
      case DType::kInt16:
        if constexpr (std::is_same_v<TMid, float>) resize(in.sample<int16_t>(i), dst);
        return;
      case DType::kUInt16:
        if constexpr (std::is_same_v<TMid, float>) resize(in.sample<uint16_t>(i), dst);
        return;
      default: return resize(in.sample<float>(i), dst);
    }
  }

  void RunVolume(Workspace& ws, int i, int thread, const CmnSamplePlan& c) {
    const ResizeVolumeSamplePlan& p = volume_plan_.samples[static_cast<size_t>(i)];
    const DType mid = volume_plan_.output.dtype;
    const size_t bytes = size_t(p.out_d) * size_t(p.out_h) * size_t(p.out_w) * size_t(p.channels) * SizeOf(mid);
    std::vector<uint8_t>& buf = scratch_[static_cast<size_t>(thread)];
    if (buf.size() < bytes) buf.resize(bytes);
    const TensorList& in = ws.Input(0);
    auto resize = [&](const auto* src, auto* dst) {
      kernels::ResizeVolume(src, p.in_d, p.in_h, p.in_w, p.channels, dst, p.out_d, p.out_h, p.out_w, p.params, p.depth);
    };
    auto from = [&](auto* dst) { FromInput(in, i, resize, dst); };
    if (mid == DType::kUInt8) from(buf.data());
    else from(reinterpret_cast<float*>(buf.data()));
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
  bool volumes_ = false;  // this batch is DHWC
  ResizeVolumePlan volume_plan_;
  CmnPlan cmn_plan_;
  std::vector<std::vector<uint8_t>> scratch_;  // per pool thread: one resized image
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterFusedResizeCmn) {
  r.Register(OpSchema("_fused.resize_crop_mirror_normalize")
                 .Doc("resize followed by crop_mirror_normalize, one step per sample; put in place of the two by "
                      "the pipeline's operator fusion (PipelineOptions.fuse_operators). Internal.")
                 .Input("images", "HWC images or DHWC volumes, resize's input types.", ResizeInputTypes(), InputLayouts{"HWC"}.AllowSequence().AllowVolume())
                 .UnfoldsSequences()
                 .Output("output", "crop_mirror_normalize's output.")
                 .Arg(kSpecsArg, ArgType::kStringList, std::nullopt, "The two operators' specs (set by the pipeline).")
                 .Arg(kArgInputsArg, ArgType::kStringList, std::nullopt,
                      "Each operator's per-sample argument names, comma-separated (set by the pipeline).")
                 .Fuses(FusedChain{{"resize", "crop_mirror_normalize"}, kSpecsArg, kArgInputsArg, nullptr})
                 .Factory("cpu", [](const OpSpec& s) { return std::make_unique<FusedResizeCmnOp>(s); }));
}

}  // namespace sluice
