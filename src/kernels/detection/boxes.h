// Box arithmetic shared by the detection operators (DALI's formulas, float arithmetic).
//
// Boxes are 4 floats: ltrb = [left, top, right, bottom], or xywh = [x, y, width, height] (top-left
// corner and size). Coordinates are whatever the caller uses (relative or absolute); the functions
// never clip unless they say so. All functions are pure and accept in == out; only TransformCoords
// allocates (in_dim floats of scratch).
#pragma once
#include <cstdint>

namespace sluice::kernels {

struct Box {
  float l = 0, t = 0, r = 0, b = 0;
  float area() const { return (r - l > 0 && b - t > 0) ? (r - l) * (b - t) : 0.f; }
};

inline Box ReadBox(const float* p, bool ltrb) {
  return ltrb ? Box{p[0], p[1], p[2], p[3]} : Box{p[0], p[1], p[0] + p[2], p[1] + p[3]};
}
inline void WriteBox(const Box& box, float* p, bool ltrb) {
  p[0] = box.l;
  p[1] = box.t;
  p[2] = ltrb ? box.r : box.r - box.l;
  p[3] = ltrb ? box.b : box.b - box.t;
}

inline float IntersectionArea(const Box& a, const Box& b) {
  const float w = (a.r < b.r ? a.r : b.r) - (a.l > b.l ? a.l : b.l);
  const float h = (a.b < b.b ? a.b : b.b) - (a.t > b.t ? a.t : b.t);
  return w > 0 && h > 0 ? w * h : 0.f;
}
// Intersection over union; 0 when the union is empty.
inline float IoU(const Box& a, const Box& b) {
  const float i = IntersectionArea(a, b);
  const float u = a.area() + b.area() - i;
  return u > 0 ? i / u : 0.f;
}

// bb_flip: mirror relative boxes in [0, 1]: horizontally l' = 1 - r, r' = 1 - l (xywh: x' = 1 - x - w),
// vertically the same on t, b.
void FlipBoxes(const float* in, float* out, int64_t n, bool ltrb, bool horizontal, bool vertical);

// bbox_paste: the boxes of an image pasted at (paste_x, paste_y) into a canvas `ratio` times its
// size: every coordinate c' = c / ratio + paste * (1 - 1 / ratio) (sizes, in xywh, only scaled).
void PasteBoxes(const float* in, float* out, int64_t n, bool ltrb, float ratio, float paste_x, float paste_y);

// coord_flip: points of `ndim` (1..3) coordinates; along each flipped dimension d,
// c' = 2 * center[d] - c.
void FlipCoords(const float* in, float* out, int64_t n, int ndim, const bool* flip, const float* center);

// coord_transform: out (n points of out_dim) = M (out_dim x in_dim, row-major) * in + T, in float
// as DALI's TransformPointsCPU (each row: M[r][0] * p[0], then += M[r][k] * p[k], then + T[r]);
// integer outputs rounded to nearest, ties away from zero, and saturated (DALI's ConvertSat).
// In: float, int16, uint8 or int32; Out: float or In (explicitly instantiated for those pairs).
template <typename In, typename Out>
void TransformCoords(const In* in, Out* out, int64_t n, int in_dim, int out_dim, const float* M, const float* T);

}  // namespace sluice::kernels
