// arithmetic.scalar: elementwise `input (op) constant`, the operator behind Python DataNode
// arithmetic (images * 2, 1 - x, labels / 4).
//
// Result type (DALI's promotion, simplified): a float input keeps its type; an integer input keeps
// its type with an integer constant, and becomes float32 with a float constant or a division;
// a bool input becomes int32 (integer constant) or float32.
#include <type_traits>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

enum class Op { kAdd, kSub, kRSub, kMul, kDiv, kRDiv };

template <typename T> double ToDouble(T v) {
  if constexpr (std::is_same_v<T, float16>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}
template <typename T> T FromDouble(double v) {
  if constexpr (std::is_same_v<T, float16>) return float16(static_cast<float>(v));
  else return static_cast<T>(v);
}

inline double Apply(Op op, double x, double c) {
  switch (op) {
    case Op::kAdd: return x + c;
    case Op::kSub: return x - c;
    case Op::kRSub: return c - x;
    case Op::kMul: return x * c;
    case Op::kDiv: return x / c;
    case Op::kRDiv: return c / x;
  }
  return x;
}

// Integer arithmetic in int64 (wrapping on conversion to the output type, as C++ does).
inline int64_t Apply(Op op, int64_t x, int64_t c) {
  const auto ux = static_cast<uint64_t>(x), uc = static_cast<uint64_t>(c);
  switch (op) {
    case Op::kAdd: return static_cast<int64_t>(ux + uc);
    case Op::kSub: return static_cast<int64_t>(ux - uc);
    case Op::kRSub: return static_cast<int64_t>(uc - ux);
    case Op::kMul: return static_cast<int64_t>(ux * uc);
    default: return x;  // divisions never take the integer path
  }
}

class ScalarArithmetic : public Operator {
 public:
  explicit ScalarArithmetic(const OpSpec& s)
      : Operator(s), op_(ParseOp(Arg<std::string>("operation"))), scalar_(Arg<double>("scalar")),
        integer_(Arg<bool>("integer_scalar")) {
    if (integer_ && scalar_ != static_cast<double>(static_cast<int64_t>(scalar_)))
      ThrowArgError("scalar", "integer_scalar is set but the value is not an integer");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), ResultType(in.dtype()), in.layout(), true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    VisitDType(in.dtype(), [&](auto in_tag) {
      using In = decltype(in_tag);
      if (out.dtype() == in.dtype()) Compute<In, In>(in, out, i);
      else if (out.dtype() == DType::kFloat32) Compute<In, float>(in, out, i);
      else Compute<In, int32_t>(in, out, i);
    });
  }

 private:
  static Op ParseOp(const std::string& s) {
    if (s == "add") return Op::kAdd;
    if (s == "sub") return Op::kSub;
    if (s == "rsub") return Op::kRSub;
    if (s == "mul") return Op::kMul;
    if (s == "div") return Op::kDiv;
    if (s == "rdiv") return Op::kRDiv;
    Error::Context c;
    c.argument = "operation";
    throw Error("unknown operation '" + s + "' (expected add, sub, rsub, mul, div or rdiv)", c);
  }

  bool IntegerPath(DType in) const { return !IsFloating(in) && integer_ && op_ != Op::kDiv && op_ != Op::kRDiv; }

  DType ResultType(DType in) const {
    if (IsFloating(in)) return in;
    if (!IntegerPath(in)) return DType::kFloat32;
    return in == DType::kBool ? DType::kInt32 : in;
  }

  template <typename In, typename Out>
  void Compute(const TensorList& in, TensorList& out, int i) const {
    const In* src = in.sample<In>(i);
    Out* dst = out.mutable_sample<Out>(i);
    const int64_t n = in.shape(i).num_elements();
    if constexpr (std::is_integral_v<In> && std::is_integral_v<Out>) {
      const auto c = static_cast<int64_t>(scalar_);
      for (int64_t e = 0; e < n; ++e) dst[e] = static_cast<Out>(Apply(op_, static_cast<int64_t>(src[e]), c));
    } else {
      for (int64_t e = 0; e < n; ++e) dst[e] = FromDouble<Out>(Apply(op_, ToDouble(src[e]), scalar_));
    }
  }

  Op op_;
  double scalar_;
  bool integer_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterScalarArithmetic) {
  r.Register(OpSchema("arithmetic.scalar")
                 .Doc("Elementwise arithmetic between a tensor and one constant (Python DataNode arithmetic makes "
                      "arithmetic.expression instead). A float input keeps its type; an integer input "
                      "keeps its type with an integer constant and becomes float32 with a float constant or a "
                      "division; a bool input becomes int32 or float32.")
                 .Input("input", "Numeric data.")
                 .Output("output", "input (operation) scalar.")
                 .Arg("operation", ArgType::kString, std::nullopt,
                      "add, sub, rsub (scalar - input), mul, div (true division), rdiv (scalar / input).")
                 .Arg("scalar", ArgType::kFloat, std::nullopt, "The constant operand.")
                 .Arg("integer_scalar", ArgType::kBool, false,
                      "The constant is an integer: integer inputs keep their type (except in divisions).")
                 .Factory("cpu", [](const OpSpec& s) { return std::make_unique<ScalarArithmetic>(s); }));
}

}  // namespace sluice
