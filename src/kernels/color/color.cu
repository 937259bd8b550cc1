// The colour family on the GPU, one nvcc translation unit: color_adjust_body.h's,
// color_space_body.h's and lookup_table_body.h's launchers on the device (one instantiation per body).
#include "kernels/color/color_adjust_body.h"
#include "kernels/color/color_space_body.h"
#include "kernels/color/lookup_table_body.h"
#include "kernels/grid/device_grid.cuh"

namespace sluice::kernels::cuda {

void LaunchColorAffine(const ColorAffineDesc* descs, int n, int64_t max_el, DType in_type, DType out_type,
                       void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunColorAffine(exec, descs, n, max_el, in_type, out_type);
  grid::CheckLaunch("brightness_contrast");
}

void LaunchColorMatrix3(const ColorMatrixDesc* descs, int n, int64_t max_px, DType in_type, DType out_type,
                        void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunColorMatrix3(exec, descs, n, max_px, in_type, out_type);
  grid::CheckLaunch("color_twist");
}

void LaunchLookupTable(const LookupTableDesc* descs, int n, int64_t max_el, const void* table, int64_t size,
                       DType in_type, size_t out_elem_size, void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunLookupTable(exec, descs, n, max_el, table, size, in_type, out_elem_size);
  grid::CheckLaunch("lookup_table");
}

void LaunchColorSpace(const ColorSpaceDesc* descs, int n, int64_t max_px, ColorSpace from, ColorSpace to, DType type,
                      void* stream) {
  grid::DeviceGridExec exec{static_cast<cudaStream_t>(stream)};
  RunColorSpace(exec, descs, n, max_px, from, to, type);
  grid::CheckLaunch("color_space_conversion");
}

}  // namespace sluice::kernels::cuda
