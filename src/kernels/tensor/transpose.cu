// transpose on the GPU: transpose_body.h's launcher on the device.
#include "kernels/grid/device_grid.cuh"
#include "kernels/tensor/transpose_body.h"

namespace sluice::kernels::cuda {

void LaunchTranspose(const TransposeDesc* descs, int n, int64_t max_el, size_t elem_size, void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunTranspose(exec, descs, n, max_el, elem_size);
  grid::CheckLaunch("transpose");
}

}  // namespace sluice::kernels::cuda
