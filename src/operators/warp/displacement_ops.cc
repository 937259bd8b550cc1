// sphere and water: DALI's displacement augmentations on HWC uint8 / float32 images
// (kernels/warp/displacement.h has the formulas, checked against DALI 2.4's CPU operators). `mask`
// (per sample) 0 copies the sample unchanged. DALI 2.4 honours only a per-sample mask (a constant
// mask=0 is ignored there); here a constant 0 does what the documentation says: no transformation.
#include <cstring>

#include "kernels/warp/displacement.h"
#include "operators/filter/image_geom.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/warp/warp_op_base.h"

namespace sluice {
namespace {

class DisplacementOp : public Operator {
 public:
  DisplacementOp(const OpSpec& spec, bool water)
      : Operator(spec),
        water_(water),
        interp_(Arg<std::string>("interp_type") == "LINEAR" ? kernels::PerspectiveInterp::kLinear
                                                            : kernels::PerspectiveInterp::kNearest),
        fill_(Arg<float>("fill_value")) {
    if (water_) {
      w_.ampl_x = Arg<float>("ampl_x");
      w_.ampl_y = Arg<float>("ampl_y");
      w_.freq_x = Arg<float>("freq_x");
      w_.freq_y = Arg<float>("freq_y");
      w_.phase_x = Arg<float>("phase_x");
      w_.phase_y = Arg<float>("phase_y");
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    masks_ = PerSampleArg<int>(ws, "mask");
    return {OutputDesc{in.shapes(), in.dtype(), "HWC", in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    void* out = ws.Output(0).raw_mutable_sample(i);
    if (masks_[size_t(i)] == 0) {
      std::memcpy(out, in.raw_sample(i), in.sample_bytes(i));
      return;
    }
    const kernels::ImageGeom g = FilterImageGeom(in.shape(i), "HWC");
    if (water_)
      kernels::Water(in.raw_sample(i), out, in.dtype(), g, w_, interp_, fill_);
    else
      kernels::Sphere(in.raw_sample(i), out, in.dtype(), g, interp_, fill_);
  }

 private:
  const bool water_;
  const kernels::PerspectiveInterp interp_;
  const float fill_;
  kernels::WaterParams w_;
  std::vector<int> masks_;
};

constexpr double kWaterFreq = 0.04908738521234052;  // 2 pi / 128

OpSchema DisplacementSchema(const std::string& name, const std::string& doc, bool water) {
  OpSchema s(name);
  s.Doc(doc)
      .Input("input", "HWC images, uint8 or float32.", {DType::kUInt8, DType::kFloat32}, InputLayouts{"HWC"})
      .Output("output", "The displaced images, same shape and type.")
      .Arg("fill_value", ArgType::kFloat, 0.0, "Value of output pixels whose source lies outside the image.")
      .Arg("interp_type", ArgType::kString, std::string("NN"), "Interpolation: types.INTERP_NN or INTERP_LINEAR.")
      .Enum(WarpInterpNames(), true)
      .Arg("mask", ArgType::kInt, int64_t{1},
           "1: apply the augmentation; 0: leave the sample unchanged (per sample allowed).", true)
      .Range(0, 1)
      .Check([](const ArgView& a) {
        const std::string t = a.String("interp_type");
        if (!t.empty() && t != "NN" && t != "LINEAR")
          throw ArgCheckError{"interp_type", "only INTERP_NN and INTERP_LINEAR are supported (as in DALI), got INTERP_" + t};
      })
      .Factory("cpu", [water](const OpSpec& spec) -> std::unique_ptr<Operator> {
        return std::make_unique<DisplacementOp>(spec, water);
      });
  if (water) {
    s.Arg("ampl_x", ArgType::kFloat, 10.0, "Amplitude of the wave in the x direction (pixels).")
        .Arg("ampl_y", ArgType::kFloat, 10.0, "Amplitude of the wave in the y direction (pixels).")
        // DALI's default is 2 pi / 128 (its documentation prints it rounded, 0.049087; the rounded value moves
        // whole rows and columns where freq * x crosses pi / 2).
        .Arg("freq_x", ArgType::kFloat, kWaterFreq, "Frequency of the wave in the x direction (radians per row; "
             "default 2 pi / 128).")
        .Arg("freq_y", ArgType::kFloat, kWaterFreq, "Frequency of the wave in the y direction (radians per column; "
             "default 2 pi / 128).")
        .Arg("phase_x", ArgType::kFloat, 0.0, "Phase of the wave in the x direction (radians).")
        .Arg("phase_y", ArgType::kFloat, 0.0, "Phase of the wave in the y direction (radians).");
  }
  return s;
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterDisplacementOps) {
  r.Register(DisplacementSchema(
      "sphere",
      "Performs a sphere augmentation: output pixel p takes the input at mid + (p - mid) * |p - mid| / d, mid the "
      "image centre and d half the larger side (pixel centres, DALI's float32 formula).",
      false));
  r.Register(DisplacementSchema(
      "water",
      "Performs a water augmentation, which makes the image appear to be underwater: output pixel (x, y) takes the "
      "input at (x + ampl_x * sin(freq_x * y + phase_x), y + ampl_y * cos(freq_y * x + phase_y)).",
      true));
}

}  // namespace sluice
