// DALI's type promotion for arithmetic expressions (the table in expression.h's header comment),
// with Python's "weak" literals: an int or float constant written without a type takes the type of
// the tensor operand it meets when that type can hold it.
#pragma once
#include <cstdint>

#include <sluice/dtype.h>

namespace sluice::kernels::arith {

// DALI's binary promotion of two typed operands (bool below all).
DType Promote(DType a, DType b);

// How an operand's type takes part in promotion.
enum class Weakness : uint8_t {
  kTyped,      // a tensor, a typed constant or an operation's result: its type counts as it is
  kWeakInt,    // an int literal: takes the other operand's type (bool: int32)
  kWeakFloat,  // a float literal: takes the other operand's type if floating, else float32
};

struct OperandType {
  DType type;
  Weakness weakness = Weakness::kTyped;
  bool weak() const { return weakness != Weakness::kTyped; }
};

// The type two operands promote to: Promote for two typed ones; a typed one with a literal gives
// the typed one's type as the literal's Weakness says; two literals give a literal (int32, or
// float32 if either is a float literal), so that an operation's operands fold left to right.
OperandType PromoteOperands(OperandType a, OperandType b);

// The type an operation computes in once its operands are promoted: a literal (all operands were
// literals) is int32 or float32; a typed operand's type as it is.
DType ConcreteType(OperandType t);

}  // namespace sluice::kernels::arith
