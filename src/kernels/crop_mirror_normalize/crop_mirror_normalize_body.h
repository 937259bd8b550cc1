// crop_mirror_normalize's kernel body and launcher (crop_mirror_normalize_cuda.h's descriptors),
// shared by crop_mirror_normalize.cu and the host grid runner: one thread per output pixel, all
// channels; `fma` picks the CPU kernel's fused or rounded-twice order (see the descriptor).
#pragma once
#include "kernels/crop_mirror_normalize/crop_mirror_normalize_cuda.h"
#include "kernels/grid/host_device.h"

namespace sluice::kernels::cuda {

template <typename TIn, typename TOut, bool kChw>
struct CmnBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const CmnSampleDesc* descs) {
    const CmnSampleDesc& d = descs[g.block_idx.y];
    const int64_t npix = int64_t(d.out_w) * d.out_h;
    const auto* in = static_cast<const TIn*>(d.in);
    auto* out = static_cast<TOut*>(d.out);
    const int C = d.channels, Co = d.out_channels;
    for (int64_t p = g.GlobalX(); p < npix; p += g.StrideX()) {
      const int y = int(p / d.out_w), x = int(p - int64_t(y) * d.out_w);
      const int sy = d.crop_y + y;
      const int sx = d.mirror ? d.crop_x + d.out_w - 1 - x : d.crop_x + x;
      const bool inside = sy >= 0 && sy < d.in_h && sx >= 0 && sx < d.in_w;
      TOut v[5];
      for (int c = 0; c < 4; ++c) {
        if (c < C) {
          if (inside) {
            const float s = float(in[(int64_t(sy) * d.in_w + sx) * C + c]);
            const float f = d.fma ? grid::FmaRn(s, d.a[c], d.b[c]) : grid::AddRn(grid::MulRn(s, d.a[c]), d.b[c]);
            v[c] = grid::ConvertSat<TOut>(f);
          } else {
            v[c] = grid::ConvertSat<TOut>(d.fill[c]);
          }
        }
      }
      if (Co > C) v[C] = grid::ConvertSat<TOut>(0.f);
      if constexpr (kChw) {
        for (int c = 0; c < Co; ++c) out[int64_t(c) * npix + p] = v[c];
      } else {
        for (int c = 0; c < Co; ++c) out[p * Co + c] = v[c];
      }
    }
  }
};

// in_type: uint8 or float32; out_type: float32, float16, uint8, int8; 16 instantiations.
template <typename Exec>
void RunCropMirrorNormalize(Exec& exec, const CmnSampleDesc* descs, int n, int64_t max_px, DType in_type,
                            DType out_type, bool chw) {
  if (n <= 0 || max_px <= 0) return;
  const grid::Dim3 dims = grid::BatchGrid(max_px, n, grid::kDefaultBlock);
  auto with_out = [&](auto in_tag) {
    using TIn = decltype(in_tag);
    auto go = [&](auto out_tag) {
      using TOut = decltype(out_tag);
      if (chw) exec.template Run<CmnBody<TIn, TOut, true>>(dims, grid::kDefaultBlock, descs);
      else exec.template Run<CmnBody<TIn, TOut, false>>(dims, grid::kDefaultBlock, descs);
    };
    switch (out_type) {
      case DType::kFloat32: return go(float{});
      case DType::kFloat16: return go(grid::Half{});
      case DType::kUInt8: return go(uint8_t{});
      case DType::kInt8: return go(int8_t{});
      default: throw Error("crop_mirror_normalize (gpu): unsupported output type " + std::string(ToString(out_type)));
    }
  };
  if (in_type == DType::kUInt8) with_out(uint8_t{});
  else if (in_type == DType::kFloat32) with_out(float{});
  else throw Error("crop_mirror_normalize (gpu): unsupported input type " + std::string(ToString(in_type)));
}

}  // namespace sluice::kernels::cuda
