// arithmetic.expression: an elementwise expression over N inputs and constants, evaluated in one
// pass (what Python DataNode arithmetic and sluice.math create: `a + b * 2 - c` is one operator).
// Broadcasting: inputs of the same shape, per-sample scalars (one-element samples) and constants.
#include <mutex>

#include "kernels/arithmetic/expression.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

namespace ka = kernels::arith;
constexpr int kMaxInputs = 64;

class ArithmeticExpression : public Operator {
 public:
  explicit ArithmeticExpression(const OpSpec& s) : Operator(s) {
    try {
      expr_ = ka::ParseExpression(Arg<std::string>("expression"));
    } catch (const ka::ExpressionError& e) {
      ThrowArgError("expression", e.what());
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int ni = ws.num_inputs();
    if (ka::NumInputs(expr_) > ni)
      ThrowArgError("expression", "refers to input " + std::to_string(ka::NumInputs(expr_) - 1) + ", and the operator has " +
                                      std::to_string(ni) + " input(s)");
    std::vector<DType> types;
    for (int k = 0; k < ni; ++k) types.push_back(ws.Input(k).dtype());
    if (!program_ || types != types_) {
      try {
        program_.emplace(expr_, types);
      } catch (const ka::ExpressionError& e) {
        ThrowArgError("expression", e.what());
      }
      types_ = types;
    }
    const int n = ws.Input(0).num_samples();
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    std::string layout;
    scalar_.assign(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(ni)));
    for (int i = 0; i < n; ++i) {
      int full = -1;  // the first input that is not a one-element sample
      int widest = 0;
      for (int k = 0; k < ni; ++k) {
        const TensorList& in = ws.Input(k);
        if (in.num_samples() != n) {
          Error::Context c;
          c.op = spec_.name;
          throw Error("input " + std::to_string(k) + " has " + std::to_string(in.num_samples()) + " samples, input 0 has " +
                          std::to_string(n), c);
        }
        const TensorShape& s = in.shape(i);
        if (s.ndim() > ws.Input(widest).shape(i).ndim()) widest = k;
        if (s.num_elements() == 1) {
          scalar_[static_cast<size_t>(i)][static_cast<size_t>(k)] = true;
          continue;
        }
        if (full < 0) {
          full = k;
        } else if (!(s == ws.Input(full).shape(i))) {
          Error::Context c;
          c.op = spec_.name;
          c.sample = i;
          throw Error("sample " + std::to_string(i) + ": input " + std::to_string(full) + " has shape " +
                          ws.Input(full).shape(i).ToString() + " and input " + std::to_string(k) + " has shape " +
                          s.ToString() + "; the shapes must be equal, or one of them a single element (a per-sample scalar)",
                      c);
        }
      }
      const int src = full >= 0 ? full : widest;
      if (full >= 0)  // a full-shaped input is read elementwise
        scalar_[static_cast<size_t>(i)][static_cast<size_t>(full)] = false;
      shapes[static_cast<size_t>(i)] = ws.Input(src).shape(i);
      if (layout.empty()) layout = ws.Input(src).layout();
    }
    return {{shapes, program_->output_type(), layout, true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    std::vector<const void*> ptrs;
    std::vector<bool> scalar = scalar_[static_cast<size_t>(i)];
    for (int k = 0; k < ws.num_inputs(); ++k) ptrs.push_back(ws.Input(k).raw_sample(i));
    TensorList& out = ws.Output(0);
    const int64_t n = out.shape(i).num_elements();
    // A one-element input whose shape is the output's is read elementwise too (n == 1): same thing.
    program_->Evaluate(ptrs, scalar, out.raw_mutable_sample(i), n);
  }

 private:
  ka::ExprNode expr_;
  std::optional<ka::Program> program_;
  std::vector<DType> types_;
  std::vector<std::vector<bool>> scalar_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterArithmeticExpression) {
  OpSchema s("arithmetic.expression");
  s.Doc("An elementwise expression over the inputs and constants, evaluated in one pass (what DataNode arithmetic "
        "between data nodes and sluice.math create; a chain like a + b * 2 - c is one operator). Types follow DALI's "
        "promotion table; `/` of integers gives float32, comparisons give bool. The inputs' samples must have the "
        "same shape, or one element (a per-sample scalar, broadcast).");
  for (int k = 0; k < kMaxInputs; ++k) s.Input("input_" + std::to_string(k), "Numeric data (an operand of the expression).");
  s.OptionalInputs(kMaxInputs - 1)
      .Output("output", "The expression's value per element.")
      .Arg("expression", ArgType::kString, std::nullopt,
           "The expression in prefix notation: &N is input N, $VALUE:KIND a constant (KIND int or float for Python "
           "literals, which take the tensor operand's type, or a type name), name(args) an operation, e.g. "
           "\"add(&0,mul(&1,$2:int))\".")
      .Check([](const ArgView& a) {
        if (!a.Given("expression") || a.IsArgInput("expression")) return;
        try {
          ka::ParseExpression(a.String("expression"));
        } catch (const ka::ExpressionError& e) {
          throw ArgCheckError{"expression", e.what()};
        }
      })
      .Factory("cpu", MakeFactory<ArithmeticExpression>());
  r.Register(std::move(s));
}

}  // namespace sluice
