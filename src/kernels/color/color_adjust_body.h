// The colour adjustments' kernel bodies and launchers (color_adjust_cuda.h's descriptors), shared
// by color.cu and the host grid runner. One instantiation per body: the element types are a
// run-time switch (grid::LoadAsFloat / StoreCastFromFloat), uniform over a launch. The arithmetic
// is color_adjust.cc's, operation by operation (grid::MulRn / AddRn: no contraction).
#pragma once
#include <string>

#include "kernels/color/color_adjust_cuda.h"
#include "kernels/grid/host_device.h"

namespace sluice::kernels::cuda {

// One thread per element.
struct ColorAffineBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const ColorAffineDesc* descs, DType in_type, DType out_type) {
    const ColorAffineDesc& d = descs[g.block_idx.y];
    for (int64_t i = g.GlobalX(); i < d.n; i += g.StrideX()) {
      const float v = grid::AddRn(grid::MulRn(grid::LoadAsFloat(d.in, i, in_type), d.mul), d.add);
      grid::StoreCastFromFloat(d.out, i, out_type, v);
    }
  }
};

// One thread per pixel: each channel's dot product left to right, then the offset (DALI's order).
struct ColorMatrix3Body {
  static SLUICE_HD void Run(const grid::GridPos& g, const ColorMatrixDesc* descs, DType in_type, DType out_type) {
    const ColorMatrixDesc& d = descs[g.block_idx.y];
    for (int64_t p = g.GlobalX(); p < d.pixels; p += g.StrideX()) {
      const float r = grid::LoadAsFloat(d.in, 3 * p, in_type), gr = grid::LoadAsFloat(d.in, 3 * p + 1, in_type),
                  b = grid::LoadAsFloat(d.in, 3 * p + 2, in_type);
      for (int c = 0; c < 3; ++c) {
        float dot = grid::MulRn(r, d.m[c][0]);
        dot = grid::AddRn(dot, grid::MulRn(gr, d.m[c][1]));
        dot = grid::AddRn(dot, grid::MulRn(b, d.m[c][2]));
        grid::StoreCastFromFloat(d.out, 3 * p + c, out_type, grid::AddRn(dot, d.offset[c]));
      }
    }
  }
};

inline void CheckColorTypes(const char* what, DType in_type, DType out_type) {
  for (DType t : {in_type, out_type})
    if (t != DType::kUInt8 && t != DType::kInt16 && t != DType::kInt32 && t != DType::kFloat16 &&
        t != DType::kFloat32)
      throw Error(std::string(what) + " (gpu): unsupported type " + std::string(ToString(t)) +
                  " (uint8, int16, int32, float16 or float32)");
}

template <typename Exec>
void RunColorAffine(Exec& exec, const ColorAffineDesc* descs, int n, int64_t max_el, DType in_type, DType out_type) {
  CheckColorTypes("brightness_contrast", in_type, out_type);
  if (n <= 0 || max_el <= 0) return;
  exec.template Run<ColorAffineBody>(grid::BatchGrid(max_el, n, grid::kDefaultBlock), grid::kDefaultBlock, descs,
                                     in_type, out_type);
}

template <typename Exec>
void RunColorMatrix3(Exec& exec, const ColorMatrixDesc* descs, int n, int64_t max_px, DType in_type, DType out_type) {
  CheckColorTypes("color_twist", in_type, out_type);
  if (n <= 0 || max_px <= 0) return;
  exec.template Run<ColorMatrix3Body>(grid::BatchGrid(max_px, n, grid::kDefaultBlock), grid::kDefaultBlock, descs,
                                      in_type, out_type);
}

}  // namespace sluice::kernels::cuda
