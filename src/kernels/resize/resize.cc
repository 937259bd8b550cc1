// Resize orchestration: coefficient tables, scratch management, horizontal then vertical pass
// (Pillow's order), dispatch between the 22-bit fixed-point uint8 path and the float path.
#include "kernels/resize/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/resize/resample_coeffs.h"
#include "kernels/resize/resize_hwy.h"
#include "kernels/resize/resize_rows.h"
#include "kernels/resize/resize_scratch.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {
using namespace resize_detail;

// out(y, x) = in(ys[y], xs[x]) with type conversion (float -> uint8 rounds and saturates).
template <int C, typename TIn, typename TOut>
void GatherPixels(const TIn* in, size_t in_pitch, const int32_t* xs, const int32_t* ys, int out_w, int out_h,
                  TOut* out) {
  for (int y = 0; y < out_h; ++y) {
    const TIn* srow = in + size_t(ys[y]) * in_pitch;
    TOut* d = out + size_t(y) * size_t(out_w) * C;
    int x = 0;
    if constexpr (C == 3 && sizeof(TIn) == 1 && std::is_same_v<TIn, TOut>) {
      // 4-byte moves: the extra byte lands on the next pixel, which is written right after.
      // Stops one pixel early on both sides so neither the source nor the row overruns.
      const int32_t max_src = int32_t((in_pitch / 3) - 1);
      for (; x + 1 < out_w && xs[x] < max_src; ++x, d += 3) std::memcpy(d, srow + size_t(xs[x]) * 3, 4);
    }
    for (; x < out_w; ++x, d += C) {
      const TIn* sp = srow + size_t(xs[x]) * C;
      if constexpr (std::is_same_v<TIn, TOut>) {
        std::memcpy(d, sp, C * sizeof(TIn));
      } else {
        for (int c = 0; c < C; ++c) {
          if constexpr (std::is_same_v<TOut, uint8_t>) d[c] = uint8_t(std::clamp(std::nearbyint(sp[c]), 0.f, 255.f));
          else d[c] = TOut(sp[c]);
        }
      }
    }
  }
}

template <typename TIn, typename TOut>
void ResizeImpl(const TIn* in, int in_h, int in_w, int C, TOut* out, int out_h, int out_w, const ResizeParams& p) {
  if (in_h <= 0 || in_w <= 0 || out_h <= 0 || out_w <= 0)
    throw Error("resize: empty extent (in " + std::to_string(in_h) + "x" + std::to_string(in_w) + ", out " +
                std::to_string(out_h) + "x" + std::to_string(out_w) + ")");
  if (C < 1 || C > 4) throw Error("resize: channels must be 1..4, got " + std::to_string(C));
  const ResizeRoi roi = p.roi.value_or(ResizeRoi{0.f, 0.f, float(in_w), float(in_h)});
  if (roi.x0 == roi.x1 || roi.y0 == roi.y1 || !std::isfinite(roi.x0) || !std::isfinite(roi.x1) ||
      !std::isfinite(roi.y0) || !std::isfinite(roi.y1))
    throw Error("resize: degenerate ROI");
  ResizeScratch& s = GetScratch();
  ComputeAxisCoeffs(in_w, roi.x0, roi.x1, out_w, p, &s.cx);
  ComputeAxisCoeffs(in_h, roi.y0, roi.y1, out_h, p, &s.cy);
  const int ne = out_w * C, xt = s.cx.taps, yt = s.cy.taps;
  const size_t in_pitch = size_t(in_w) * size_t(C);
  if (xt == 1 && yt == 1) {  // nearest (or copy) on both axes: weights are 1, a pure gather
    switch (C) {
      case 1: GatherPixels<1>(in, in_pitch, s.cx.start.data(), s.cy.start.data(), out_w, out_h, out); break;
      case 2: GatherPixels<2>(in, in_pitch, s.cx.start.data(), s.cy.start.data(), out_w, out_h, out); break;
      case 3: GatherPixels<3>(in, in_pitch, s.cx.start.data(), s.cy.start.data(), out_w, out_h, out); break;
      default: GatherPixels<4>(in, in_pitch, s.cx.start.data(), s.cy.start.data(), out_w, out_h, out); break;
    }
    return;
  }
  const int rows = s.cy.last - s.cy.first;
  int32_t* offs = Grow(s.offs, size_t(ne));
  int32_t* ystart = Grow(s.ystart, size_t(out_h));
  for (int x = 0; x < out_w; ++x)
    for (int c = 0; c < C; ++c) offs[x * C + c] = s.cx.start[size_t(x)] * C + c;
  for (int y = 0; y < out_h; ++y) ystart[y] = s.cy.start[size_t(y)] - s.cy.first;

  constexpr bool kFixed = std::is_same_v<TIn, uint8_t> && std::is_same_v<TOut, uint8_t>;
  using Typed = TypedScratch<kFixed>;
  using TAcc = typename Typed::TAcc;
  using TMid = typename Typed::TMid;
  Typed ts(s);
  std::vector<TAcc>& xc_v = ts.xcoef;
  std::vector<TAcc>& yc_v = ts.ycoef;
  std::vector<TAcc>& row_v = ts.row;
  std::vector<TMid>& mid_v = ts.mid;
  auto conv = &Typed::Weight;
  TAcc* xc = Grow(xc_v, size_t(xt) * size_t(ne));
  for (int x = 0; x < out_w; ++x)
    for (int k = 0; k < xt; ++k) {
      const TAcc w = conv(s.cx.weights[size_t(x) * size_t(xt) + size_t(k)]);
      for (int c = 0; c < C; ++c) xc[size_t(k) * size_t(ne) + size_t(x * C + c)] = w;
    }
  TAcc* yc = Grow(yc_v, size_t(yt) * size_t(out_h));
  for (size_t i = 0; i < size_t(yt) * size_t(out_h); ++i) yc[i] = conv(s.cy.weights[i]);
  TMid* mid = Grow(mid_v, size_t(rows) * size_t(ne));
  TAcc* row = Grow(row_v, size_t(in_w) * size_t(C));

  Horz(HorzArgs<TIn, TAcc, TMid>{in + size_t(s.cy.first) * in_pitch, in_pitch, in_w * C, rows, offs, xc, xt, C, ne,
                                 mid, size_t(ne), row,
                                 ReadRowMask(yc, ystart, yt, out_h, rows, s.row_read)});
  Vert(VertArgs<TMid, TAcc, TOut>{mid, size_t(ne), ne, ystart, yc, yt, out_h, out, size_t(ne)});
}

}  // namespace

void ReleaseResizeScratch() { GetScratch() = ResizeScratch{}; }

void Resize(const uint8_t* in, int in_h, int in_w, int c, uint8_t* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}
void Resize(const uint8_t* in, int in_h, int in_w, int c, float* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}
void Resize(const float* in, int in_h, int in_w, int c, float* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}
void Resize(const float* in, int in_h, int in_w, int c, uint8_t* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}

}  // namespace sluice::kernels
