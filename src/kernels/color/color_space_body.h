// color_space_conversion's kernel body and launcher (color_space_cuda.h), shared by color.cu and
// the host grid runner: one thread per pixel, one instantiation (the type and the colour spaces are
// run-time values, uniform over the launch). The arithmetic is color_space.cc's Convert, operation
// by operation (grid::MulRn / AddRn / SubRn), uint8 results rounded to nearest even and saturated.
#pragma once
#include <string>

#include "kernels/color/color_space_cuda.h"
#include "kernels/grid/host_device.h"

namespace sluice::kernels::cuda {

struct ColorSpaceBody {
  struct Ctx {
    const void* in;
    void* out;
    bool u8;
  };
  static SLUICE_HD float Load(const Ctx& c, int64_t i) {
    return c.u8 ? float(static_cast<const uint8_t*>(c.in)[i]) : static_cast<const float*>(c.in)[i];
  }
  static SLUICE_HD void Store(const Ctx& c, int64_t i, float v) {
    if (c.u8) static_cast<uint8_t*>(c.out)[i] = grid::ConvertSat<uint8_t>(v);
    else static_cast<float*>(c.out)[i] = v;
  }
  static SLUICE_HD void StoreRgb(const Ctx& c, int64_t o, float r, float g, float b, bool bgr) {
    Store(c, o + (bgr ? 2 : 0), r);
    Store(c, o + 1, g);
    Store(c, o + (bgr ? 0 : 2), b);
  }
  // a*x + b*y + c*z + k, left to right, every operation rounded on its own.
  static SLUICE_HD float Dot3(float a, float x, float b, float y, float c, float z, float k) {
    return grid::AddRn(grid::AddRn(grid::AddRn(grid::MulRn(a, x), grid::MulRn(b, y)), grid::MulRn(c, z)), k);
  }

  static SLUICE_HD void Run(const grid::GridPos& g, const ColorSpaceDesc* descs, ColorSpace from, ColorSpace to,
                            DType type) {
    using grid::AddRn;
    using grid::MulRn;
    using grid::SubRn;
    const ColorSpaceDesc& d = descs[g.block_idx.y];
    const Ctx c{d.in, d.out, type == DType::kUInt8};
    const float bias = c.u8 ? 256.0f : 1.0f;
    const float kY = 0.0625f * bias, kC = 0.5f * bias;
    const int cin = from == ColorSpace::kGray ? 1 : 3, cout = to == ColorSpace::kGray ? 1 : 3;
    const bool in_rgb = from == ColorSpace::kRGB || from == ColorSpace::kBGR;
    const bool out_rgb = to == ColorSpace::kRGB || to == ColorSpace::kBGR;
    const bool in_bgr = from == ColorSpace::kBGR, out_bgr = to == ColorSpace::kBGR;
    for (int64_t p = g.GlobalX(); p < d.pixels; p += g.StrideX()) {
      const int64_t i = p * cin, o = p * cout;
      if (from == to) {  // a copy (the CPU memcpy)
        for (int k = 0; k < cin; ++k) {
          if (c.u8) static_cast<uint8_t*>(c.out)[i + k] = static_cast<const uint8_t*>(c.in)[i + k];
          else static_cast<float*>(c.out)[i + k] = static_cast<const float*>(c.in)[i + k];
        }
      } else if (in_rgb) {
        const float r = Load(c, i + (in_bgr ? 2 : 0)), gr = Load(c, i + 1), b = Load(c, i + (in_bgr ? 0 : 2));
        if (out_rgb) {
          StoreRgb(c, o, r, gr, b, out_bgr);
        } else if (to == ColorSpace::kGray) {
          Store(c, o, AddRn(AddRn(MulRn(0.299f, r), MulRn(0.587f, gr)), MulRn(0.114f, b)));
        } else {
          Store(c, o, Dot3(0.25678823529f, r, 0.50412941176f, gr, 0.09790588235f, b, kY));
          Store(c, o + 1, AddRn(AddRn(SubRn(MulRn(-0.14822289945f, r), MulRn(0.29099278682f, gr)),
                                      MulRn(0.43921568627f, b)), kC));
          Store(c, o + 2, AddRn(SubRn(SubRn(MulRn(0.43921568627f, r), MulRn(0.36778831435f, gr)),
                                      MulRn(0.07142737192f, b)), kC));
        }
      } else if (from == ColorSpace::kGray) {
        const float v = Load(c, i);
        if (out_rgb) {
          for (int k = 0; k < 3; ++k) Store(c, o + k, v);  // a copy: exact in either type
        } else {
          Store(c, o, AddRn(MulRn(v, 219.0f / 255.0f), kY));
          const float chroma = MulRn(kC, c.u8 ? 255.0f / 256.0f : 1.0f);
          Store(c, o + 1, chroma);
          Store(c, o + 2, chroma);
        }
      } else {  // YCbCr
        const float y = Load(c, i), cb = SubRn(Load(c, i + 1), kC), cr = SubRn(Load(c, i + 2), kC);
        const float ys = MulRn(SubRn(y, kY), 255.0f / 219.0f);
        if (to == ColorSpace::kGray) {
          Store(c, o, ys);
        } else {
          StoreRgb(c, o, AddRn(ys, MulRn(1.5960267848f, cr)),
                   SubRn(SubRn(ys, MulRn(0.39176228842f, cb)), MulRn(0.81296764538f, cr)),
                   AddRn(ys, MulRn(2.0172321417f, cb)), out_bgr);
        }
      }
    }
  }
};

template <typename Exec>
void RunColorSpace(Exec& exec, const ColorSpaceDesc* descs, int n, int64_t max_px, ColorSpace from, ColorSpace to,
                   DType type) {
  if (type != DType::kUInt8 && type != DType::kFloat32)
    throw Error("color_space_conversion (gpu): uint8 or float32, got " + std::string(ToString(type)));
  if (n <= 0 || max_px <= 0) return;
  exec.template Run<ColorSpaceBody>(grid::BatchGrid(max_px, n, grid::kDefaultBlock), grid::kDefaultBlock, descs, from,
                                    to, type);
}

}  // namespace sluice::kernels::cuda
