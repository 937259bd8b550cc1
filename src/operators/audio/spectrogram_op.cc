// spectrogram: DALI's short-time Fourier transform magnitude/power of 1-D signals
// (dali/operators/signal/fft/spectrogram.cc); the kernel is kernels/audio/spectrogram.h.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/audio/real_fft.h"
#include "kernels/audio/spectrogram.h"
#include "kernels/audio/window_function.h"
#include "operators/audio/audio_axis.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class SpectrogramOp : public Operator {
 public:
  explicit SpectrogramOp(const OpSpec& spec) : Operator(spec), layout_(Arg<std::string>("layout")) {
    args_.window_length = Arg<int64_t>("window_length");
    args_.window_step = Arg<int64_t>("window_step");
    const int64_t nfft = Arg<int64_t>("nfft");
    args_.nfft = nfft == -1 ? args_.window_length : nfft;
    args_.power = Arg<int>("power");
    args_.time_major = layout_ == "tf";
    args_.padding = !Arg<bool>("center_windows") ? kernels::StftPadding::kNone
                    : Arg<bool>("reflect_padding") ? kernels::StftPadding::kReflect
                                                   : kernels::StftPadding::kZero;
    window_ = Arg<std::vector<float>>("window_fn");
    if (window_.empty()) {
      window_.resize(static_cast<size_t>(args_.window_length));
      kernels::HannWindow(window_.data(), args_.window_length);
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    OutputDesc out{{}, DType::kFloat32, layout_, false};
    const int64_t bins = args_.nfft / 2 + 1;
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      const int64_t length = s.num_elements();
      // DALI: one channel, as (n,), (n, 1), (1, n), ...: every extent but one is 1.
      const bool one_channel = s.ndim() >= 1 && std::all_of(s.dims().begin(), s.dims().end(),
                                                            [&](int64_t e) { return e == 1 || e == length; });
      if (!one_channel)
        ThrowSampleError(i, "spectrogram: expected a 1-D signal (or one extent other than 1), got shape " + s.ToString());
      const int64_t windows = kernels::StftNumWindows(length, args_);
      if (windows <= 0)
        ThrowSampleError(i, "spectrogram: the signal (" + std::to_string(length) + " samples) is shorter than "
                                "window_length (" + std::to_string(args_.window_length) + ") with center_windows=False");
      out.shapes.push_back(args_.time_major ? TensorShape{windows, bins} : TensorShape{bins, windows});
    }
    out.contiguous = SameShapes(out.shapes);
    ffts_.resize(static_cast<size_t>(ws.pool().num_threads()));
    return {out};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const TensorList& in = ws.Input(0);
    kernels::Spectrogram(in.sample<float>(i), in.shape(i).num_elements(), window_.data(), args_,
                         ffts_[static_cast<size_t>(thread)].Get(args_.nfft), ws.Output(0).mutable_sample<float>(i));
  }

 private:
  const std::string layout_;
  kernels::StftArgs args_;
  std::vector<float> window_;
  std::vector<kernels::RealFftCache> ffts_;  // one per thread of the pool (RunSample's `thread`)
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterSpectrogram) {
  r.Register(OpSchema("spectrogram")
                 .Doc("Produces the spectrogram of 1-D signals (DALI's spectrogram): |STFT|^power of windows of "
                      "window_length samples, window_step apart, each multiplied by window_fn (default: Hann, sampled "
                      "at the middle of each sample interval as DALI's) and transformed by an FFT of nfft samples (the "
                      "window in its middle). With center_windows, window w is centered on sample w * window_step and "
                      "the signal is extended by reflection (reflect_padding) or zeros: len / window_step + 1 windows; "
                      "without it, only windows inside the signal: (len - window_length) / window_step + 1. Output "
                      "float32 with nfft/2+1 frequency bins, frequency-major ('ft') or time-major ('tf').")
                 .Input("input", "float32 signals: 1-D, or one channel as (n, 1) or (1, n).", {DType::kFloat32})
                 .Output("output", "The spectrograms, float32: (nfft/2+1, windows) for layout 'ft', (windows, nfft/2+1) "
                                   "for 'tf'.")
                 .Arg("nfft", ArgType::kInt, int64_t{-1},
                      "FFT size (nfft/2+1 output bins); -1 (DALI's None): window_length. Must be >= window_length.")
                 .Arg("window_length", ArgType::kInt, int64_t{512}, "Window size, in samples.")
                 .Min(1)
                 .Arg("window_step", ArgType::kInt, int64_t{256}, "Step between the windows, in samples.")
                 .Min(1)
                 .Arg("window_fn", ArgType::kFloatList, std::vector<double>{},
                      "The window function's window_length samples; empty: Hann.")
                 .Arg("power", ArgType::kInt, int64_t{2}, "Exponent of the magnitude: 1 (amplitude) or 2 (power).")
                 .Range(1, 2)
                 .Arg("center_windows", ArgType::kBool, true,
                      "Center window w on sample w * window_step (padding the signal); False: only windows inside "
                      "the signal.")
                 .Arg("reflect_padding", ArgType::kBool, true,
                      "With center_windows: pad by reflection (x[-1] = x[1]); False: with zeros.")
                 .Arg("layout", ArgType::kString, std::string("ft"),
                      "Output layout: 'ft' (frequency-major) or 'tf' (time-major).")
                 .Enum({"ft", "tf"})
                 .Check([](const ArgView& a) {
                   const int64_t length = static_cast<int64_t>(a.Numbers("window_length").at(0));
                   const int64_t nfft = static_cast<int64_t>(a.Numbers("nfft").at(0));
                   if (nfft != -1 && nfft < length)
                     throw ArgCheckError{"nfft", "must be >= window_length (" + std::to_string(length) + "), got " +
                                                     std::to_string(nfft)};
                   const size_t window = a.Numbers("window_fn").size();
                   if (window != 0 && static_cast<int64_t>(window) != length)
                     throw ArgCheckError{"window_fn", "has " + std::to_string(window) + " samples, window_length is " +
                                                          std::to_string(length)};
                 })
                 .Factory("cpu", MakeFactory<SpectrogramOp>()));
}

}  // namespace sluice
