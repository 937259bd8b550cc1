#include "kernels/detection/boxes.h"

#include <cstddef>
#include <vector>

#include "kernels/tensor/cast.h"

namespace sluice::kernels {

void FlipBoxes(const float* in, float* out, int64_t n, bool ltrb, bool horizontal, bool vertical) {
  for (int64_t i = 0; i < n; ++i) {
    const float* p = in + 4 * i;
    float* q = out + 4 * i;
    float v[4] = {p[0], p[1], p[2], p[3]};
    if (horizontal) {
      if (ltrb) {
        const float l = v[0];
        v[0] = 1.f - v[2];
        v[2] = 1.f - l;
      } else {
        v[0] = 1.f - v[0] - v[2];
      }
    }
    if (vertical) {
      if (ltrb) {
        const float t = v[1];
        v[1] = 1.f - v[3];
        v[3] = 1.f - t;
      } else {
        v[1] = 1.f - v[1] - v[3];
      }
    }
    for (int k = 0; k < 4; ++k) q[k] = v[k];
  }
}

void PasteBoxes(const float* in, float* out, int64_t n, bool ltrb, float ratio, float paste_x, float paste_y) {
  const float scale = 1.f / ratio;
  const float mx = paste_x * (1.f - scale), my = paste_y * (1.f - scale);
  for (int64_t i = 0; i < 4 * n; i += 4) {
    const float v[4] = {in[i], in[i + 1], in[i + 2], in[i + 3]};
    out[i] = v[0] * scale + mx;
    out[i + 1] = v[1] * scale + my;
    out[i + 2] = ltrb ? v[2] * scale + mx : v[2] * scale;
    out[i + 3] = ltrb ? v[3] * scale + my : v[3] * scale;
  }
}

void FlipCoords(const float* in, float* out, int64_t n, int ndim, const bool* flip, const float* center) {
  for (int64_t i = 0; i < n * ndim; i += ndim)
    for (int d = 0; d < ndim; ++d) out[i + d] = flip[d] ? 2.f * center[d] - in[i + d] : in[i + d];
}

template <typename In, typename Out>
void TransformCoords(const In* in, Out* out, int64_t n, int in_dim, int out_dim, const float* M, const float* T) {
  std::vector<float> p(static_cast<size_t>(in_dim));
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < in_dim; ++k) p[k] = static_cast<float>(in[i * in_dim + k]);  // copied first: in may be out
    for (int r = 0; r < out_dim; ++r) {
      float s = M[r * in_dim] * p[0];
      for (int k = 1; k < in_dim; ++k) s += M[r * in_dim + k] * p[k];
      s += T[r];
      out[i * out_dim + r] = CastValue<Out>(s);
    }
  }
}

template void TransformCoords<float, float>(const float*, float*, int64_t, int, int, const float*, const float*);
template void TransformCoords<int16_t, float>(const int16_t*, float*, int64_t, int, int, const float*, const float*);
template void TransformCoords<int16_t, int16_t>(const int16_t*, int16_t*, int64_t, int, int, const float*, const float*);
template void TransformCoords<uint8_t, float>(const uint8_t*, float*, int64_t, int, int, const float*, const float*);
template void TransformCoords<uint8_t, uint8_t>(const uint8_t*, uint8_t*, int64_t, int, int, const float*, const float*);
template void TransformCoords<int32_t, float>(const int32_t*, float*, int64_t, int, int, const float*, const float*);
template void TransformCoords<int32_t, int32_t>(const int32_t*, int32_t*, int64_t, int, int, const float*, const float*);

}  // namespace sluice::kernels
