// mfcc: DALI's mel-frequency cepstral coefficients, a DCT of (log) mel spectrograms along one axis
// (dali/operators/audio/mfcc/mfcc.cc); the kernel is kernels/audio/dct.h.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/audio/dct.h"
#include "operators/audio/audio_axis.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class MfccOp : public Operator {
 public:
  explicit MfccOp(const OpSpec& spec)
      : Operator(spec),
        n_mfcc_(Arg<int64_t>("n_mfcc")),
        dct_type_(Arg<int>("dct_type")),
        normalize_(Arg<bool>("normalize")),
        axis_(Arg<int>("axis")),
        lifter_(Arg<float>("lifter")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    OutputDesc out{{}, DType::kFloat32, in.layout(), false};
    samples_.clear();
    int64_t max_ndct = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      if (axis_ >= s.ndim())
        ThrowArgError("axis", "axis " + std::to_string(axis_) + " is out of range for sample " + std::to_string(i) +
                                  " of shape " + s.ToString());
      const AxisSplit split = SplitAtAxis(s, axis_);
      if (dct_type_ == 1 && split.extent < 2)
        ThrowSampleError(i, "mfcc: DCT type I needs at least 2 values along the axis, got shape " + s.ToString());
      const int64_t ndct = std::min(n_mfcc_, split.extent);  // DALI: at most the axis's extent
      const kernels::DctTable* table = nullptr;
      if (ndct > 0) {
        auto& t = tables_[split.extent];  // built here once per extent: RunSample only reads
        if (!t) t = std::make_unique<kernels::DctTable>(dct_type_, normalize_, split.extent, ndct);
        table = t.get();
      }
      max_ndct = std::max(max_ndct, ndct);
      samples_.push_back({split, table});
      out.shapes.push_back(WithExtent(s, axis_, ndct));
    }
    if (lifter_ != 0.0f && static_cast<int64_t>(lifter_factors_.size()) < max_ndct)
      lifter_factors_ = kernels::LifterFactors(lifter_, max_ndct);
    out.contiguous = SameShapes(out.shapes);
    return {out};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const Sample& s = samples_[static_cast<size_t>(i)];
    if (!s.table) return;  // an empty axis: an empty output
    kernels::Dct(ws.Input(0).sample<float>(i), s.split.outer, s.split.inner, *s.table,
                 lifter_ != 0.0f ? lifter_factors_.data() : nullptr, ws.Output(0).mutable_sample<float>(i));
  }

 private:
  struct Sample {
    AxisSplit split;
    const kernels::DctTable* table;
  };
  const int64_t n_mfcc_;
  const int dct_type_;
  const bool normalize_;
  const int axis_;
  const float lifter_;
  std::map<int64_t, std::unique_ptr<kernels::DctTable>> tables_;  // by the axis's extent
  std::vector<float> lifter_factors_;                             // for the largest n_mfcc seen
  std::vector<Sample> samples_;                                   // this batch's, from Setup
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterMfcc) {
  r.Register(OpSchema("mfcc")
                 .Doc("Computes mel-frequency cepstral coefficients (MFCC) from a mel spectrogram (DALI's mfcc): the "
                      "DCT of type dct_type (1-4, the formulas of Wikipedia's DCT page; normalize: orthonormal, "
                      "SciPy's norm='ortho') along `axis`, keeping the first n_mfcc coefficients (at most the axis's "
                      "extent), each then multiplied by 1 + (lifter / 2) * sin(pi * (k + 1) / lifter) when lifter != 0. "
                      "float32.")
                 .Input("input", "Mel spectrograms (typically in decibels), float32, any number of dimensions.",
                        {DType::kFloat32})
                 .Output("output", "The MFCCs: the input's shape and layout with min(n_mfcc, extent) along `axis`.")
                 .Arg("n_mfcc", ArgType::kInt, int64_t{20}, "Number of MFCC coefficients.")
                 .Min(1)
                 .Arg("dct_type", ArgType::kInt, int64_t{2}, "Discrete cosine transform type: 1, 2, 3 or 4.")
                 .Range(1, 4)
                 .Arg("normalize", ArgType::kBool, false,
                      "Use the orthonormal DCT basis (not available for dct_type 1).")
                 .Arg("axis", ArgType::kInt, int64_t{0}, "The axis transformed (the mel axis of 'ft' data: 0).")
                 .Min(0)
                 .Arg("lifter", ArgType::kFloat, 0.0,
                      "Cepstral filtering (liftering) coefficient; 0: none. MFCC[k] *= 1 + (lifter / 2) * sin(pi * (k + 1) / lifter).")
                 .Check([](const ArgView& a) {
                   const Value* normalize = a.Get("normalize");
                   if (a.Numbers("dct_type").at(0) == 1 && normalize && std::get<bool>(*normalize))
                     throw ArgCheckError{"normalize", "the orthonormal basis is not available for dct_type 1"};
                 })
                 .Factory("cpu", MakeFactory<MfccOp>()));
}

}  // namespace sluice
