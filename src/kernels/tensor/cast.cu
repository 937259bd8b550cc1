// cast on the GPU: cast_body.h's launcher on the device.
#include "kernels/grid/device_grid.cuh"
#include "kernels/tensor/cast_body.h"

namespace sluice::kernels::cuda {

void LaunchCast(const CastDesc* descs, int n, int64_t max_el, DType in_type, DType out_type, void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunCast(exec, descs, n, max_el, in_type, out_type);
  grid::CheckLaunch("cast");
}

}  // namespace sluice::kernels::cuda
