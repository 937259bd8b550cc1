// jitter: DALI's jitter (dali/operators/image/remap/jitter.cuh, a GPU-only operator in DALI),
// on the CPU with DALI's semantics: every pixel of an HWC image takes the pixel displaced by a
// random integer in [-nDegree/2, nDegree - 1 - nDegree/2] on each axis (kernels/slice/jitter.h);
// displacements past the right/bottom edge give fill_value. Samples with mask=0 are copied. The
// randomness is the sample's own stream (Workspace::SampleRng), so results are the same for any
// num_threads; DALI's GPU random states are not reproduced.
#include <cstring>

#include "kernels/slice/jitter.h"
#include "kernels/tensor/cast.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<std::string>& InterpNames() {
  static const std::vector<std::string> names = {"NN", "LINEAR", "CUBIC", "LANCZOS3", "TRIANGULAR", "GAUSSIAN"};
  return names;
}

class JitterOp : public Operator {
 public:
  explicit JitterOp(const OpSpec& spec)
      : Operator(spec), degree_(Arg<int>("nDegree")), fill_(Arg<double>("fill_value")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8 && in.dtype() != DType::kFloat32)
      throw Error("jitter takes uint8 or float32 images, got " + std::string(ToString(in.dtype())));
    OutputDesc d;
    d.dtype = in.dtype();
    d.layout = "HWC";
    d.shapes = in.shapes();
    mask_ = PerSampleArg<int>(ws, "mask");
    d.contiguous = !d.shapes.empty();
    for (const auto& s : d.shapes) d.contiguous = d.contiguous && s == d.shapes[0];
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const TensorShape& s = in.shape(i);
    if (!mask_[static_cast<size_t>(i)]) {
      std::memcpy(out.raw_mutable_sample(i), in.raw_sample(i), static_cast<size_t>(s.num_elements()) * SizeOf(in.dtype()));
      return;
    }
    RandomGenerator rng = ws.SampleRng(i);
    auto next = [&rng] { return rng(); };
    if (in.dtype() == DType::kUInt8)
      kernels::Jitter(in.sample<uint8_t>(i), out.mutable_sample<uint8_t>(i), s[0], s[1], s[2], degree_,
                      kernels::ConvertSaturate<uint8_t>(fill_), next);
    else
      kernels::Jitter(in.sample<float>(i), out.mutable_sample<float>(i), s[0], s[1], s[2], degree_,
                      static_cast<float>(fill_), next);
  }

 private:
  int degree_;
  double fill_;
  std::vector<int> mask_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterJitter) {
  OpSchema s("jitter");
  s.Doc("Moves every pixel of HWC images by a random integer amount in [-nDegree/2, nDegree - 1 - nDegree/2] on each "
        "axis (DALI's jitter; GPU-only in DALI, here on the CPU). Pixels displaced past the right or bottom edge take "
        "fill_value.")
      .Input("images", "HWC images, uint8 or float32.", {DType::kUInt8, DType::kFloat32}, InputLayouts{"HWC"})
      .Output("output", "The jittered images.")
      .Arg("nDegree", ArgType::kInt, int64_t{2}, "Each pixel moves by up to nDegree/2 in x and y.")
      .Min(1)
      .Arg("fill_value", ArgType::kFloat, 0.0, "The value of pixels displaced outside the image.")
      .Arg("interp_type", ArgType::kString, std::string("NN"),
           "INTERP_NN or INTERP_LINEAR; the displacements are whole pixels, so both give the same result.")
      .Enum(InterpNames(), true)
      .Check([](const ArgView& a) {
        const std::string t = a.String("interp_type");
        if (!t.empty() && t != "NN" && t != "LINEAR")
          throw ArgCheckError{"interp_type", "only INTERP_NN and INTERP_LINEAR are supported (as in DALI), got INTERP_" + t};
      })
      .Arg("mask", ArgType::kInt, int64_t{1}, "Per sample: 1 applies the jitter, 0 copies the image.", true)
      .Range(0, 1)
      .Random()
      .Factory("cpu", MakeFactory<JitterOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
