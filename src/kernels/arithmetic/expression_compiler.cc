// Typing an expression tree for given input types (DALI's promotion, type_promotion.h) into the
// post-order node list that the evaluator runs.
#include <string>
#include <utility>

#include "kernels/arithmetic/expression.h"
#include "kernels/arithmetic/expression_program.h"

namespace sluice::kernels::arith {
namespace {

// "uint8 and an integer constant", for type errors.
std::string DescribeOperands(const std::vector<OperandType>& operands) {
  std::string s;
  for (size_t i = 0; i < operands.size(); ++i) {
    const OperandType& t = operands[i];
    s += i ? " and " : "";
    switch (t.weakness) {
      case Weakness::kWeakInt: s += "an integer constant"; break;
      case Weakness::kWeakFloat: s += "a float constant"; break;
      default: s += sluice::ToString(t.type);
    }
  }
  return s;
}

}  // namespace

OperandType Program::Impl::Build(const ExprNode& e) {
  CNode n;
  n.op = e.op;
  OperandType result{DType::kInt32, Weakness::kTyped};
  if (e.op == Op::kInput) {
    if (e.input >= static_cast<int>(input_types.size()))
      throw ExpressionError("the expression refers to input " + std::to_string(e.input) + ", and there are " +
                            std::to_string(input_types.size()) + " inputs");
    n.input = e.input;
    result = {input_types[static_cast<size_t>(e.input)], Weakness::kTyped};
    // Integers are computed in int64: every uint64 above 2^63 would compare and divide wrongly.
    if (result.type == DType::kUInt64)
      throw ExpressionError("input " + std::to_string(e.input) +
                            " is uint64, which arithmetic expressions do not take (values from 2^63 on would be "
                            "wrong): cast it to int64 or float64 first");
    n.type = n.ctype = result.type;
  } else if (e.op == Op::kConst) {
    n.ivalue = e.ivalue;
    n.fvalue = e.fvalue;
    if (e.const_kind == ConstKind::kWeakInt) {
      result = {DType::kInt64, Weakness::kWeakInt};
    } else if (e.const_kind == ConstKind::kWeakFloat) {
      result = {DType::kFloat64, Weakness::kWeakFloat};
    } else {
      result = {e.const_type, Weakness::kTyped};
      if (e.const_type == DType::kUInt64)
        throw ExpressionError("a uint64 constant is not supported in arithmetic expressions: use int64");
      if (IsFloating(e.const_type)) n.fvalue = Round(e.const_type, e.fvalue);
      else n.ivalue = Wrap(e.const_type, e.ivalue);
    }
    n.type = n.ctype = result.type;
  } else {
    std::vector<OperandType> operands;
    for (const auto& a : e.args) {
      operands.push_back(Build(a));
      n.args.push_back(static_cast<int>(nodes.size()) - 1);
    }
    OperandType promoted = operands[0];
    for (size_t i = 1; i < operands.size(); ++i) promoted = PromoteOperands(promoted, operands[i]);
    const DType p = ConcreteType(promoted);
    const DType f = IsFloating(p) ? p : DType::kFloat32;
    switch (e.op) {
      case Op::kDiv: case Op::kFPow: case Op::kAtan2:
      case Op::kFabs: case Op::kFloor: case Op::kCeil: case Op::kSqrt: case Op::kRsqrt: case Op::kCbrt:
      case Op::kExp: case Op::kLog: case Op::kLog2: case Op::kLog10: case Op::kSin: case Op::kCos: case Op::kTan:
      case Op::kAsin: case Op::kAcos: case Op::kAtan: case Op::kSinh: case Op::kCosh: case Op::kTanh:
      case Op::kAsinh: case Op::kAcosh: case Op::kAtanh:
        n.type = n.ctype = f;
        break;
      case Op::kEq: case Op::kNe: case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe:
        n.ctype = p;
        n.type = DType::kBool;
        break;
      case Op::kBitAnd: case Op::kBitOr: case Op::kBitXor:
        if (IsFloating(p))
          throw ExpressionError(std::string(OpName(e.op)) + " needs integer or bool operands, got " +
                                DescribeOperands(operands));
        n.type = n.ctype = p;
        break;
      case Op::kNeg:
        n.type = n.ctype = p == DType::kBool ? DType::kInt32 : p;
        break;
      default:
        n.type = n.ctype = p;
    }
    result = {n.type, Weakness::kTyped};
  }
  nodes.push_back(std::move(n));
  return result;
}

Program::Program(const ExprNode& e, const std::vector<DType>& input_types) : impl_(std::make_unique<Impl>()) {
  impl_->input_types = input_types;
  impl_->Build(e);
}
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;

DType Program::output_type() const { return impl_->nodes.back().type; }

}  // namespace sluice::kernels::arith
