// custom.invert: out = max - in, per element, for uint8 images of any layout; `max` is a constant
// or a per-sample input. An operator library's whole shape: the library marker, an Operator
// (Setup declares the outputs for the batch, RunSample fills one sample on the thread pool), and
// its schema (inputs, arguments with defaults and checks, documentation), registered at load.
#include <operators/operator_library.h>

#include <algorithm>
#include <cstdint>

SLUICE_OPERATOR_LIBRARY()

namespace {

class Invert : public sluice::Operator {
 public:
  using Operator::Operator;

  std::vector<sluice::OutputDesc> Setup(sluice::Workspace& ws) override {
    const sluice::TensorList& in = ws.Input(0);
    max_ = PerSampleArg<int64_t>(ws, "max");  // checked against the schema's range per sample
    return {{in.shapes(), sluice::DType::kUInt8, in.layout(), in.is_contiguous()}};
  }

  void RunSample(sluice::Workspace& ws, int i, int) override {
    const sluice::TensorList& in = ws.Input(0);
    const uint8_t* src = in.sample<uint8_t>(i);
    uint8_t* dst = ws.Output(0).mutable_sample<uint8_t>(i);
    const int m = static_cast<int>(max_[static_cast<size_t>(i)]);
    const int64_t n = in.shape(i).num_elements();
    for (int64_t k = 0; k < n; ++k) dst[k] = static_cast<uint8_t>(std::max(0, m - src[k]));
  }

 private:
  std::vector<int64_t> max_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterInvert) {
  r.Register(sluice::OpSchema("custom.invert")
                 .Doc("Inverts uint8 data: out = max - in, clamped at 0 (an example operator library).")
                 .Input("input", "uint8 data of any shape and layout.", {sluice::DType::kUInt8})
                 .Output("output", "max - input, uint8, with the input's shape and layout.")
                 .Arg("max", sluice::ArgType::kInt, int64_t{255}, "The value inverted around.", /*per_sample=*/true)
                 .Range(0, 255)
                 .Factory("cpu", sluice::MakeFactory<Invert>()));
}
