// The list of operator families. Each family's file defines its Register* function. Keeping the
// list explicit means a static link of libsluice keeps every operator (no static initializers).
#include "operators/registry.h"

namespace sluice {

// Engine operators (src/operators/engine/).
void RegisterEngineOperators(OperatorRegistry& r);
void RegisterRandomOperators(OperatorRegistry& r);
void RegisterExternalSource(OperatorRegistry& r);
// Readers (src/readers/).
void RegisterReaderOperators(OperatorRegistry& r);
// Image operators (src/operators/image/).
void RegisterImageOperators(OperatorRegistry& r);
// Arithmetic on data nodes (src/operators/arithmetic/).
void RegisterArithmeticOperators(OperatorRegistry& r);
// GPU and mixed backends of the operators above (src/operators/gpu/; a no-op without CUDA).
void RegisterGpuBackends(OperatorRegistry& r);

void RegisterAllOperators(OperatorRegistry& r) {
  RegisterEngineOperators(r);
  RegisterRandomOperators(r);
  RegisterExternalSource(r);
  RegisterReaderOperators(r);
  RegisterImageOperators(r);
  RegisterArithmeticOperators(r);
  RegisterGpuBackends(r);
}

}  // namespace sluice
