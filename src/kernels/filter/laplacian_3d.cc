// Laplacian3D (kernels/filter/laplacian.h): three separable partial derivatives of a volume, each
// built from SeparableFilter2D passes in float32 (W and H within each depth slice, then D across
// slices), summed in float32 and converted to the output type once.
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/dtype_list.h"
#include "kernels/filter/laplacian.h"
#include "kernels/tensor/saturate_cast.h"

namespace sluice::kernels {

LaplacianWindows3D MakeLaplacianWindows3D(const int window[3], const int* smoothing, bool normalized,
                                          const float scale[3]) {
  LaplacianWindows3D w;
  for (int a = 0; a < 3; ++a) {
    int s = 0;
    for (int b = 0; b < 3; ++b) {
      const int size = b == a ? window[a] : smoothing ? smoothing[b] : window[a];
      w.along[a][b] = b == a ? LaplacianDerivativeWindow(size) : LaplacianSmoothingWindow(size);
      s += size;
    }
    w.scale[a] = normalized ? std::ldexp(1.f, -s + 5) : scale[a];
  }
  return w;
}

void Laplacian3D(const void* in, DType in_type, void* out, DType out_type, const ImageGeom& plane, int64_t depth,
                 int64_t slice_stride, const LaplacianWindows3D& w) {
  const int64_t total = depth * plane.height * plane.width * plane.channels;
  if (total <= 0) return;
  // The positions of a slice as one axis: a "row" of H x W elements of stride stride_x (DHWC: C,
  // CDHW and DHW: 1); the slices as the rows of that image.
  const ImageGeom across{depth, plane.height * plane.width, plane.channels, slice_stride, plane.stride_x,
                         plane.stride_c};
  const size_t in_size = SizeOf(in_type);
  std::vector<float> slices(static_cast<size_t>(total)), partial(static_cast<size_t>(total)),
      sum(static_cast<size_t>(total), 0.f);
  for (int a = 0; a < 3; ++a) {
    const std::vector<float>&along_d = w.along[a][0], &along_h = w.along[a][1], &along_w = w.along[a][2];
    for (int64_t z = 0; z < depth; ++z)
      SeparableFilter2D(static_cast<const uint8_t*>(in) + z * slice_stride * static_cast<int64_t>(in_size), in_type,
                        slices.data() + z * slice_stride, DType::kFloat32, plane, along_h, along_w,
                        BorderMode::kReflect101);
    SeparableFilter2D(slices.data(), DType::kFloat32, partial.data(), DType::kFloat32, across, along_d, {1.f},
                      BorderMode::kReflect101);
    for (int64_t e = 0; e < total; ++e) sum[static_cast<size_t>(e)] += w.scale[a] * partial[static_cast<size_t>(e)];
  }
  VisitDTypeIn<FilterDTypes>(out_type, "laplacian kernel", [&](auto o) {
    using Out = decltype(o);
    Out* dst = static_cast<Out*>(out);
    for (int64_t e = 0; e < total; ++e) dst[e] = SaturateArithmetic<Out>(sum[static_cast<size_t>(e)]);
  });
}

}  // namespace sluice::kernels
