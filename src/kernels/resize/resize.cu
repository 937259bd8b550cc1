// resize on the GPU: resize_body.h's two-pass launcher on the device.
#include "kernels/grid/device_grid.cuh"
#include "kernels/resize/resize_body.h"

namespace sluice::kernels::cuda {

void LaunchResize(const ResizeSampleDesc* descs, int n, int64_t max_mid, int64_t max_out, DType in_type,
                  DType out_type, void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunResize(exec, descs, n, max_mid, max_out, in_type, out_type);
  grid::CheckLaunch("resize");
}

}  // namespace sluice::kernels::cuda
