// Registration of this family's operators; each operator file adds its schema here.
#include "operators/registry.h"

namespace sluice {

void RegisterImageOperators(OperatorRegistry& r) {
  (void)r;
}

}  // namespace sluice
