// shapes: the shape of each input sample as a 1-D tensor (DALI's fn.shapes).
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class Shapes : public Operator {
 public:
  explicit Shapes(const OpSpec& spec) : Operator(spec), dtype_(Arg<DType>("dtype")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    std::vector<TensorShape> shapes;
    for (int i = 0; i < in.num_samples(); ++i) shapes.push_back(TensorShape{in.shape(i).ndim()});
    return {{shapes, dtype_, "", true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorShape& s = ws.Input(0).shape(i);
    VisitDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      T* out = ws.Output(0).mutable_sample<T>(i);
      for (int d = 0; d < s.ndim(); ++d) {
        if constexpr (std::is_same_v<T, float16>) out[d] = float16(static_cast<float>(s[d]));
        else out[d] = static_cast<T>(s[d]);
      }
    });
  }

 private:
  DType dtype_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterShapes) {
  r.Register(OpSchema("shapes")
                 .Doc("The shape of each input sample, as a 1-D tensor of `dtype` (DALI's shapes).")
                 .Input("input", "Any data.")
                 .Output("output", "One extent per dimension.")
                 .Arg("dtype", ArgType::kDType, std::string("int64"), "The type the extents are converted to.")
                 .Factory("cpu", MakeFactory<Shapes>()));
}

}  // namespace sluice
