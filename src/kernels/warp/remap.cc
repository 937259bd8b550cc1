#include "kernels/warp/remap.h"

#include "kernels/warp/sample2d.h"
#include "kernels/warp/sample2d_u8c3.h"

namespace sluice::kernels {

void Remap(const void* in, const ImageGeom& ig, void* out, const ImageGeom& og, DType type, const float* mapx,
           const float* mapy, int64_t map_stride, PerspectiveInterp interp, float shift) {
  static const std::vector<float> kZero;  // fill 0 for every channel
  auto coord = [=](int64_t x, int64_t y, double* sx, double* sy) {
    *sx = double(mapx[y * map_stride + x]) - shift;
    *sy = double(mapy[y * map_stride + x]) - shift;
  };
  // The int32 points need shift 0 or 0.5 (warp_rows_hwy.h's MapPointsRow).
  if (og.height > 0 && og.width > 0 && (shift == 0.f || shift == 0.5f) &&
      warp_detail::SampleU8C3Applies(type, ig, og, interp)) {
    const auto* src = static_cast<const uint8_t*>(in);
    auto* dst = static_cast<uint8_t*>(out);
    const bool nearest = interp == PerspectiveInterp::kNearest;
    auto row_points = [=](int64_t y, int64_t x_begin, int64_t n, int32_t* px, int32_t* py) {
      const int64_t at = y * map_stride + x_begin;
      warp_detail::MapPointsRow(mapx + at, mapy + at, n, shift, nearest, px, py);
    };
    if (nearest)
      warp_detail::SampleU8C3<PerspectiveInterp::kNearest>(src, ig, dst, og, BorderMode::kConstant, kZero, row_points,
                                                           coord);
    else
      warp_detail::SampleU8C3<PerspectiveInterp::kLinear>(src, ig, dst, og, BorderMode::kConstant, kZero, row_points,
                                                          coord);
    return;
  }
  warp_detail::SampleImage(in, ig, out, og, type, interp, BorderMode::kConstant, kZero, coord);
}

}  // namespace sluice::kernels
