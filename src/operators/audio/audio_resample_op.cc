// audio_resample: DALI's resampling of signals (dali/operators/audio/resample.{h,cc}): the ratio
// from in_rate/out_rate, scale or out_length (per sample), the kernels/audio/resample.h filter,
// DALI's normalising conversions between the input type and dtype.
#include <cstring>
#include <optional>

#include "kernels/audio/resample.h"
#include "kernels/tensor/saturate_cast.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<DType> kResampleTypes = {DType::kInt8,  DType::kUInt8, DType::kInt16,
                                           DType::kUInt16, DType::kInt32, DType::kFloat32};

bool IsUnsigned(DType t) { return t == DType::kUInt8 || t == DType::kUInt16; }

// One input sample as float, as DALI's ConvertSatNorm<float> and its signedness rule: integers
// divided by their maximum; then into [0, 1] ((v + 1) / 2) for an unsigned output from a signed or
// float input, into [-1, 1] (2v - 1) for a signed or float output from an unsigned input.
template <typename T>
void ToFloat(const T* in, int64_t n, bool unsigned_out, float* out) {
  constexpr bool kUnsignedIn = std::is_unsigned_v<T>;
  for (int64_t k = 0; k < n; ++k) {
    float v = std::is_same_v<T, float> ? static_cast<float>(in[k])
                                       : static_cast<float>(in[k]) / static_cast<float>(std::numeric_limits<T>::max());
    if (unsigned_out && !kUnsignedIn) v = (v + 1.0f) * 0.5f;
    else if (!unsigned_out && kUnsignedIn) v = v * 2.0f - 1.0f;
    out[k] = v;
  }
}

class AudioResampleOp final : public Operator {
 public:
  explicit AudioResampleOp(const OpSpec& spec)
      : Operator(spec), lobes_(kernels::ResamplingLobes(Arg<double>("quality"))) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    out_type_ = HasArg("dtype") ? Arg<DType>("dtype") : in.dtype();
    rates_.assign(static_cast<size_t>(n), {1.0, 1.0});
    OutputDesc d{in.shapes(), out_type_, in.layout(), in.is_contiguous()};
    std::vector<double> a, b;
    std::vector<int64_t> lengths;
    if (HasArg("in_rate")) {
      a = PerSampleArg<double>(ws, "in_rate");
      b = PerSampleArg<double>(ws, "out_rate");
    } else if (HasArg("scale")) {
      b = PerSampleArg<double>(ws, "scale");
    } else {
      lengths = PerSampleArg<int64_t>(ws, "out_length");
    }
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      if (s.ndim() != 1 && s.ndim() != 2) {
        Error::Context c;
        c.op = name();
        c.sample = i;
        c.source = in.source(i).ToString();
        throw Error("expected a signal of samples (1-D) or samples x channels (2-D), got shape " + s.ToString(), c);
      }
      const int64_t in_len = s[0];
      auto& [in_rate, out_rate] = rates_[static_cast<size_t>(i)];
      int64_t out_len = 0;
      if (!lengths.empty()) {
        out_len = lengths[static_cast<size_t>(i)];
        if (in_len == 0 && out_len != 0)
          ThrowPerSample("out_length", i, "cannot make " + std::to_string(out_len) + " samples from an empty input");
        // The ratio of the lengths (DALI's; 1 stands in for a length of 0).
        in_rate = in_len ? static_cast<double>(in_len) : 1.0;
        out_rate = out_len ? static_cast<double>(out_len) : 1.0;
      } else {
        in_rate = a.empty() ? 1.0 : a[static_cast<size_t>(i)];
        out_rate = b[static_cast<size_t>(i)];
        out_len = kernels::ResampledLength(in_len, in_rate, out_rate);
      }
      d.shapes[static_cast<size_t>(i)][0] = out_len;
    }
    d.contiguous = SameShapes(d.shapes);
    return {d};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const int64_t out_len = out.shape(i)[0];
    if (out_len == 0) return;
    const int channels = in.shape(i).ndim() == 2 ? static_cast<int>(in.shape(i)[1]) : 1;
    const int64_t in_len = in.shape(i)[0];
    if (threads_.size() <= static_cast<size_t>(thread)) throw Error("thread index out of range");
    ThreadState& st = threads_[static_cast<size_t>(thread)];
    std::vector<float>& f = st.signal;
    f.resize(static_cast<size_t>(in_len * channels));
    const bool unsigned_out = IsUnsigned(out_type_);
    VisitDType(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                    std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t>) {
        ToFloat(in.sample<T>(i), in_len * channels, unsigned_out, f.data());
      }
    });
    const auto [in_rate, out_rate] = rates_[static_cast<size_t>(i)];
    // The filter is kept for the next sample of the same ratio (a table of taps takes up to a
    // millisecond to fill for ratios that are not integer ones).
    if (!st.resampler || st.in_rate != in_rate || st.out_rate != out_rate) {
      st.resampler.emplace(in_rate, out_rate, lobes_);
      st.in_rate = in_rate;
      st.out_rate = out_rate;
    }
    st.resampler->Resample(f.data(), in_len, channels, out.raw_mutable_sample(i), out_type_, out_len);
  }

  void Run(Workspace& ws) override {
    threads_.resize(static_cast<size_t>(ws.pool().num_threads()) + 1);
    Operator::Run(ws);
  }

 private:
  int lobes_;
  DType out_type_ = DType::kFloat32;
  std::vector<std::pair<double, double>> rates_;  // per sample: (in_rate, out_rate) as the kernel takes them
  struct ThreadState {  // one per thread of the pool (RunSample's `thread`)
    std::vector<float> signal;  // the sample as float
    std::optional<kernels::Resampler> resampler;  // the last filter, for (in_rate, out_rate)
    double in_rate = 0, out_rate = 0;
  };
  std::vector<ThreadState> threads_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterAudioResample) {
  std::vector<std::string> type_names;
  for (DType t : kResampleTypes) type_names.emplace_back(ToString(t));
  r.Register(
      OpSchema("audio_resample")
          .Doc("Resamples signals (1-D, or samples x channels) with a windowed sinc (Hann window) whose extent `quality` "
               "sets. The ratio is out_rate / in_rate, `scale`, or out_length / the input's length; the output has "
               "ceil(length * ratio) samples (out_length exactly). Downsampling filters at the output's Nyquist "
               "frequency (DALI keeps the input's, which aliases). When the output type differs from the input's, "
               "values are normalised to fill its range: integers are read as value / max, floats taken as -1..1, "
               "unsigned types map 0 to half their range.")
          .Input("input", "Signals: samples, or samples x channels (interleaved); int8, uint8, int16, uint16, int32 or "
                 "float32.", kResampleTypes)
          .Output("output", "The resampled signals: the input's layout and channels, type `dtype`.")
          .Arg("in_rate", ArgType::kFloat, 1.0,
               "Input sampling rate (any unit, the same as out_rate's); given with out_rate, it sets the ratio "
               "(otherwise scale or out_length does, and this default is not used).", true)
          .Above(0)
          .Arg("out_rate", ArgType::kFloat, 1.0, "Output sampling rate; with in_rate. 0 gives an empty output.", true)
          .Min(0)
          .Arg("scale", ArgType::kFloat, 1.0, "Output rate / input rate (2 doubles the length); 0 gives an empty output.",
               true)
          .Min(0)
          .Arg("out_length", ArgType::kInt, int64_t{0}, "The output's length in samples; the ratio is it / the input's.",
               true)
          .Min(0)
          .Arg("quality", ArgType::kFloat, 50.0,
               "Resampling quality, 0 (lowest) to 100 (highest): 0 gives 3 lobes of the sinc filter, 50 gives 16 and "
               "100 gives 64.")
          .Range(0, 100)
          .Arg("dtype", ArgType::kDType, std::string("float32"),
               "Output type (not given: the input's): int8, uint8, int16, uint16, int32 or float32.")
          .Enum(type_names)
          .Check([](const ArgView& a) {
            if (a.Given("in_rate") != a.Given("out_rate"))
              throw ArgCheckError{a.Given("in_rate") ? "out_rate" : "in_rate",
                                  "in_rate and out_rate must be given together"};
            const int ways = int(a.Given("in_rate")) + int(a.Given("scale")) + int(a.Given("out_length"));
            if (ways > 1)
              throw ArgCheckError{a.Given("scale") ? "scale" : "out_length",
                                  "give one of in_rate/out_rate, scale and out_length"};
            if (ways == 0)
              throw ArgCheckError{"scale", "no resampling ratio: give in_rate and out_rate, scale, or out_length"};
          })
          .Factory("cpu", MakeFactory<AudioResampleOp>()));
}

}  // namespace sluice
