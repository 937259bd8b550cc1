// crop, flip, transpose, cast: thin operators over the small kernels.
#include "kernels/cast.h"
#include "kernels/crop.h"
#include "kernels/flip.h"
#include "kernels/transpose.h"
#include "operators/image/crop_args.h"
#include "operators/image/geometry_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class CropOp : public Operator {
 public:
  explicit CropOp(const OpSpec& spec) : Operator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanCrop(*this, args_, ws, plan_);
    return {plan_.output};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const CropSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
    const kernels::CropWindow& win = p.window;
    kernels::Crop(in.raw_sample(i), p.in_h, p.in_w, p.channels, SizeOf(in.dtype()), win.x, win.y, win.w, win.h,
                  ws.Output(0).raw_mutable_sample(i), p.fill.empty() ? nullptr : p.fill.data());
  }

 private:
  const CropOpArgs args_;
  CropPlan plan_;
};

class FlipOp : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanFlip(*this, ws, plan_);
    return {plan_.output};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const auto k = static_cast<size_t>(i);
    kernels::Flip(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), s[0], s[1], s[2], SizeOf(in.dtype()),
                  plan_.horizontal[k] != 0, plan_.vertical[k] != 0);
  }

 private:
  FlipPlan plan_;
};

class TransposeOp : public Operator {
 public:
  explicit TransposeOp(const OpSpec& spec) : Operator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override { return {PlanTranspose(*this, args_, ws)}; }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::Transpose(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), in.shape(i).dims(), args_.perm,
                       SizeOf(in.dtype()));
  }

 private:
  const TransposeArgs args_;
};

class CastOp : public Operator {
 public:
  explicit CastOp(const OpSpec& spec) : Operator(spec), to_(Arg<DType>("dtype")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override { return {PlanCast(to_, ws)}; }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::Cast(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i), to_,
                  static_cast<size_t>(in.shape(i).num_elements()));
  }

 private:
  DType to_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterGeometryOperators) {
  OpSchema crop("crop");
  crop.Doc("Crops HWC images to a window (crop, crop_pos_x, crop_pos_y).")
      .Input("images", "HWC images of any type.")
      .Output("cropped", "The cropped images.")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"), "A window outside the image: error, pad or trim_to_shape.")
      .Enum({"error", "pad", "trim_to_shape"})
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Values of padded pixels, per channel.")
      .InputRegion(CropInputRegion)
      .Factory("cpu", MakeFactory<CropOp>());
  AddCropArgs(crop);
  r.Register(std::move(crop));

  r.Register(OpSchema("flip")
                 .Doc("Flips HWC images horizontally and/or vertically.")
                 .Input("images", "HWC images of any type.")
                 .Output("flipped", "The flipped images.")
                 .Arg("horizontal", ArgType::kInt, int64_t{1}, "Flip horizontally (per sample: 0 or 1).", true)
                 .Range(0, 1)
                 .Arg("vertical", ArgType::kInt, int64_t{0}, "Flip vertically (per sample: 0 or 1).", true)
                 .Range(0, 1)
                 .Factory("cpu", MakeFactory<FlipOp>()));

  r.Register(OpSchema("transpose")
                 .Doc("Permutes dimensions: output dimension i is input dimension perm[i].")
                 .Input("input", "Tensors of any type.")
                 .Output("output", "The transposed tensors.")
                 .Arg("perm", ArgType::kIntList, std::nullopt, "The permutation, e.g. [2, 0, 1] for HWC -> CHW.")
                 .Min(0)
                 .Arg("output_layout", ArgType::kString, std::string(), "Layout of the output (overrides transpose_layout).")
                 .Layout()
                 .Check([](const ArgView& a) {
                   const auto perm = a.Numbers("perm");
                   std::vector<bool> seen(perm.size(), false);
                   for (double p : perm) {
                     const auto k = static_cast<size_t>(p);
                     if (k >= perm.size() || seen[k])
                       throw ArgCheckError{"perm", "expected a permutation of 0.." + std::to_string(perm.size() - 1)};
                     seen[k] = true;
                   }
                   const std::string layout = a.String("output_layout");
                   if (!layout.empty() && layout.size() != perm.size())
                     throw ArgCheckError{"output_layout", "has " + std::to_string(layout.size()) + " letters for " +
                                                              std::to_string(perm.size()) + " dimensions"};
                 })
                 .Arg("transpose_layout", ArgType::kBool, true, "Permute the input's layout string too.")
                 .Factory("cpu", MakeFactory<TransposeOp>()));

  r.Register(OpSchema("cast")
                 .Doc("Converts elements to another type: integer targets saturate, floats round to nearest even.")
                 .Input("input", "Tensors of any type.")
                 .Output("output", "The converted tensors.")
                 .Arg("dtype", ArgType::kDType, std::nullopt, "Output type.")
                 .Factory("cpu", MakeFactory<CastOp>()));
}

}  // namespace sluice
