#include "kernels/warp/warp_affine_3d.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/tensor/cast.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

template <typename TIn, typename TOut>
void Warp3D(DhwcView<const TIn> in, DhwcView<TOut> out, const Affine3D& m, const WarpOptions& opt) {
  if (in.channels != out.channels) throw Error("warp_affine: input and output channel counts differ");
  if (in.depth < 0 || in.height < 0 || in.width < 0 || out.depth < 0 || out.height < 0 || out.width < 0 ||
      in.channels < 0)
    throw Error("warp_affine: negative extent");
  const int64_t C = in.channels, D = in.depth, H = in.height, W = in.width;
  const float fill = CastValue<TIn>(opt.fill);  // the fill as an input value, as the image warp
  const bool empty = D == 0 || H == 0 || W == 0;
  // The value of input element (z, y, x, c), clamped or fill outside.
  auto at = [&](int64_t z, int64_t y, int64_t x, int64_t c) -> float {
    if (z < 0 || z >= D || y < 0 || y >= H || x < 0 || x >= W) {
      if (!opt.clamp || empty) return fill;
      z = std::clamp<int64_t>(z, 0, D - 1);
      y = std::clamp<int64_t>(y, 0, H - 1);
      x = std::clamp<int64_t>(x, 0, W - 1);
    }
    return static_cast<float>(in.data[((z * H + y) * W + x) * C + c]);
  };
  auto store = [&](TOut* dst, float v) {
    if constexpr (std::is_same_v<TOut, float>) *dst = v;
    else *dst = CastValue<TOut>(v);
  };
  for (int64_t oz = 0; oz < out.depth; ++oz)
    for (int64_t oy = 0; oy < out.height; ++oy)
      for (int64_t ox = 0; ox < out.width; ++ox) {
        const double px = ox + 0.5, py = oy + 0.5, pz = oz + 0.5;
        const double sx = m.Apply(0, px, py, pz), sy = m.Apply(1, px, py, pz), sz = m.Apply(2, px, py, pz);
        TOut* dst = out.data + ((oz * out.height + oy) * out.width + ox) * C;
        if (opt.interp == WarpInterp::kNearest) {
          const auto x = static_cast<int64_t>(std::floor(sx)), y = static_cast<int64_t>(std::floor(sy)),
                     z = static_cast<int64_t>(std::floor(sz));
          for (int64_t c = 0; c < C; ++c) store(dst + c, at(z, y, x, c));
          continue;
        }
        const double fx = sx - 0.5, fy = sy - 0.5, fz = sz - 0.5;
        const double x0d = std::floor(fx), y0d = std::floor(fy), z0d = std::floor(fz);
        const auto wx = static_cast<float>(fx - x0d), wy = static_cast<float>(fy - y0d), wz = static_cast<float>(fz - z0d);
        // Far outside (beyond int64) every tap is outside: clamp the corner to a safe range.
        const auto x0 = static_cast<int64_t>(std::clamp(x0d, -2.0, double(W) + 1));
        const auto y0 = static_cast<int64_t>(std::clamp(y0d, -2.0, double(H) + 1));
        const auto z0 = static_cast<int64_t>(std::clamp(z0d, -2.0, double(D) + 1));
        for (int64_t c = 0; c < C; ++c) {
          auto plane = [&](int64_t z) {
            const float r0 = at(z, y0, x0, c) + (at(z, y0, x0 + 1, c) - at(z, y0, x0, c)) * wx;
            const float r1 = at(z, y0 + 1, x0, c) + (at(z, y0 + 1, x0 + 1, c) - at(z, y0 + 1, x0, c)) * wx;
            return r0 + (r1 - r0) * wy;
          };
          const float p0 = plane(z0), p1 = plane(z0 + 1);
          store(dst + c, p0 + (p1 - p0) * wz);
        }
      }
}

}  // namespace

void WarpAffine3D(DhwcView<const uint8_t> in, DhwcView<uint8_t> out, const Affine3D& m, const WarpOptions& o) {
  Warp3D(in, out, m, o);
}
void WarpAffine3D(DhwcView<const uint8_t> in, DhwcView<float> out, const Affine3D& m, const WarpOptions& o) {
  Warp3D(in, out, m, o);
}
void WarpAffine3D(DhwcView<const float> in, DhwcView<float> out, const Affine3D& m, const WarpOptions& o) {
  Warp3D(in, out, m, o);
}
void WarpAffine3D(DhwcView<const float> in, DhwcView<uint8_t> out, const Affine3D& m, const WarpOptions& o) {
  Warp3D(in, out, m, o);
}

}  // namespace sluice::kernels
