#include "kernels/resize/resize_block.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/resize/resize_hwy.h"
#include "kernels/resize/resize_rows.h"
#include "sluice/error.h"

namespace sluice::kernels::resize_detail {
namespace {

// out(y, x) = in(ys[y] - y0, xs[x] - x0) with type conversion (float -> uint8 rounds and saturates;
// 16-bit sources are only copied or widened to float).
template <int C, typename TIn, typename TOut>
void GatherPixels(const TIn* in, size_t in_pitch, int in_w, const int32_t* xs, const int32_t* ys, int x0, int y0,
                  int out_w, int out_h, TOut* out, size_t out_pitch) {
  for (int y = 0; y < out_h; ++y) {
    const TIn* srow = in + size_t(ys[y] - y0) * in_pitch;
    TOut* d = out + size_t(y) * out_pitch;
    int x = 0;
    if constexpr (C == 3 && sizeof(TIn) == 1 && std::is_same_v<TIn, TOut>) {
      // 4-byte moves: the extra byte lands on the next pixel, which is written right after.
      // Stops one pixel early on both sides so neither the source nor the row overruns.
      for (; x + 1 < out_w && xs[x] - x0 < in_w - 1; ++x, d += 3) std::memcpy(d, srow + size_t(xs[x] - x0) * 3, 4);
    }
    for (; x < out_w; ++x, d += C) {
      const TIn* sp = srow + size_t(xs[x] - x0) * C;
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

}  // namespace

void CheckResizeExtents(int in_h, int in_w, int C, int out_h, int out_w) {
  if (in_h <= 0 || in_w <= 0 || out_h <= 0 || out_w <= 0)
    throw Error("resize: empty extent (in " + std::to_string(in_h) + "x" + std::to_string(in_w) + ", out " +
                std::to_string(out_h) + "x" + std::to_string(out_w) + ")");
  if (C < 1 || C > 4) throw Error("resize: channels must be 1..4, got " + std::to_string(C));
}

ResizeRoi RoiOrWholeImage(const ResizeParams& p, int full_w, int full_h) {
  const ResizeRoi roi = p.roi.value_or(ResizeRoi{0.f, 0.f, float(full_w), float(full_h)});
  if (roi.x0 == roi.x1 || roi.y0 == roi.y1 || !std::isfinite(roi.x0) || !std::isfinite(roi.x1) ||
      !std::isfinite(roi.y0) || !std::isfinite(roi.y1))
    throw Error("resize: degenerate ROI");
  return roi;
}

template <typename TIn, typename TOut>
void ResizeBlock(const TIn* in, size_t in_pitch, int in_w, int C, int x0, int y0, Span rows, Span cols, TOut* out,
                 size_t out_pitch, ResizeScratch& s) {
  const int oh = rows.end - rows.begin, ow = cols.end - cols.begin;
  const int xt = s.cx.taps, yt = s.cy.taps, ne = ow * C;
  const int32_t* xs = s.cx.start.data() + cols.begin;
  const int32_t* ys = s.cy.start.data() + rows.begin;
  if (xt == 1 && yt == 1) {  // nearest (or copy) on both axes: weights are 1, a pure gather
    switch (C) {
      case 1: GatherPixels<1>(in, in_pitch, in_w, xs, ys, x0, y0, ow, oh, out, out_pitch); break;
      case 2: GatherPixels<2>(in, in_pitch, in_w, xs, ys, x0, y0, ow, oh, out, out_pitch); break;
      case 3: GatherPixels<3>(in, in_pitch, in_w, xs, ys, x0, y0, ow, oh, out, out_pitch); break;
      default: GatherPixels<4>(in, in_pitch, in_w, xs, ys, x0, y0, ow, oh, out, out_pitch); break;
    }
    return;
  }
  // The source rows the block reads (starts are monotone along the axis, so the ends bound them).
  const int row_first = std::min(ys[0], ys[oh - 1]);
  const int row_count = std::max(ys[0], ys[oh - 1]) + yt - row_first;
  int32_t* offs = Grow(s.offs, size_t(ne));
  int32_t* ystart = Grow(s.ystart, size_t(oh));
  for (int x = 0; x < ow; ++x)
    for (int c = 0; c < C; ++c) offs[x * C + c] = (xs[x] - x0) * C + c;
  for (int y = 0; y < oh; ++y) ystart[y] = ys[y] - row_first;

  constexpr bool kFixed = std::is_same_v<TIn, uint8_t> && std::is_same_v<TOut, uint8_t>;
  using Typed = TypedScratch<kFixed>;
  using TAcc = typename Typed::TAcc;
  using TMid = typename Typed::TMid;
  Typed ts(s);
  TAcc* xc = Grow(ts.xcoef, size_t(xt) * size_t(ne));
  for (int x = 0; x < ow; ++x)
    for (int k = 0; k < xt; ++k) {
      const TAcc w = Typed::Weight(s.cx.weights[size_t(cols.begin + x) * size_t(xt) + size_t(k)]);
      for (int c = 0; c < C; ++c) xc[size_t(k) * size_t(ne) + size_t(x * C + c)] = w;
    }
  TAcc* yc = Grow(ts.ycoef, size_t(yt) * size_t(oh));
  const double* y_weights = s.cy.weights.data() + size_t(rows.begin) * size_t(yt);
  for (size_t i = 0; i < size_t(yt) * size_t(oh); ++i) yc[i] = Typed::Weight(y_weights[i]);
  TMid* mid = Grow(ts.mid, size_t(row_count) * size_t(ne));
  TAcc* row = Grow(ts.row, size_t(in_w) * size_t(C));
  Horz(HorzArgs<TIn, TAcc, TMid>{in + size_t(row_first - y0) * in_pitch, in_pitch, in_w * C, row_count, offs, xc, xt,
                                 C, ne, mid, size_t(ne), row,
                                 ReadRowMask(yc, ystart, yt, oh, row_count, s.row_read)});
  Vert(VertArgs<TMid, TAcc, TOut>{mid, size_t(ne), ne, ystart, yc, yt, oh, out, out_pitch});
}

template void ResizeBlock(const uint8_t*, size_t, int, int, int, int, Span, Span, uint8_t*, size_t, ResizeScratch&);
template void ResizeBlock(const uint8_t*, size_t, int, int, int, int, Span, Span, float*, size_t, ResizeScratch&);
template void ResizeBlock(const float*, size_t, int, int, int, int, Span, Span, float*, size_t, ResizeScratch&);
template void ResizeBlock(const float*, size_t, int, int, int, int, Span, Span, uint8_t*, size_t, ResizeScratch&);
template void ResizeBlock(const int16_t*, size_t, int, int, int, int, Span, Span, int16_t*, size_t, ResizeScratch&);
template void ResizeBlock(const int16_t*, size_t, int, int, int, int, Span, Span, float*, size_t, ResizeScratch&);
template void ResizeBlock(const uint16_t*, size_t, int, int, int, int, Span, Span, uint16_t*, size_t, ResizeScratch&);
template void ResizeBlock(const uint16_t*, size_t, int, int, int, int, Span, Span, float*, size_t, ResizeScratch&);

}  // namespace sluice::kernels::resize_detail
