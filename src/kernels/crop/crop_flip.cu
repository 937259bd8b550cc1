// crop and flip on the GPU: crop_flip_body.h's launcher on the device.
#include "kernels/crop/crop_flip_body.h"
#include "kernels/grid/device_grid.cuh"

namespace sluice::kernels::cuda {

void LaunchCropFlip(const CropFlipDesc* descs, int n, int64_t max_el, size_t elem_size, void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunCropFlip(exec, descs, n, max_el, elem_size);
  grid::CheckLaunch("crop/flip");
}

}  // namespace sluice::kernels::cuda
