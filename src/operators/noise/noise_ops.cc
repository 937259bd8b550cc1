// noise.gaussian, noise.shot, noise.salt_and_pepper: DALI's point-wise noise
// (dali/operators/random/noise/*.h). The output has the input's shape, type and layout. Each sample
// draws from its own stream (Workspace::SampleRng), so results are the same for any num_threads.
//   gaussian:        out = ConvertSat(in + N(mean, stddev))
//   shot:            out = ConvertSat(Poisson(max(0, in / factor)) * factor); factor 0: identity
//   salt_and_pepper: with probability prob a value becomes salt_val (prob * salt_vs_pepper) or
//                    pepper_val; per pixel (all channels alike) unless per_channel. salt_val /
//                    pepper_val not given: the type's max / min (1.0 / -1.0 for float).
#include <limits>
#include <type_traits>

#include "kernels/noise/noise.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const char* kTypesDoc = "uint8, int8, uint16, int16, int32 or float32";

void CheckNoiseType(DType t) {
  if (!kernels::NoiseKernelSupports(t))
    throw Error("input type " + std::string(ToString(t)) + " is not supported (" + kTypesDoc + ")");
}

// Shared Setup: same shapes, type and layout; per-sample arguments read by Prepare.
class NoiseOp : public Operator {
 public:
  explicit NoiseOp(const OpSpec& spec) : Operator(spec) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    CheckNoiseType(in.dtype());
    type_ = in.dtype();
    Prepare(ws);
    return {OutputDesc{in.shapes(), type_, in.layout(), in.is_contiguous()}};
  }

 protected:
  virtual void Prepare(Workspace& ws) = 0;
  DType type_ = DType::kUInt8;
};

class GaussianNoiseOp : public NoiseOp {
 public:
  using NoiseOp::NoiseOp;
  void Prepare(Workspace& ws) override {
    mean_ = PerSampleArg<double>(ws, "mean");
    stddev_ = PerSampleArg<double>(ws, "stddev");
  }
  void RunSample(Workspace& ws, int i, int) override {
    RandomGenerator rng = ws.SampleRng(i);
    const TensorList& in = ws.Input(0);
    kernels::GaussianNoise(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), type_,
                           static_cast<size_t>(in.shape(i).num_elements()), mean_[static_cast<size_t>(i)],
                           stddev_[static_cast<size_t>(i)], rng);
  }

 private:
  std::vector<double> mean_, stddev_;
};

class ShotNoiseOp : public NoiseOp {
 public:
  using NoiseOp::NoiseOp;
  void Prepare(Workspace& ws) override { factor_ = PerSampleArg<double>(ws, "factor"); }
  void RunSample(Workspace& ws, int i, int) override {
    RandomGenerator rng = ws.SampleRng(i);
    const TensorList& in = ws.Input(0);
    kernels::ShotNoise(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), type_,
                       static_cast<size_t>(in.shape(i).num_elements()), factor_[static_cast<size_t>(i)], rng);
  }

 private:
  std::vector<double> factor_;
};

class SaltAndPepperOp : public NoiseOp {
 public:
  explicit SaltAndPepperOp(const OpSpec& spec) : NoiseOp(spec), per_channel_(Arg<bool>("per_channel")) {}
  void Prepare(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    // The channel axis: 'C' of the layout; no layout: the last axis (channel-last), as DALI.
    channel_axis_ = -1;
    const std::string& layout = in.layout();
    if (!layout.empty()) {
      const auto pos = layout.find('C');
      channel_axis_ = pos == std::string::npos ? -1 : static_cast<int>(pos);
      if (per_channel_ && channel_axis_ < 0)
        ThrowArgError("per_channel", "needs a layout with a channel axis 'C' (or none), got '" + layout + "'");
    } else if (in.num_samples() > 0 && in.shape(0).ndim() > 1) {
      channel_axis_ = in.shape(0).ndim() - 1;
    }
    const int n = ws.batch_size();
    prob_ = PerSampleArg<double>(ws, "prob");
    svp_ = PerSampleArg<double>(ws, "salt_vs_pepper");
    const bool is_float = type_ == DType::kFloat32;
    double max_v = 1, min_v = -1;
    VisitDType(type_, [&](auto t) {
      using T = decltype(t);
      if constexpr (std::is_integral_v<T>) {
        max_v = static_cast<double>(std::numeric_limits<T>::max());
        min_v = static_cast<double>(std::numeric_limits<T>::min());
      }
    });
    salt_ = HasArg("salt_val") ? PerSampleArg<double>(ws, "salt_val")
                               : std::vector<double>(static_cast<size_t>(n), is_float ? 1.0 : max_v);
    pepper_ = HasArg("pepper_val") ? PerSampleArg<double>(ws, "pepper_val")
                                   : std::vector<double>(static_cast<size_t>(n), is_float ? -1.0 : min_v);
  }
  void RunSample(Workspace& ws, int i, int) override {
    RandomGenerator rng = ws.SampleRng(i);
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    kernels::PixelGeom g;
    const int64_t total = s.num_elements();
    if (channel_axis_ >= 0 && channel_axis_ < s.ndim() && s[channel_axis_] > 0) {
      // Pixels: the elements of one channel; channel stride: the product of the dims after the axis.
      int64_t inner = 1;
      for (int d = channel_axis_ + 1; d < s.ndim(); ++d) inner *= s[d];
      g.channels = s[channel_axis_];
      g.channel_stride = inner;
      g.pixels = total / g.channels;
      g.pixel_stride = 1;
      if (inner == 1) {
        g.pixel_stride = g.channels;  // channel-last
      }
    } else {
      g.pixels = total;
    }
    const auto k = static_cast<size_t>(i);
    kernels::SaltAndPepperParams p{prob_[k], svp_[k], salt_[k], pepper_[k], per_channel_};
    if (g.pixel_stride == 1 && g.channels > 1) {
      // Planar (channel not last): pixel p of the outer/inner grid.
      const int64_t inner = g.channel_stride, outer = g.pixels / inner;
      const auto* src = static_cast<const uint8_t*>(in.raw_sample(i));
      auto* dst = static_cast<uint8_t*>(ws.Output(0).raw_mutable_sample(i));
      const size_t es = SizeOf(type_);
      for (int64_t o = 0; o < outer; ++o) {
        kernels::PixelGeom row{inner, g.channels, 1, inner};
        const size_t off = static_cast<size_t>(o * g.channels * inner) * es;
        kernels::SaltAndPepper(src + off, dst + off, type_, row, p, rng);
      }
      return;
    }
    kernels::SaltAndPepper(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), type_, g, p, rng);
  }

 private:
  bool per_channel_;
  int channel_axis_ = -1;
  std::vector<double> prob_, svp_, salt_, pepper_;
};

OpSchema& Common(OpSchema& s) {
  return s.Input("input", std::string("Tensors of any shape and layout: ") + kTypesDoc + ".",
                 {DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16, DType::kInt32, DType::kFloat32})
      .Output("output", "The noisy tensors: the input's shape, type and layout.")
      .Random();
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterNoiseOperators) {
  OpSchema g("noise.gaussian");
  g.Doc("Adds Gaussian noise: out = in + N(mean, stddev), rounded and saturated for integer types.")
      .Arg("mean", ArgType::kFloat, 0.0, "Mean of the noise (per sample allowed).", true)
      .Arg("stddev", ArgType::kFloat, 1.0, "Standard deviation of the noise (per sample allowed).", true)
      .Min(0)
      .Factory("cpu", MakeFactory<GaussianNoiseOp>());
  r.Register(std::move(Common(g)));

  OpSchema shot("noise.shot");
  shot.Doc("Applies shot (Poisson) noise: out = Poisson(max(0, in / factor)) * factor, rounded and saturated for "
           "integer types; factor 0 leaves the input unchanged.")
      .Arg("factor", ArgType::kFloat, 20.0, "The value of one event (per sample allowed); larger is noisier.", true)
      .Min(0)
      .Factory("cpu", MakeFactory<ShotNoiseOp>());
  r.Register(std::move(Common(shot)));

  OpSchema sp("noise.salt_and_pepper");
  sp.Doc("Applies salt-and-pepper noise: with probability prob a value is replaced, by salt_val with probability "
         "salt_vs_pepper, else by pepper_val; per pixel (all channels alike) unless per_channel.")
      .Arg("prob", ArgType::kFloat, 0.05, "Probability that a value (or pixel) is replaced (per sample allowed).", true)
      .Range(0, 1)
      .Arg("salt_vs_pepper", ArgType::kFloat, 0.5, "Probability that a replaced value is salt (per sample allowed).",
           true)
      .Range(0, 1)
      .Arg("salt_val", ArgType::kFloat, 1.0,
           "The salt value (per sample allowed); not given: the type's maximum (1.0 for float).", true)
      .Arg("pepper_val", ArgType::kFloat, -1.0,
           "The pepper value (per sample allowed); not given: the type's minimum (-1.0 for float).", true)
      .Arg("per_channel", ArgType::kBool, false,
           "Draw the noise for every channel independently (needs a channel axis 'C' in the layout, or none: "
           "channel-last).")
      .Factory("cpu", MakeFactory<SaltAndPepperOp>());
  r.Register(std::move(Common(sp)));
}

}  // namespace sluice
