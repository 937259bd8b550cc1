// Elementwise expression trees over N tensors and constants (DALI's arithmetic between data nodes).
//
// Text form (prefix notation, what the Python front end writes into arithmetic.expression's
// `expression` argument):  add(&0,mul(&1,$2:int))
//   &N            input N
//   $VALUE:KIND   a constant; KIND is `int` or `float` (a "weak" Python literal: it takes the tensor
//                 operand's type when that type can hold it) or a type name (uint8, float32, bool...)
//   name(a,b,..)  an operation: add sub mul div floordiv mod pow neg eq ne lt le gt ge bitand bitor
//                 bitxor, and the math functions abs fabs floor ceil pow fpow min max clamp sqrt rsqrt
//                 cbrt exp log log2 log10 sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh
//                 atan2.
// Types follow DALI's promotion table (T,T->T; float with non-float -> the float; two signed or two
// unsigned integers -> the wider; intX with uintY -> int(2Y) if X <= Y else intX; bool is below every
// other type). `/` of integers gives float32; comparisons give bool; `& | ^` need integers or bool.
// Evaluation is one pass over the elements, in chunks: no intermediate tensor per operation.
// Implemented by expression_parser.cc (text form), type_promotion.cc, expression_compiler.cc
// (typing), expression_eval.cc (chunks) and expression_lut.cc (the lookup-table shortcut).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <sluice/dtype.h>

#include "kernels/arithmetic/type_promotion.h"

namespace sluice::kernels::arith {

// A parse or type error; `what()` says where and why.
struct ExpressionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Op : uint8_t {
  kInput, kConst,
  kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kFPow, kNeg,
  kEq, kNe, kLt, kLe, kGt, kGe, kBitAnd, kBitOr, kBitXor,
  kAbs, kFabs, kFloor, kCeil, kSqrt, kRsqrt, kCbrt, kExp, kLog, kLog2, kLog10,
  kSin, kCos, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kTanh, kAsinh, kAcosh, kAtanh,
  kAtan2, kMin, kMax, kClamp,
};

enum class ConstKind : uint8_t { kWeakInt, kWeakFloat, kTyped };

struct ExprNode {
  Op op = Op::kConst;
  int input = -1;                      // kInput
  ConstKind const_kind = ConstKind::kTyped;
  DType const_type = DType::kInt32;    // kTyped constants
  double fvalue = 0;                   // constants: the value as double and as int64
  int64_t ivalue = 0;
  std::vector<ExprNode> args;
};

// Parses the text form; throws ExpressionError naming the position.
ExprNode ParseExpression(const std::string& text);
// The number of inputs the expression refers to (the largest &N plus one); 0 if none.
int NumInputs(const ExprNode& e);
// Prints the text form back (for tests and error messages).
std::string ToString(const ExprNode& e);

// An expression typed for given input types, ready to evaluate.
class Program {
 public:
  // Throws ExpressionError when an operation does not accept its operand types.
  Program(const ExprNode& e, const std::vector<DType>& input_types);
  ~Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;

  DType output_type() const;
  // out[k] = expr(inputs...)[k] for k in [0, n). inputs[i] has n elements, or one element when
  // scalar[i] (broadcast). Thread-safe (scratch is per call).
  // One tensor input of a one-byte type (uint8, int8) with only scalars besides is evaluated on its
  // 256 values once and mapped through that table (same results, a lookup per element).
  void Evaluate(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, void* out, int64_t n) const;

 private:
  void EvaluateElementwise(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, void* out,
                           int64_t n) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::kernels::arith
