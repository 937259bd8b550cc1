// arithmetic.expression: an elementwise expression over N inputs and constants, evaluated in one
// pass (what Python DataNode arithmetic and sluice.math create: `a + b * 2 - c` is one operator).
// Broadcasting, per sample, as NumPy's (and DALI's): shapes are aligned at their last dimension and
// each extent is the output's or 1; one-element samples are per-sample scalars. An input whose
// shape is not the output's is expanded into per-thread scratch first (kernels::StridedCopy with
// step 0 along its broadcast dimensions), then read elementwise like the others.
#include <algorithm>
#include <mutex>

#include "kernels/arithmetic/expression.h"
#include "kernels/slice/strided_copy.h"
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
    kind_.assign(static_cast<size_t>(n), std::vector<Kind>(static_cast<size_t>(ni), Kind::kFull));
    for (int i = 0; i < n; ++i) {
      int widest = 0;
      std::vector<int64_t> out;  // the broadcast shape, innermost dimension first
      bool any_full = false;
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
        if (s.num_elements() == 1) continue;
        any_full = true;
        for (int d = 0; d < s.ndim(); ++d) {
          const int64_t e = s[s.ndim() - 1 - d];
          if (static_cast<size_t>(d) == out.size()) {
            out.push_back(e);
          } else if (out[static_cast<size_t>(d)] == 1) {
            out[static_cast<size_t>(d)] = e;
          } else if (e != 1 && e != out[static_cast<size_t>(d)]) {
            Error::Context c;
            c.op = spec_.name;
            c.sample = i;
            std::string shapes_text;
            for (int q = 0; q < ni; ++q) shapes_text += (q ? ", " : "") + ws.Input(q).shape(i).ToString();
            throw Error("sample " + std::to_string(i) + ": the input shapes " + shapes_text +
                            " cannot be broadcast together (aligned at their last dimension, each extent must be "
                            "equal or 1; one-element samples are per-sample scalars)",
                        c);
          }
        }
      }
      TensorShape shape = ws.Input(widest).shape(i);
      if (any_full) {
        std::reverse(out.begin(), out.end());
        shape = TensorShape(out);
      }
      int layout_src = -1;
      for (int k = 0; k < ni; ++k) {
        const TensorShape& s = ws.Input(k).shape(i);
        Kind& kind = kind_[static_cast<size_t>(i)][static_cast<size_t>(k)];
        if (s == shape) {
          kind = Kind::kFull;  // a one-element input of the output's shape is read elementwise too
          if (layout_src < 0) layout_src = k;
        } else {
          kind = s.num_elements() == 1 ? Kind::kScalar : Kind::kBroadcast;
        }
      }
      shapes[static_cast<size_t>(i)] = shape;
      if (layout.empty()) layout = ws.Input(layout_src >= 0 ? layout_src : widest).layout();
    }
    scratch_.resize(static_cast<size_t>(ws.pool().num_threads()));
    return {{shapes, program_->output_type(), layout, true}};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const int ni = ws.num_inputs();
    TensorList& out = ws.Output(0);
    const TensorShape& shape = out.shape(i);
    std::vector<const void*> ptrs(static_cast<size_t>(ni));
    std::vector<bool> scalar(static_cast<size_t>(ni));
    std::vector<std::vector<uint8_t>>& scratch = scratch_[static_cast<size_t>(thread)];
    scratch.resize(static_cast<size_t>(ni));
    for (int k = 0; k < ni; ++k) {
      const TensorList& in = ws.Input(k);
      const Kind kind = kind_[static_cast<size_t>(i)][static_cast<size_t>(k)];
      ptrs[static_cast<size_t>(k)] = in.raw_sample(i);
      scalar[static_cast<size_t>(k)] = kind == Kind::kScalar;
      if (kind != Kind::kBroadcast) continue;
      // Expand: the input's shape padded with leading 1s, read with step 0 along each extent of 1.
      const TensorShape& s = in.shape(i);
      const int nd = shape.ndim();
      std::vector<int64_t> in_shape(static_cast<size_t>(nd), 1), lo(static_cast<size_t>(nd), 0), step(static_cast<size_t>(nd), 1);
      for (int d = 0; d < s.ndim(); ++d) in_shape[static_cast<size_t>(nd - s.ndim() + d)] = s[d];
      for (int d = 0; d < nd; ++d)
        if (in_shape[static_cast<size_t>(d)] == 1 && shape[d] != 1) step[static_cast<size_t>(d)] = 0;
      std::vector<uint8_t>& buf = scratch[static_cast<size_t>(k)];
      buf.resize(static_cast<size_t>(shape.num_elements()) * SizeOf(in.dtype()));
      kernels::StridedCopy(in.raw_sample(i), in_shape, lo, step, shape.dims(), buf.data(), SizeOf(in.dtype()));
      ptrs[static_cast<size_t>(k)] = buf.data();
    }
    program_->Evaluate(ptrs, scalar, out.raw_mutable_sample(i), shape.num_elements());
  }

 private:
  ka::ExprNode expr_;
  std::optional<ka::Program> program_;
  std::vector<DType> types_;
  enum class Kind : uint8_t { kFull, kScalar, kBroadcast };
  std::vector<std::vector<Kind>> kind_;                       // [sample][input]
  std::vector<std::vector<std::vector<uint8_t>>> scratch_;    // [thread][input]: expanded inputs
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterArithmeticExpression) {
  OpSchema s("arithmetic.expression");
  s.Doc("An elementwise expression over the inputs and constants, evaluated in one pass (what DataNode arithmetic "
        "between data nodes and sluice.math create; a chain like a + b * 2 - c is one operator). Types follow DALI's "
        "promotion table; `/` of integers gives float32, comparisons give bool. The inputs' samples broadcast as "
        "NumPy's (aligned at the last dimension, each extent equal or 1); one-element samples are per-sample scalars.");
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
