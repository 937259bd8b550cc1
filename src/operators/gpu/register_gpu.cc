// Attaches the CUDA backend's "mixed" and "gpu" implementations to the operators' schemas.
// Without SLUICE_WITH_CUDA nothing is attached, so asking for device="gpu" is a clear error.
#include "operators/registry.h"

namespace sluice {

void RegisterGpuBackends(OperatorRegistry& r) { (void)r; }

}  // namespace sluice
