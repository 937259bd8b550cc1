#include "kernels/arithmetic/expression.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

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
const char* OpName(Op op) {
  for (const auto& o : kOps)
    if (o.op == op) return o.name;
  return "?";
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

bool IsSigned(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}
DType SignedOfSize(size_t bytes) {
  switch (bytes) {
    case 1: return DType::kInt8;
    case 2: return DType::kInt16;
    case 4: return DType::kInt32;
    default: return DType::kInt64;
  }
}

struct TypeInfo {
  DType t;
  int weak;  // 0: typed, 1: weak int, 2: weak float
};

TypeInfo PromoteW(TypeInfo a, TypeInfo b) {
  if (!a.weak && !b.weak) return {Promote(a.t, b.t), 0};
  if (a.weak && b.weak) return (a.weak == 2 || b.weak == 2) ? TypeInfo{DType::kFloat32, 2} : TypeInfo{DType::kInt32, 1};
  if (a.weak) std::swap(a, b);
  if (b.weak == 1) return {a.t == DType::kBool ? DType::kInt32 : a.t, 0};
  return {IsFloating(a.t) ? a.t : DType::kFloat32, 0};
}

// Values of one chunk: integers and bool as int64, floats as double.
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

inline int64_t Wrap(DType t, int64_t v) {
  switch (t) {
    case DType::kUInt8: return static_cast<uint8_t>(v);
    case DType::kInt8: return static_cast<int8_t>(v);
    case DType::kUInt16: return static_cast<uint16_t>(v);
    case DType::kInt16: return static_cast<int16_t>(v);
    case DType::kInt32: return static_cast<int32_t>(v);
    case DType::kBool: return v != 0;
    default: return v;
  }
}
inline double Round(DType t, double v) {
  switch (t) {
    case DType::kFloat32: return static_cast<double>(static_cast<float>(v));
    case DType::kFloat16: return static_cast<double>(static_cast<float>(float16(static_cast<float>(v))));
    default: return v;
  }
}

// Whole-chunk rounding and wrapping: the type switch outside the loop, so the loops vectorize.
inline void RoundArray(DType t, const double* src, double* dst, int n) {
  switch (t) {
    case DType::kFloat32:
      for (int k = 0; k < n; ++k) dst[k] = static_cast<double>(static_cast<float>(src[k]));
      break;
    case DType::kFloat16:
      for (int k = 0; k < n; ++k) dst[k] = Round(DType::kFloat16, src[k]);
      break;
    default:
      if (dst != src) std::copy(src, src + n, dst);
  }
}
template <typename T>
inline void WrapAs(const int64_t* src, int64_t* dst, int n) {
  for (int k = 0; k < n; ++k) dst[k] = static_cast<T>(src[k]);
}
inline void WrapArray(DType t, const int64_t* src, int64_t* dst, int n) {
  switch (t) {
    case DType::kUInt8: WrapAs<uint8_t>(src, dst, n); break;
    case DType::kInt8: WrapAs<int8_t>(src, dst, n); break;
    case DType::kUInt16: WrapAs<uint16_t>(src, dst, n); break;
    case DType::kInt16: WrapAs<int16_t>(src, dst, n); break;
    case DType::kInt32: WrapAs<int32_t>(src, dst, n); break;
    case DType::kBool: for (int k = 0; k < n; ++k) dst[k] = src[k] != 0; break;
    default: if (dst != src) std::copy(src, src + n, dst);
  }
}

inline int64_t IFloorDiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t IMod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int64_t IPow(int64_t base, int64_t e) {
  if (e < 0) return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
  uint64_t r = 1, b = static_cast<uint64_t>(base);
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(r);
}
inline double FMod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

template <typename T>
inline void Load(const void* p, int64_t off, int n, bool scalar, bool as_float, int64_t* iv, double* fv) {
  const T* src = static_cast<const T*>(p) + (scalar ? 0 : off);
  const int64_t step = scalar ? 0 : 1;  // a broadcast scalar reads element 0 throughout
  if constexpr (std::is_same_v<T, float16>) {
    for (int k = 0; k < n; ++k) fv[k] = static_cast<double>(static_cast<float>(src[k * step]));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (scalar) std::fill(fv, fv + n, static_cast<double>(src[0]));
    else for (int k = 0; k < n; ++k) fv[k] = static_cast<double>(src[k]);
  } else if (as_float) {
    for (int k = 0; k < n; ++k) fv[k] = static_cast<double>(src[k * step]);
  } else if (scalar) {
    std::fill(iv, iv + n, static_cast<int64_t>(src[0]));
  } else {
    for (int k = 0; k < n; ++k) iv[k] = static_cast<int64_t>(src[k]);
  }
}

}  // namespace

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

DType Promote(DType a, DType b) {
  if (a == b) return a;
  const bool fa = IsFloating(a), fb = IsFloating(b);
  if (fa && fb) return SizeOf(a) >= SizeOf(b) ? a : b;
  if (fa) return a;
  if (fb) return b;
  if (a == DType::kBool) return b;
  if (b == DType::kBool) return a;
  if (IsSigned(a) == IsSigned(b)) return SizeOf(a) >= SizeOf(b) ? a : b;
  const DType s = IsSigned(a) ? a : b, u = IsSigned(a) ? b : a;
  if (SizeOf(s) <= SizeOf(u)) return SignedOfSize(std::min<size_t>(2 * SizeOf(u), 8));
  return s;
}

struct Program::Impl {
  std::vector<CNode> nodes;  // post-order: children before parents; the root is last
  std::vector<DType> input_types;

  TypeInfo Build(const ExprNode& e) {
    CNode n;
    n.op = e.op;
    TypeInfo info{DType::kInt32, 0};
    if (e.op == Op::kInput) {
      if (e.input >= static_cast<int>(input_types.size()))
        throw ExpressionError("the expression refers to input " + std::to_string(e.input) + ", and there are " +
                              std::to_string(input_types.size()) + " inputs");
      n.input = e.input;
      info = {input_types[static_cast<size_t>(e.input)], 0};
      n.type = n.ctype = info.t;
    } else if (e.op == Op::kConst) {
      n.ivalue = e.ivalue;
      n.fvalue = e.fvalue;
      if (e.const_kind == ConstKind::kWeakInt) info = {DType::kInt64, 1};
      else if (e.const_kind == ConstKind::kWeakFloat) info = {DType::kFloat64, 2};
      else {
        info = {e.const_type, 0};
        if (IsFloating(e.const_type)) n.fvalue = Round(e.const_type, e.fvalue);
        else n.ivalue = Wrap(e.const_type, e.ivalue);
      }
      n.type = n.ctype = info.t;
    } else {
      std::vector<TypeInfo> args;
      for (const auto& a : e.args) {
        args.push_back(Build(a));
        n.args.push_back(static_cast<int>(nodes.size()) - 1);
      }
      TypeInfo p = args[0];
      for (size_t i = 1; i < args.size(); ++i) p = PromoteW(p, args[i]);
      if (p.weak) p = {p.weak == 2 ? DType::kFloat32 : DType::kInt32, 0};  // constants only
      const DType f = IsFloating(p.t) ? p.t : DType::kFloat32;
      auto types = [&] {
        std::string s;
        for (size_t i = 0; i < args.size(); ++i)
          s += (i ? " and " : "") + (args[i].weak ? std::string(args[i].weak == 1 ? "an integer constant" : "a float constant")
                                                  : std::string(sluice::ToString(args[i].t)));
        return s;
      };
      switch (e.op) {
        case Op::kDiv: case Op::kFPow: case Op::kAtan2:
        case Op::kFabs: case Op::kFloor: case Op::kCeil: case Op::kSqrt: case Op::kRsqrt: case Op::kCbrt:
        case Op::kExp: case Op::kLog: case Op::kLog2: case Op::kLog10: case Op::kSin: case Op::kCos: case Op::kTan:
        case Op::kAsin: case Op::kAcos: case Op::kAtan: case Op::kSinh: case Op::kCosh: case Op::kTanh:
        case Op::kAsinh: case Op::kAcosh: case Op::kAtanh:
          n.type = n.ctype = f;
          break;
        case Op::kEq: case Op::kNe: case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe:
          n.ctype = p.t;
          n.type = DType::kBool;
          break;
        case Op::kBitAnd: case Op::kBitOr: case Op::kBitXor:
          if (IsFloating(p.t))
            throw ExpressionError(std::string(OpName(e.op)) + " needs integer or bool operands, got " + types());
          n.type = n.ctype = p.t;
          break;
        case Op::kNeg:
          n.type = n.ctype = p.t == DType::kBool ? DType::kInt32 : p.t;
          break;
        default:
          n.type = n.ctype = p.t;
      }
      info = {n.type, 0};
    }
    nodes.push_back(std::move(n));
    return info;
  }

  // Constants fill their chunk once per call (first chunk); later chunks reuse it.
  void EvalChunk(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, int64_t off, int len,
                 std::vector<int64_t>& ib, std::vector<double>& fb, bool first) const {
    int64_t ta[3][kChunk];
    double fa[3][kChunk];
    for (size_t ni = 0; ni < nodes.size(); ++ni) {
      const CNode& n = nodes[ni];
      int64_t* io = ib.data() + ni * kChunk;
      double* fo = fb.data() + ni * kChunk;
      const bool rf = IsFloating(n.type);
      if (n.op == Op::kInput) {
        const auto i = static_cast<size_t>(n.input);
        VisitDType(input_types[i], [&](auto tag) {
          Load<decltype(tag)>(inputs[i], off, len, scalar[i], false, io, fo);
        });
        continue;
      }
      if (n.op == Op::kConst) {
        if (first) {
          if (rf) std::fill(fo, fo + kChunk, n.fvalue);
          else std::fill(io, io + kChunk, n.ivalue);
        }
        continue;
      }
      // Operands in the compute type: the operand's own chunk when it already is (no copy), else
      // converted into scratch.
      const bool cf = IsFloating(n.ctype);
      const double* fx[3] = {fa[0], fa[1], fa[2]};
      const int64_t* ix[3] = {ta[0], ta[1], ta[2]};
      for (size_t a = 0; a < n.args.size(); ++a) {
        const CNode& c = nodes[static_cast<size_t>(n.args[a])];
        const int64_t* ci = ib.data() + static_cast<size_t>(n.args[a]) * kChunk;
        const double* cfv = fb.data() + static_cast<size_t>(n.args[a]) * kChunk;
        if (cf) {
          if (IsFloating(c.type)) {
            if (c.type == n.ctype || n.ctype == DType::kFloat64) fx[a] = cfv;
            else RoundArray(n.ctype, cfv, fa[a], len);
          } else {
            for (int k = 0; k < len; ++k) fa[a][k] = static_cast<double>(ci[k]);
            RoundArray(n.ctype, fa[a], fa[a], len);
          }
        } else {
          if (c.type == n.ctype || (c.type != DType::kInt64 && n.ctype == DType::kInt64)) ix[a] = ci;
          else WrapArray(n.ctype, ci, ta[a], len);
        }
      }
      const double* __restrict x = fx[0];
      const double* __restrict y = fx[1];
      const double* __restrict z = fx[2];
      const int64_t* __restrict u = ix[0];
      const int64_t* __restrict v = ix[1];
      const int64_t* __restrict w = ix[2];
#define SLUICE_F(expr) for (int k = 0; k < len; ++k) fo[k] = (expr)
#define SLUICE_I(expr) for (int k = 0; k < len; ++k) io[k] = (expr)
#define SLUICE_U(a, b, o) static_cast<int64_t>(static_cast<uint64_t>(a) o static_cast<uint64_t>(b))
      if (cf) {
        switch (n.op) {
          case Op::kAdd: SLUICE_F(x[k] + y[k]); break;
          case Op::kSub: SLUICE_F(x[k] - y[k]); break;
          case Op::kMul: SLUICE_F(x[k] * y[k]); break;
          case Op::kDiv: SLUICE_F(x[k] / y[k]); break;
          case Op::kFloorDiv: SLUICE_F(std::floor(x[k] / y[k])); break;
          case Op::kMod: SLUICE_F(FMod(x[k], y[k])); break;
          case Op::kPow: case Op::kFPow: SLUICE_F(std::pow(x[k], y[k])); break;
          case Op::kNeg: SLUICE_F(-x[k]); break;
          case Op::kEq: SLUICE_I(x[k] == y[k]); break;
          case Op::kNe: SLUICE_I(x[k] != y[k]); break;
          case Op::kLt: SLUICE_I(x[k] < y[k]); break;
          case Op::kLe: SLUICE_I(x[k] <= y[k]); break;
          case Op::kGt: SLUICE_I(x[k] > y[k]); break;
          case Op::kGe: SLUICE_I(x[k] >= y[k]); break;
          case Op::kAbs: case Op::kFabs: SLUICE_F(std::fabs(x[k])); break;
          case Op::kFloor: SLUICE_F(std::floor(x[k])); break;
          case Op::kCeil: SLUICE_F(std::ceil(x[k])); break;
          case Op::kSqrt: SLUICE_F(std::sqrt(x[k])); break;
          case Op::kRsqrt: SLUICE_F(1.0 / std::sqrt(x[k])); break;
          case Op::kCbrt: SLUICE_F(std::cbrt(x[k])); break;
          case Op::kExp: SLUICE_F(std::exp(x[k])); break;
          case Op::kLog: SLUICE_F(std::log(x[k])); break;
          case Op::kLog2: SLUICE_F(std::log2(x[k])); break;
          case Op::kLog10: SLUICE_F(std::log10(x[k])); break;
          case Op::kSin: SLUICE_F(std::sin(x[k])); break;
          case Op::kCos: SLUICE_F(std::cos(x[k])); break;
          case Op::kTan: SLUICE_F(std::tan(x[k])); break;
          case Op::kAsin: SLUICE_F(std::asin(x[k])); break;
          case Op::kAcos: SLUICE_F(std::acos(x[k])); break;
          case Op::kAtan: SLUICE_F(std::atan(x[k])); break;
          case Op::kSinh: SLUICE_F(std::sinh(x[k])); break;
          case Op::kCosh: SLUICE_F(std::cosh(x[k])); break;
          case Op::kTanh: SLUICE_F(std::tanh(x[k])); break;
          case Op::kAsinh: SLUICE_F(std::asinh(x[k])); break;
          case Op::kAcosh: SLUICE_F(std::acosh(x[k])); break;
          case Op::kAtanh: SLUICE_F(std::atanh(x[k])); break;
          case Op::kAtan2: SLUICE_F(std::atan2(x[k], y[k])); break;
          case Op::kMin: SLUICE_F(std::fmin(x[k], y[k])); break;
          case Op::kMax: SLUICE_F(std::fmax(x[k], y[k])); break;
          case Op::kClamp: SLUICE_F(std::fmin(std::fmax(x[k], y[k]), z[k])); break;
          default: break;
        }
      } else {
        switch (n.op) {
          case Op::kAdd: SLUICE_I(SLUICE_U(u[k], v[k], +)); break;
          case Op::kSub: SLUICE_I(SLUICE_U(u[k], v[k], -)); break;
          case Op::kMul: SLUICE_I(SLUICE_U(u[k], v[k], *)); break;
          case Op::kFloorDiv: SLUICE_I(IFloorDiv(u[k], v[k])); break;
          case Op::kMod: SLUICE_I(IMod(u[k], v[k])); break;
          case Op::kPow: SLUICE_I(IPow(u[k], v[k])); break;
          case Op::kNeg: SLUICE_I(static_cast<int64_t>(0 - static_cast<uint64_t>(u[k]))); break;
          case Op::kEq: SLUICE_I(u[k] == v[k]); break;
          case Op::kNe: SLUICE_I(u[k] != v[k]); break;
          case Op::kLt: SLUICE_I(u[k] < v[k]); break;
          case Op::kLe: SLUICE_I(u[k] <= v[k]); break;
          case Op::kGt: SLUICE_I(u[k] > v[k]); break;
          case Op::kGe: SLUICE_I(u[k] >= v[k]); break;
          case Op::kBitAnd: SLUICE_I(u[k] & v[k]); break;
          case Op::kBitOr: SLUICE_I(u[k] | v[k]); break;
          case Op::kBitXor: SLUICE_I(u[k] ^ v[k]); break;
          case Op::kAbs: SLUICE_I(u[k] < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(u[k])) : u[k]); break;
          case Op::kMin: SLUICE_I(std::min(u[k], v[k])); break;
          case Op::kMax: SLUICE_I(std::max(u[k], v[k])); break;
          case Op::kClamp: SLUICE_I(std::min(std::max(u[k], v[k]), w[k])); break;
          default: break;
        }
      }
#undef SLUICE_F
#undef SLUICE_I
#undef SLUICE_U
      if (rf) RoundArray(n.type, fo, fo, len);
      else WrapArray(n.type, io, io, len);
    }
  }
};

Program::Program(const ExprNode& e, const std::vector<DType>& input_types) : impl_(std::make_unique<Impl>()) {
  impl_->input_types = input_types;
  impl_->Build(e);
}
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;

DType Program::output_type() const { return impl_->nodes.back().type; }

namespace {

// The one elementwise input when every other input is a broadcast scalar and that input's type has
// 256 values (uint8, int8); -1 otherwise.
int ByteDomainInput(const std::vector<DType>& types, const std::vector<bool>& scalar) {
  int t = -1;
  for (size_t i = 0; i < types.size() && i < scalar.size(); ++i) {
    if (scalar[i]) continue;
    if (t >= 0) return -1;
    t = static_cast<int>(i);
  }
  if (t < 0) return -1;
  const DType d = types[static_cast<size_t>(t)];
  return d == DType::kUInt8 || d == DType::kInt8 ? t : -1;
}

template <typename Bits>
void MapThroughTable(const uint8_t* src, const unsigned char* table, void* out, int64_t n) {
  Bits lut[256];
  std::memcpy(lut, table, sizeof(lut));
  Bits* dst = static_cast<Bits*>(out);
  for (int64_t k = 0; k < n; ++k) dst[k] = lut[src[k]];
}

}  // namespace

void Program::Evaluate(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, void* out,
                       int64_t n) const {
  // A function of one byte-typed tensor and scalars takes at most 256 values: evaluate it on all
  // of them, then look each element up. Exact (the same evaluation, on a table), and it turns
  // per-sample-parameter expressions on uint8 images (solarize, posterize, blends) into one table
  // lookup per element. Every operation is total (division by zero gives 0), so evaluating values
  // the data does not contain cannot fail.
  constexpr int64_t kTableWorthIt = 1024;
  const int t = n >= kTableWorthIt ? ByteDomainInput(impl_->input_types, scalar) : -1;
  if (t >= 0) {
    uint8_t domain[256];
    for (int v = 0; v < 256; ++v) domain[v] = static_cast<uint8_t>(v);
    std::vector<const void*> at_domain = inputs;
    at_domain[static_cast<size_t>(t)] = domain;
    alignas(8) unsigned char table[256 * 8];
    EvaluateElementwise(at_domain, scalar, table, 256);
    const auto* src = static_cast<const uint8_t*>(inputs[static_cast<size_t>(t)]);
    switch (SizeOf(output_type())) {
      case 1: MapThroughTable<uint8_t>(src, table, out, n); return;
      case 2: MapThroughTable<uint16_t>(src, table, out, n); return;
      case 4: MapThroughTable<uint32_t>(src, table, out, n); return;
      case 8: MapThroughTable<uint64_t>(src, table, out, n); return;
      default: break;
    }
  }
  EvaluateElementwise(inputs, scalar, out, n);
}

void Program::EvaluateElementwise(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, void* out,
                                  int64_t n) const {
  const size_t nn = impl_->nodes.size();
  std::vector<int64_t> ib(nn * kChunk);
  std::vector<double> fb(nn * kChunk);
  const DType ot = output_type();
  const int64_t* ri = ib.data() + (nn - 1) * kChunk;
  const double* rf = fb.data() + (nn - 1) * kChunk;
  for (int64_t off = 0; off < n; off += kChunk) {
    const int len = static_cast<int>(std::min<int64_t>(kChunk, n - off));
    impl_->EvalChunk(inputs, scalar, off, len, ib, fb, off == 0);
    VisitDType(ot, [&](auto tag) {
      using T = decltype(tag);
      T* dst = static_cast<T*>(out) + off;
      if constexpr (std::is_same_v<T, float16>) {
        for (int k = 0; k < len; ++k) dst[k] = float16(static_cast<float>(rf[k]));
      } else if constexpr (std::is_floating_point_v<T>) {
        for (int k = 0; k < len; ++k) dst[k] = static_cast<T>(rf[k]);
      } else if constexpr (std::is_same_v<T, bool>) {
        for (int k = 0; k < len; ++k) dst[k] = ri[k] != 0;
      } else {
        for (int k = 0; k < len; ++k) dst[k] = static_cast<T>(ri[k]);
      }
    });
  }
}

}  // namespace sluice::kernels::arith
