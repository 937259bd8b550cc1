// nonsilent_region: DALI's leading and trailing silence detection
// (dali/operators/audio/nonsilence_op.{h,cc}); the kernel is kernels/audio/nonsilent_region.h.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/audio/nonsilent_region.h"
#include "operators/audio/audio_axis.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class NonsilentRegionOp : public Operator {
 public:
  explicit NonsilentRegionOp(const OpSpec& spec) : Operator(spec) {
    args_.cutoff_db = Arg<float>("cutoff_db");
    // DALI: the maximum unless reference_power is given (then > 0); here 0, the default, means the
    // maximum either way, so that the default can be written out.
    args_.reference_power = Arg<float>("reference_power");
    args_.reference_max = args_.reference_power == 0.0f;
    args_.window_length = Arg<int64_t>("window_length");
    args_.reset_interval = Arg<int64_t>("reset_interval");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    // DALI checks this for floating-point input only (the others sum exactly or need no reset).
    if (IsFloating(in.dtype()) && args_.reset_interval != -1 && args_.reset_interval % args_.window_length != 0)
      ThrowArgError("reset_interval", "must be -1 or a multiple of window_length (" +
                                          std::to_string(args_.window_length) + ") for floating-point input, got " +
                                          std::to_string(args_.reset_interval));
    int64_t longest = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      if (in.shape(i).ndim() != 1)
        ThrowSampleError(i, "nonsilent_region: expected a 1-D signal, got shape " + in.shape(i).ToString());
      longest = std::max(longest, in.shape(i)[0]);
    }
    scratch_.resize(static_cast<size_t>(ws.pool().num_threads()));
    for (auto& s : scratch_)
      if (static_cast<int64_t>(s.size()) < longest) s.resize(static_cast<size_t>(longest));
    const std::vector<TensorShape> scalars(static_cast<size_t>(in.num_samples()), TensorShape{});
    return {OutputDesc{scalars, DType::kInt32, "", true}, OutputDesc{scalars, DType::kInt32, "", true}};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const TensorList& in = ws.Input(0);
    const auto r = kernels::FindNonsilentRegion(in.raw_sample(i), in.dtype(), in.shape(i)[0], args_,
                                                scratch_[static_cast<size_t>(thread)].data());
    *ws.Output(0).mutable_sample<int32_t>(i) = static_cast<int32_t>(r.begin);
    *ws.Output(1).mutable_sample<int32_t>(i) = static_cast<int32_t>(r.length);
  }

 private:
  kernels::NonsilentRegionArgs args_;
  std::vector<std::vector<float>> scratch_;  // per thread of the pool: the short-term powers
};

const std::vector<DType> kAudioTypes = {DType::kUInt8, DType::kInt8,  DType::kUInt16,  DType::kInt16,
                                        DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterNonsilentRegion) {
  r.Register(OpSchema("nonsilent_region")
                 .Doc("Performs leading and trailing silence detection in an audio buffer (DALI's nonsilent_region). "
                      "The short-term power is the mean of the squared signal over window_length samples; a window is "
                      "silent when 10 * log10(power / reference_power) < cutoff_db, the reference being the largest "
                      "short-term power unless reference_power is given (nonzero). Returns the first sample of the first "
                      "window that is not silent and the length up to the end of the last one (begin 0, length 0 "
                      "when all is silent). The outputs are the anchor and shape of fn.slice(audio, begin, length, "
                      "axes=[0]).")
                 .Input("input", "1-D audio signals: uint8, int8, uint16, int16, int32, int64, float32 or float64.",
                        kAudioTypes)
                 .Output("begin", "Index of the first sample of the nonsilent region: an int32 scalar per sample.")
                 .Output("length", "Length of the nonsilent region (0: all silent): an int32 scalar per sample.")
                 .Arg("cutoff_db", ArgType::kFloat, -60.0, "The threshold, in dB, below which the signal is silent.")
                 .Arg("window_length", ArgType::kInt, int64_t{2048},
                      "Size of the sliding window of the short-term power (at most the signal's length).")
                 .Min(1)
                 .Arg("reference_power", ArgType::kFloat, 0.0,
                      "The reference power of the dB scale; 0 (the default): the largest short-term power of the signal.")
                 .Min(0)
                 .Arg("reset_interval", ArgType::kInt, int64_t{8192},
                      "How many windows the running sum of squares goes before it is recomputed, for precision; -1: "
                      "never. With floating-point input, -1 or a multiple of window_length.")
                 .Min(-1)
                 .Factory("cpu", MakeFactory<NonsilentRegionOp>()));
}

}  // namespace sluice
