// mel_filter_bank: DALI's mel filter bank applied to spectrograms
// (dali/operators/audio/mel_scale/mel_filter_bank.cc); the kernel is kernels/audio/mel_filter_bank.h.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/audio/mel_filter_bank.h"
#include "operators/audio/audio_axis.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class MelFilterBankOp : public Operator {
 public:
  explicit MelFilterBankOp(const OpSpec& spec) : Operator(spec) {
    args_.nfilter = Arg<int64_t>("nfilter");
    args_.sample_rate = Arg<double>("sample_rate");
    args_.freq_low = Arg<double>("freq_low");
    const double freq_high = Arg<double>("freq_high");
    args_.freq_high = freq_high > 0 ? freq_high : args_.sample_rate / 2;
    args_.normalize = Arg<bool>("normalize");
    args_.formula = Arg<std::string>("mel_formula") == "htk" ? kernels::MelFormula::kHtk : kernels::MelFormula::kSlaney;
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    OutputDesc out{{}, DType::kFloat32, in.layout(), false};
    samples_.clear();
    // DALI: the layout's 'f'; without a layout, "f", "ft" or "*ft" by the number of dimensions.
    const std::string& layout = in.layout();
    const size_t f = layout.find('f');
    if (!layout.empty() && f == std::string::npos)
      throw Error("mel_filter_bank: the input layout '" + layout + "' has no frequency axis 'f'");
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      const int axis = layout.empty() ? std::max(0, s.ndim() - 2) : static_cast<int>(f);
      if (axis >= s.ndim())
        ThrowSampleError(i, "mel_filter_bank: sample of shape " + s.ToString() + " has no frequency axis");
      const AxisSplit split = SplitAtAxis(s, axis);
      if (split.extent < 2)
        ThrowSampleError(i, "mel_filter_bank: needs at least 2 frequency bins (nfft = 2 * (bins - 1)), got shape " +
                                s.ToString());
      auto& bank = banks_[split.extent];  // built once per number of bins, here: RunSample only reads
      if (!bank) {
        kernels::MelFilterBankArgs a = args_;
        a.nfft = 2 * (split.extent - 1);
        bank = std::make_unique<kernels::MelFilterBank>(a);
      }
      samples_.push_back({split, bank.get()});
      out.shapes.push_back(WithExtent(s, axis, args_.nfilter));
    }
    out.contiguous = SameShapes(out.shapes);
    return {out};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const Sample& s = samples_[static_cast<size_t>(i)];
    s.bank->Apply(ws.Input(0).sample<float>(i), s.split.outer, s.split.inner, ws.Output(0).mutable_sample<float>(i));
  }

 private:
  struct Sample {
    AxisSplit split;
    const kernels::MelFilterBank* bank;
  };
  kernels::MelFilterBankArgs args_;
  std::map<int64_t, std::unique_ptr<kernels::MelFilterBank>> banks_;  // by number of bins
  std::vector<Sample> samples_;                                       // this batch's, from Setup
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterMelFilterBank) {
  r.Register(OpSchema("mel_filter_bank")
                 .Doc("Converts a spectrogram to a mel spectrogram by applying a bank of triangular filters (DALI's "
                      "mel_filter_bank; librosa.filters.mel's weights). The frequency axis is the input layout's 'f' "
                      "or, without a layout, the first axis of 1-D and 2-D samples ('f', 'ft') and the second to last "
                      "of others ('*ft'); its extent is nfft/2+1, from which nfft is taken. That axis becomes nfilter "
                      "long; float32.")
                 .Input("input", "Spectrograms (power or magnitude), float32, with nfft/2+1 >= 2 frequency bins.",
                        {DType::kFloat32})
                 .Output("output", "Mel spectrograms: the input's shape and layout with nfilter along the frequency axis.")
                 .Arg("nfilter", ArgType::kInt, int64_t{128}, "Number of mel filters.")
                 .Min(1)
                 .Arg("sample_rate", ArgType::kFloat, 44100.0, "Sampling rate of the audio signal, in Hz.")
                 .Above(0)
                 .Arg("freq_low", ArgType::kFloat, 0.0, "The lowest frequency, in Hz.")
                 .Min(0)
                 .Arg("freq_high", ArgType::kFloat, 0.0, "The highest frequency, in Hz; 0: sample_rate / 2.")
                 .Min(0)
                 .Arg("normalize", ArgType::kBool, true,
                      "Divide each triangle by the width of its band (Slaney's: unit area); False: unit peak.")
                 .Arg("mel_formula", ArgType::kString, std::string("slaney"),
                      "'slaney' (linear below 1 kHz, logarithmic above; librosa's default) or 'htk' "
                      "(2595 * log10(1 + f / 700)).")
                 .Enum({"slaney", "htk"})
                 .Check([](const ArgView& a) {
                   const double rate = a.Numbers("sample_rate").at(0), low = a.Numbers("freq_low").at(0);
                   const double high = a.Numbers("freq_high").at(0);
                   if (high > rate / 2)
                     throw ArgCheckError{"freq_high", "must be <= sample_rate / 2 (" + std::to_string(rate / 2) + "), got " +
                                                          std::to_string(high)};
                   if (low >= (high > 0 ? high : rate / 2))
                     throw ArgCheckError{"freq_low", "must be below freq_high (" + std::to_string(high > 0 ? high : rate / 2) +
                                                         "), got " + std::to_string(low)};
                 })
                 .Factory("cpu", MakeFactory<MelFilterBankOp>()));
}

}  // namespace sluice
