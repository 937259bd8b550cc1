// resize's kernel bodies and launcher (resize_cuda.h's descriptors), shared by resize.cu and the
// host grid runner: a horizontal pass over the input rows the vertical filter needs, into an
// intermediate, then the vertical pass; the CPU kernel's order, accumulation and rounding
// (resize_hwy.cc).
#pragma once
#include <cmath>
#include <type_traits>

#include "kernels/grid/host_device.h"
#include "kernels/resize/resize_cuda.h"

namespace sluice::kernels::cuda {
namespace resize_body {

inline constexpr int kFixedBits = 22;
inline constexpr int32_t kRound = 1 << (kFixedBits - 1);

template <typename TAcc>
SLUICE_HD inline TAcc Init() {
  if constexpr (std::is_same_v<TAcc, int32_t>) return kRound;
  else return 0.f;
}
// acc + v * w. Float: fused, as the CPU kernel's Add(acc, Mul(v, w)) is compiled for its AVX2 and
// AVX-512 targets (GCC contracts it to vfmadd); the taps are summed in the same order.
SLUICE_HD inline int32_t Mac(int32_t acc, int32_t v, int32_t w) { return acc + v * w; }
SLUICE_HD inline float Mac(float acc, float v, float w) { return grid::FmaRn(v, w, acc); }

template <typename TAcc, typename TOut>
SLUICE_HD inline TOut Store(TAcc acc) {
  if constexpr (std::is_same_v<TAcc, int32_t>) {
    const int32_t v = acc >> kFixedBits;
    return TOut(v < 0 ? 0 : v > 255 ? 255 : v);
  } else if constexpr (std::is_same_v<TOut, uint8_t>) {
    const float r = rintf(acc);
    return TOut(r < 0.f ? 0 : r > 255.f ? 255 : int(r));
  } else {
    return TOut(acc);
  }
}

}  // namespace resize_body

template <typename TIn, typename TAcc, typename TMid>
struct ResizeHorzBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const ResizeSampleDesc* descs) {
    const ResizeSampleDesc& d = descs[g.block_idx.y];
    const int C = d.channels;
    const int64_t ne = int64_t(d.out_w) * C, total = ne * d.mid_rows;
    const auto* in = static_cast<const TIn*>(d.in);
    auto* mid = static_cast<TMid*>(d.mid);
    const auto* coef = static_cast<const TAcc*>(d.x_coef);
    for (int64_t i = g.GlobalX(); i < total; i += g.StrideX()) {
      const int64_t r = i / ne, e = i - r * ne;
      const int x = int(e / C), c = int(e - int64_t(x) * C);
      const TIn* src = in + (d.first_row + r) * d.in_pitch + int64_t(d.x_start[x]) * C + c;
      const TAcc* w = coef + int64_t(x) * d.xt;
      TAcc acc = resize_body::Init<TAcc>();
      for (int k = 0; k < d.xt; ++k) acc = resize_body::Mac(acc, TAcc(src[int64_t(k) * C]), w[k]);
      mid[i] = resize_body::Store<TAcc, TMid>(acc);
    }
  }
};

template <typename TMid, typename TAcc, typename TOut>
struct ResizeVertBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const ResizeSampleDesc* descs) {
    const ResizeSampleDesc& d = descs[g.block_idx.y];
    const int64_t ne = int64_t(d.out_w) * d.channels, total = ne * d.out_h;
    const auto* mid = static_cast<const TMid*>(d.mid);
    auto* out = static_cast<TOut*>(d.out);
    const auto* coef = static_cast<const TAcc*>(d.y_coef);
    for (int64_t i = g.GlobalX(); i < total; i += g.StrideX()) {
      const int64_t y = i / ne, e = i - y * ne;
      const TMid* src = mid + int64_t(d.y_start[y]) * ne + e;
      const TAcc* w = coef + y * d.yt;
      TAcc acc = resize_body::Init<TAcc>();
      for (int k = 0; k < d.yt; ++k) acc = resize_body::Mac(acc, TAcc(src[int64_t(k) * ne]), w[k]);
      out[i] = resize_body::Store<TAcc, TOut>(acc);
    }
  }
};

// (in, out) in {(u8,u8) fixed point, (u8,f32), (f32,f32), (f32,u8)}: two launches each.
template <typename Exec>
void RunResize(Exec& exec, const ResizeSampleDesc* descs, int n, int64_t max_mid, int64_t max_out, DType in_type,
               DType out_type) {
  if (n <= 0 || max_out <= 0) return;
  const bool in_u8 = in_type == DType::kUInt8, out_u8 = out_type == DType::kUInt8;
  if ((!in_u8 && in_type != DType::kFloat32) || (!out_u8 && out_type != DType::kFloat32))
    throw Error("resize (gpu): supports uint8 and float32 input and output, got " + std::string(ToString(in_type)) +
                " -> " + std::string(ToString(out_type)));
  constexpr int b = grid::kDefaultBlock;
  const grid::Dim3 gm = grid::BatchGrid(max_mid, n, b), go = grid::BatchGrid(max_out, n, b);
  auto run = [&](auto in_tag, auto acc_tag, auto mid_tag, auto out_tag) {
    using TIn = decltype(in_tag);
    using TAcc = decltype(acc_tag);
    using TMid = decltype(mid_tag);
    using TOut = decltype(out_tag);
    exec.template Run<ResizeHorzBody<TIn, TAcc, TMid>>(gm, b, descs);
    exec.template Run<ResizeVertBody<TMid, TAcc, TOut>>(go, b, descs);
  };
  if (in_u8 && out_u8) run(uint8_t{}, int32_t{}, uint8_t{}, uint8_t{});
  else if (in_u8) run(uint8_t{}, float{}, float{}, float{});
  else if (out_u8) run(float{}, float{}, float{}, uint8_t{});
  else run(float{}, float{}, float{}, float{});
}

}  // namespace sluice::kernels::cuda
