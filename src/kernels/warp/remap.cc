#include "kernels/warp/remap.h"

#include "kernels/warp/sample2d.h"

namespace sluice::kernels {

void Remap(const void* in, const ImageGeom& ig, void* out, const ImageGeom& og, DType type, const float* mapx,
           const float* mapy, int64_t map_stride, PerspectiveInterp interp, float shift) {
  static const std::vector<float> kZero;  // fill 0 for every channel
  warp_detail::SampleImage(in, ig, out, og, type, interp, BorderMode::kConstant, kZero,
                           [=](int64_t x, int64_t y, double* sx, double* sy) {
                             *sx = double(mapx[y * map_stride + x]) - shift;
                             *sy = double(mapy[y * map_stride + x]) - shift;
                           });
}

}  // namespace sluice::kernels
