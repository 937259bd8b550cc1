#include "kernels/arithmetic/type_promotion.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace sluice::kernels::arith {
namespace {

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

}  // namespace

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

OperandType PromoteOperands(OperandType a, OperandType b) {
  if (!a.weak() && !b.weak()) return {Promote(a.type, b.type), Weakness::kTyped};
  if (a.weak() && b.weak())
    return a.weakness == Weakness::kWeakFloat || b.weakness == Weakness::kWeakFloat
               ? OperandType{DType::kFloat32, Weakness::kWeakFloat}
               : OperandType{DType::kInt32, Weakness::kWeakInt};
  if (a.weak()) std::swap(a, b);  // a: the typed one, b: the literal
  if (b.weakness == Weakness::kWeakInt) return {a.type == DType::kBool ? DType::kInt32 : a.type, Weakness::kTyped};
  return {IsFloating(a.type) ? a.type : DType::kFloat32, Weakness::kTyped};
}

DType ConcreteType(OperandType t) {
  switch (t.weakness) {
    case Weakness::kWeakInt: return DType::kInt32;
    case Weakness::kWeakFloat: return DType::kFloat32;
    default: return t.type;
  }
}

}  // namespace sluice::kernels::arith
