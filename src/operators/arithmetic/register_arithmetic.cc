// Registration of this family's operators; each operator file adds its schema here.
#include "operators/registry.h"

namespace sluice {

void RegisterScalarArithmetic(OperatorRegistry& r);  // scalar_arithmetic.cc

void RegisterArithmeticOperators(OperatorRegistry& r) {
  RegisterScalarArithmetic(r);
}

}  // namespace sluice
