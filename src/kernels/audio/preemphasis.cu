// preemphasis_filter on the GPU: preemphasis_body.h's launcher on the device.
#include "kernels/audio/preemphasis_body.h"
#include "kernels/grid/device_grid.cuh"

namespace sluice::kernels::cuda {

void LaunchPreemphasis(const PreemphasisDesc* descs, int n, int64_t max_el, DType in_type, DType out_type,
                       void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunPreemphasis(exec, descs, n, max_el, in_type, out_type);
  grid::CheckLaunch("preemphasis_filter");
}

}  // namespace sluice::kernels::cuda
