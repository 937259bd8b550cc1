// power_spectrum: DALI's power (or magnitude) spectrum along one axis
// (dali/operators/signal/fft/power_spectrum.cc); the kernel is kernels/audio/power_spectrum.h.
#include <string>
#include <vector>

#include "kernels/audio/power_spectrum.h"
#include "kernels/audio/real_fft.h"
#include "operators/audio/audio_axis.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class PowerSpectrumOp : public Operator {
 public:
  explicit PowerSpectrumOp(const OpSpec& spec)
      : Operator(spec), nfft_arg_(Arg<int64_t>("nfft")), axis_arg_(Arg<int>("axis")), power_(Arg<int>("power")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    OutputDesc out{{}, DType::kFloat32, in.layout(), false};
    samples_.clear();
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      const int ndim = s.ndim();
      if (axis_arg_ < -ndim || axis_arg_ >= ndim)
        ThrowArgError("axis", "axis " + std::to_string(axis_arg_) + " is out of range for sample " + std::to_string(i) +
                                  " of shape " + s.ToString());
      const int axis = axis_arg_ < 0 ? axis_arg_ + ndim : axis_arg_;
      const AxisSplit split = SplitAtAxis(s, axis);
      const int64_t nfft = nfft_arg_ == -1 ? split.extent : nfft_arg_;
      if (split.extent == 0) ThrowSampleError(i, "power_spectrum: the transformed axis is empty, shape " + s.ToString());
      if (split.extent > nfft)
        ThrowSampleError(i, "power_spectrum: nfft (" + std::to_string(nfft) + ") is smaller than the extent of axis " +
                                std::to_string(axis) + " (" + std::to_string(split.extent) + ")");
      samples_.push_back({split, nfft});
      out.shapes.push_back(WithExtent(s, axis, nfft / 2 + 1));
    }
    out.contiguous = SameShapes(out.shapes);
    ffts_.resize(static_cast<size_t>(ws.pool().num_threads()));
    return {out};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const Sample& s = samples_[static_cast<size_t>(i)];
    kernels::PowerSpectrum(ws.Input(0).sample<float>(i), s.split.outer, s.split.extent, s.split.inner, power_,
                           ffts_[static_cast<size_t>(thread)].Get(s.nfft), ws.Output(0).mutable_sample<float>(i));
  }

 private:
  struct Sample {
    AxisSplit split;
    int64_t nfft;
  };
  const int64_t nfft_arg_;
  const int axis_arg_;
  const int power_;
  std::vector<Sample> samples_;               // this batch's, from Setup
  std::vector<kernels::RealFftCache> ffts_;  // one per thread of the pool
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterPowerSpectrum) {
  r.Register(OpSchema("power_spectrum")
                 .Doc("Calculates the power spectrum of signals along one axis (DALI's power_spectrum): each 1-D "
                      "signal along `axis` is placed in the middle of nfft samples (zeros around) and its FFT's "
                      "|X[k]|^power is kept for k in [0, nfft/2]: the axis becomes nfft/2+1 long. float32.")
                 .Input("input", "float32 tensors of any number of dimensions.", {DType::kFloat32})
                 .Output("output", "The spectra, float32: the input's shape and layout with nfft/2+1 along `axis`.")
                 .Arg("nfft", ArgType::kInt, int64_t{-1},
                      "FFT size; -1 (DALI's None): the extent of `axis` in each sample. Must not be smaller than it.")
                 .Check([](const ArgView& a) {
                   const auto nfft = static_cast<int64_t>(a.Numbers("nfft").at(0));
                   if (nfft != -1 && nfft < 1) throw ArgCheckError{"nfft", "must be >= 1 (or -1), got " + std::to_string(nfft)};
                 })
                 .Arg("axis", ArgType::kInt, int64_t{-1},
                      "The axis transformed to the frequency domain; negative counts from the back (-1: the last).")
                 .Arg("power", ArgType::kInt, int64_t{2},
                      "Exponent of the FFT magnitude: 2 (power, re^2 + im^2) or 1 (magnitude).")
                 .Range(1, 2)
                 .Factory("cpu", MakeFactory<PowerSpectrumOp>()));
}

}  // namespace sluice
