// 2-D correlation of images with a filter, as DALI's `filter` and `gaussian_blur` compute it:
//   out[y, x, c] = sum_{i, j} in[y + i - anchor_y, x + j - anchor_x, c] * filter[i, j]
// (a correlation: the filter is not flipped), in float32, the result converted to the output type
// with rounding to nearest and saturation for integer outputs. Positions outside the image follow
// the border mode; in "valid" mode the output is only where the filter fits (no border).
//   - Filter2D: a dense filter (DALI `filter`), O(kh * kw) per output element.
//   - SeparableFilter2D: a row filter then a column filter (DALI `gaussian_blur`), the
//     intermediate kept in float32; uint8 -> uint8 with non-negative weights in 16-bit fixed point
//     instead (OpenCV's approach) where a worst-case error bound stays under 1, so within 1 of the
//     float result and identical on every SIMD target.
// Images are planar views with element strides, so HWC, CHW and HW layouts share the code.
// Element types (in and out): uint8, int16, uint16, float32 (FilterKernelSupports).
// Thread-safety: reentrant; each call allocates its own scratch rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sluice/dtype.h"

namespace sluice::kernels {

enum class BorderMode { kReflect101, kReflect1001, kWrap, kClamp, kConstant };

// Parses DALI's spellings: "reflect_101", "reflect_1001", "wrap", "clamp", "constant".
// Returns false for anything else.
bool ParseBorderMode(const std::string& name, BorderMode* mode);

// The source index for position i of an axis of n elements (n >= 1); -1 for kConstant outside.
// Reflections repeat for positions more than one period away (like OpenCV's borderInterpolate).
int64_t BorderIndex(int64_t i, int64_t n, BorderMode mode);

// A 2-D image with channels: element (y, x, c) is at data + y * stride_y + x * stride_x + c * stride_c.
struct ImageGeom {
  int64_t height = 0, width = 0, channels = 1;
  int64_t stride_y = 0, stride_x = 0, stride_c = 0;
  static ImageGeom HWC(int64_t h, int64_t w, int64_t c) { return {h, w, c, w * c, c, 1}; }
  static ImageGeom CHW(int64_t c, int64_t h, int64_t w) { return {h, w, c, w, 1, h * w}; }
};

struct FilterParams {
  const float* filter = nullptr;  // kh x kw, row-major
  int kh = 1, kw = 1;
  int anchor_y = 0, anchor_x = 0;  // in [0, kh) and [0, kw); ignored when valid
  BorderMode border = BorderMode::kReflect101;
  float fill_value = 0;  // for kConstant
  bool valid = false;    // DALI mode="valid": out is (h - kh + 1) x (w - kw + 1)
};

bool FilterKernelSupports(DType t);

// `out` has geometry `out_geom` (same channels; height/width as the mode gives).
void Filter2D(const void* in, DType in_type, const ImageGeom& in_geom, void* out, DType out_type,
              const ImageGeom& out_geom, const FilterParams& p);

// Row filter `wx` (length kx, anchor kx / 2) then column filter `wy` (length ky, anchor ky / 2),
// same-size output, border as given (DALI's gaussian_blur uses kReflect101).
void SeparableFilter2D(const void* in, DType in_type, void* out, DType out_type, const ImageGeom& geom,
                       const std::vector<float>& wy, const std::vector<float>& wx, BorderMode border);

}  // namespace sluice::kernels
