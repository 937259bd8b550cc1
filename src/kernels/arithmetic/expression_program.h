// Internal: the compiled form of an expression (Program::Impl), shared by the compiler
// (expression_compiler.cc), the chunk evaluator (expression_eval.cc) and the lookup-table shortcut
// (expression_lut.cc).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/arithmetic/expression.h"
#include "kernels/arithmetic/type_promotion.h"

namespace sluice::kernels::arith {

// An operation's name in the text form ("add", "clamp"...; expression_parser.cc).
const char* OpName(Op op);

// Elements per chunk: every node's values for one chunk live in scratch, integers and bool as
// int64, floats as double.
constexpr int kChunk = 256;

struct CNode {
  Op op;
  DType type;   // result type
  DType ctype;  // the type the operands are converted to
  int input = -1;
  int64_t ivalue = 0;
  double fvalue = 0;
  std::vector<int> args;
};

// A value as the type `t` holds it: integers wrapped to their width, bool to 0/1.
inline int64_t Wrap(DType t, int64_t v) {
  switch (t) {
    case DType::kUInt8: return static_cast<uint8_t>(v);
    case DType::kInt8: return static_cast<int8_t>(v);
    case DType::kUInt16: return static_cast<uint16_t>(v);
    case DType::kInt16: return static_cast<int16_t>(v);
    case DType::kInt32: return static_cast<int32_t>(v);
    case DType::kUInt32: return static_cast<uint32_t>(v);
    case DType::kBool: return v != 0;
    default: return v;
  }
}
// A value as the floating type `t` holds it (rounded to float32 or float16).
inline double Round(DType t, double v) {
  switch (t) {
    case DType::kFloat32: return static_cast<double>(static_cast<float>(v));
    case DType::kFloat16: return static_cast<double>(static_cast<float>(float16(static_cast<float>(v))));
    default: return v;
  }
}

struct Program::Impl {
  std::vector<CNode> nodes;  // post-order: children before parents; the root is last
  std::vector<DType> input_types;

  // Appends e's nodes (typed) to `nodes`; returns the type of e's value.
  OperandType Build(const ExprNode& e);
  // Evaluates every node on elements [off, off + len) of the inputs into ib/fb (kChunk values per
  // node). Constants fill their chunk once per call (first chunk); later chunks reuse it.
  void EvalChunk(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, int64_t off, int len,
                 std::vector<int64_t>& ib, std::vector<double>& fb, bool first) const;
};

}  // namespace sluice::kernels::arith
