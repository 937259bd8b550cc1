// Attaches the CUDA backend's "mixed" and "gpu" implementations to the operators' schemas.
// Without SLUICE_WITH_CUDA nothing is attached, so asking for device="gpu" is a clear error.
//
// Registering touches no CUDA API (no device query, no context): a CUDA build on a machine
// without a GPU registers the backends and fails only when a pipeline with GPU operators is built.
#include "operators/registry.h"

namespace sluice {

#ifdef SLUICE_WITH_CUDA
namespace gpu {
void RegisterMixedOperators(OperatorRegistry& r);           // mixed_ops.cc: decoders, copy
void RegisterCropMirrorNormalizeGpu(OperatorRegistry& r);   // crop_mirror_normalize_gpu.cc
void RegisterGeometryGpu(OperatorRegistry& r);              // geometry_gpu.cc: crop, flip, transpose, cast
void RegisterResizeGpu(OperatorRegistry& r);                // resize_gpu.cc
}  // namespace gpu

void RegisterGpuBackends(OperatorRegistry& r) {
  gpu::RegisterMixedOperators(r);
  gpu::RegisterCropMirrorNormalizeGpu(r);
  gpu::RegisterGeometryGpu(r);
  gpu::RegisterResizeGpu(r);
}
#else
void RegisterGpuBackends(OperatorRegistry& r) { (void)r; }
#endif

}  // namespace sluice
