// The chunk evaluator: every node of a compiled expression over chunks of kChunk elements, each
// operation one loop over its operands' chunks (no intermediate tensor per operation).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/arithmetic/expression.h"
#include "kernels/arithmetic/expression_program.h"

namespace sluice::kernels::arith {
namespace {

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
    case DType::kUInt32: WrapAs<uint32_t>(src, dst, n); break;
    case DType::kBool: for (int k = 0; k < n; ++k) dst[k] = src[k] != 0; break;
    default: if (dst != src) std::copy(src, src + n, dst);
  }
}

// DALI's `//` and `%` of integers are C++'s: the quotient truncated toward zero, the remainder with
// the dividend's sign (-7 // 2 == -3, -7 % 3 == -1; checked against DALI 2.4), not Python's floor.
// A division by zero gives 0, and by -1 wraps instead of trapping.
inline int64_t ITruncDiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  return a / b;
}
inline int64_t IRem(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  return a % b;
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

void Program::Impl::EvalChunk(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, int64_t off,
                              int len, std::vector<int64_t>& ib, std::vector<double>& fb, bool first) const {
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
        // DALI's `//` of floating-point operands is the true quotient, `%` C's fmod (checked against DALI 2.4).
        case Op::kFloorDiv: SLUICE_F(x[k] / y[k]); break;
        case Op::kMod: SLUICE_F(std::fmod(x[k], y[k])); break;
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
        case Op::kFloorDiv: SLUICE_I(ITruncDiv(u[k], v[k])); break;
        case Op::kMod: SLUICE_I(IRem(u[k], v[k])); break;
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
