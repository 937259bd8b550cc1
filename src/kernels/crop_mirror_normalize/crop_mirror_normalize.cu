// crop_mirror_normalize on the GPU: crop_mirror_normalize_body.h's launcher on the device.
#include "kernels/crop_mirror_normalize/crop_mirror_normalize_body.h"
#include "kernels/grid/device_grid.cuh"

namespace sluice::kernels::cuda {

void LaunchCropMirrorNormalize(const CmnSampleDesc* descs, int n, int64_t max_px, DType in_type, DType out_type,
                               bool chw, void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunCropMirrorNormalize(exec, descs, n, max_px, in_type, out_type, chw);
  grid::CheckLaunch("crop_mirror_normalize");
}

}  // namespace sluice::kernels::cuda
