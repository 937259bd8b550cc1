// The text form of expressions (expression.h): parsing and printing.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "kernels/arithmetic/expression.h"
#include "kernels/arithmetic/expression_program.h"

namespace sluice::kernels::arith {
namespace {

struct OpInfo {
  const char* name;
  Op op;
  int arity;
};

constexpr OpInfo kOps[] = {
    {"add", Op::kAdd, 2},     {"sub", Op::kSub, 2},       {"mul", Op::kMul, 2},       {"div", Op::kDiv, 2},
    {"floordiv", Op::kFloorDiv, 2}, {"mod", Op::kMod, 2}, {"pow", Op::kPow, 2},       {"fpow", Op::kFPow, 2},
    {"neg", Op::kNeg, 1},     {"eq", Op::kEq, 2},         {"ne", Op::kNe, 2},         {"lt", Op::kLt, 2},
    {"le", Op::kLe, 2},       {"gt", Op::kGt, 2},         {"ge", Op::kGe, 2},         {"bitand", Op::kBitAnd, 2},
    {"bitor", Op::kBitOr, 2}, {"bitxor", Op::kBitXor, 2}, {"abs", Op::kAbs, 1},       {"fabs", Op::kFabs, 1},
    {"floor", Op::kFloor, 1}, {"ceil", Op::kCeil, 1},     {"sqrt", Op::kSqrt, 1},     {"rsqrt", Op::kRsqrt, 1},
    {"cbrt", Op::kCbrt, 1},   {"exp", Op::kExp, 1},       {"log", Op::kLog, 1},       {"log2", Op::kLog2, 1},
    {"log10", Op::kLog10, 1}, {"sin", Op::kSin, 1},       {"cos", Op::kCos, 1},       {"tan", Op::kTan, 1},
    {"asin", Op::kAsin, 1},   {"acos", Op::kAcos, 1},     {"atan", Op::kAtan, 1},     {"sinh", Op::kSinh, 1},
    {"cosh", Op::kCosh, 1},   {"tanh", Op::kTanh, 1},     {"asinh", Op::kAsinh, 1},   {"acosh", Op::kAcosh, 1},
    {"atanh", Op::kAtanh, 1}, {"atan2", Op::kAtan2, 2},   {"min", Op::kMin, 2},       {"max", Op::kMax, 2},
    {"clamp", Op::kClamp, 3},
};

const OpInfo* FindOp(const std::string& name) {
  for (const auto& o : kOps)
    if (name == o.name) return &o;
  return nullptr;
}

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  ExprNode ParseAll() {
    if (s_.empty()) Fail("the expression is empty");
    ExprNode e = Parse(0);
    if (pos_ != s_.size()) Fail("unexpected '" + std::string(1, s_[pos_]) + "' after the end of the expression");
    return e;
  }

 private:
  [[noreturn]] void Fail(const std::string& msg) const {
    throw ExpressionError(msg + " (at character " + std::to_string(pos_) + " of \"" + s_ + "\")");
  }
  ExprNode Parse(int depth) {
    if (depth > 256) Fail("the expression is nested too deeply");
    if (pos_ >= s_.size()) Fail("unexpected end of the expression");
    ExprNode e;
    const char c = s_[pos_];
    if (c == '&') {
      ++pos_;
      const size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (start == pos_ || pos_ - start > 4) Fail("'&' must be followed by an input index");
      e.op = Op::kInput;
      e.input = std::atoi(s_.substr(start, pos_ - start).c_str());
      return e;
    }
    if (c == '$') {
      ++pos_;
      const size_t colon = s_.find(':', pos_);
      if (colon == std::string::npos) Fail("a constant needs a kind: $VALUE:int, $VALUE:float or $VALUE:<type>");
      const std::string value = s_.substr(pos_, colon - pos_);
      size_t end = colon + 1;
      while (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) ++end;
      const std::string kind = s_.substr(colon + 1, end - colon - 1);
      e.op = Op::kConst;
      bool integral;
      if (kind == "int") {
        e.const_kind = ConstKind::kWeakInt;
        integral = true;
      } else if (kind == "float") {
        e.const_kind = ConstKind::kWeakFloat;
        integral = false;
      } else {
        auto t = ParseDType(kind);
        if (!t) Fail("unknown constant type '" + kind + "'");
        e.const_kind = ConstKind::kTyped;
        e.const_type = *t;
        integral = !IsFloating(*t);
      }
      if (value.empty()) Fail("a constant has no value");
      char* stop = nullptr;
      errno = 0;
      if (integral) {
        e.ivalue = std::strtoll(value.c_str(), &stop, 10);
        e.fvalue = static_cast<double>(e.ivalue);
      } else {
        e.fvalue = std::strtod(value.c_str(), &stop);
        e.ivalue = static_cast<int64_t>(std::isfinite(e.fvalue) ? e.fvalue : 0);
      }
      if (errno == ERANGE || stop == nullptr || *stop != '\0') Fail("bad constant value '" + value + "'");
      pos_ = end;
      return e;
    }
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    const std::string name = s_.substr(start, pos_ - start);
    if (name.empty()) {
      Fail("expected an operation, '&' (input) or '$' (constant), got '" + std::string(1, c) + "'");
    }
    const OpInfo* info = FindOp(name);
    if (!info) {
      pos_ = start;
      Fail("unknown operation '" + name + "'");
    }
    if (pos_ >= s_.size() || s_[pos_] != '(') Fail("expected '(' after '" + name + "'");
    ++pos_;
    e.op = info->op;
    for (;;) {
      e.args.push_back(Parse(depth + 1));
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ')') {
        ++pos_;
        break;
      }
      Fail("expected ',' or ')'");
    }
    if (static_cast<int>(e.args.size()) != info->arity)
      Fail(name + " takes " + std::to_string(info->arity) + " operand(s), got " + std::to_string(e.args.size()));
    return e;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

const char* OpName(Op op) {
  for (const auto& o : kOps)
    if (o.op == op) return o.name;
  return "?";
}

ExprNode ParseExpression(const std::string& text) { return Parser(text).ParseAll(); }

int NumInputs(const ExprNode& e) {
  int n = e.op == Op::kInput ? e.input + 1 : 0;
  for (const auto& a : e.args) n = std::max(n, NumInputs(a));
  return n;
}

std::string ToString(const ExprNode& e) {
  if (e.op == Op::kInput) return "&" + std::to_string(e.input);
  if (e.op == Op::kConst) {
    switch (e.const_kind) {
      case ConstKind::kWeakInt: return "$" + std::to_string(e.ivalue) + ":int";
      case ConstKind::kWeakFloat: return "$" + std::to_string(e.fvalue) + ":float";
      default:
        return "$" + (IsFloating(e.const_type) ? std::to_string(e.fvalue) : std::to_string(e.ivalue)) + ":" +
               std::string(sluice::ToString(e.const_type));
    }
  }
  std::string s = std::string(OpName(e.op)) + "(";
  for (size_t i = 0; i < e.args.size(); ++i) s += (i ? "," : "") + ToString(e.args[i]);
  return s + ")";
}

}  // namespace sluice::kernels::arith
