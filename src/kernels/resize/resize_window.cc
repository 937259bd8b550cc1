// Windowed resize: Resize's coefficient tables for the full image, sliced to the outputs whose taps
// the window holds and offset into it; then Resize's own SIMD passes (resize_hwy.h).
#include "kernels/resize/resize_window.h"

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


// The outputs whose taps [start, start + taps) lie in [lo, hi). Starts are monotone in the output
// index (non-increasing when mirrored), so they form one span.
Span InsideOutputs(const AxisCoeffs& c, int lo, int hi) {
  Span s{0, 0};
  bool found = false;
  for (int i = 0; i < c.out_size; ++i) {
    const int a = c.start[size_t(i)];
    const bool in = a >= lo && a + c.taps <= hi;
    if (in && !found) { s.begin = i; found = true; }
    if (in) s.end = i + 1;
  }
  for (int i = s.begin; i < s.end; ++i) {
    const int a = c.start[size_t(i)];
    if (a < lo || a + c.taps > hi) throw Error("resize window: internal: filter windows are not monotone");
  }
  return s;
}

void ZeroOutside(uint8_t* out, size_t elem, int out_h, int out_w, int C, const ResizeComputed& r) {
  const size_t pitch = size_t(out_w) * size_t(C) * elem;
  for (int y = 0; y < out_h; ++y) {
    uint8_t* row = out + size_t(y) * pitch;
    if (y < r.rows.begin || y >= r.rows.end || r.cols.begin >= r.cols.end) {
      std::memset(row, 0, pitch);
      continue;
    }
    std::memset(row, 0, size_t(r.cols.begin) * size_t(C) * elem);
    std::memset(row + size_t(r.cols.end) * size_t(C) * elem, 0, size_t(out_w - r.cols.end) * size_t(C) * elem);
  }
}

template <typename TIn, typename TOut>
ResizeComputed WindowImpl(const TIn* in, int in_h, int in_w, int C, const ResizeInputWindow& win, TOut* out, int out_h,
                          int out_w, const ResizeParams& p) {
  if (in_h <= 0 || in_w <= 0 || out_h <= 0 || out_w <= 0)
    throw Error("resize: empty extent (in " + std::to_string(in_h) + "x" + std::to_string(in_w) + ", out " +
                std::to_string(out_h) + "x" + std::to_string(out_w) + ")");
  if (C < 1 || C > 4) throw Error("resize: channels must be 1..4, got " + std::to_string(C));
  if (win.x < 0 || win.y < 0 || win.x + in_w > win.full_w || win.y + in_h > win.full_h)
    throw Error("resize: input window (x " + std::to_string(win.x) + ", y " + std::to_string(win.y) + ", " +
                std::to_string(in_w) + "x" + std::to_string(in_h) + ") does not fit in the " + std::to_string(win.full_w) +
                "x" + std::to_string(win.full_h) + " image");
  const ResizeRoi roi = p.roi.value_or(ResizeRoi{0.f, 0.f, float(win.full_w), float(win.full_h)});
  if (roi.x0 == roi.x1 || roi.y0 == roi.y1 || !std::isfinite(roi.x0) || !std::isfinite(roi.x1) ||
      !std::isfinite(roi.y0) || !std::isfinite(roi.y1))
    throw Error("resize: degenerate ROI");
  ResizeScratch& s = GetScratch();
  ComputeAxisCoeffs(win.full_w, roi.x0, roi.x1, out_w, p, &s.cx);
  ComputeAxisCoeffs(win.full_h, roi.y0, roi.y1, out_h, p, &s.cy);
  ResizeComputed r{InsideOutputs(s.cy, win.y, win.y + in_h), InsideOutputs(s.cx, win.x, win.x + in_w)};
  ZeroOutside(reinterpret_cast<uint8_t*>(out), sizeof(TOut), out_h, out_w, C, r);
  const int oh = r.rows.end - r.rows.begin, ow = r.cols.end - r.cols.begin;
  if (oh <= 0 || ow <= 0) return r;
  const int xt = s.cx.taps, yt = s.cy.taps, ne = ow * C;
  const size_t in_pitch = size_t(in_w) * size_t(C), out_pitch = size_t(out_w) * size_t(C);
  TOut* out0 = out + size_t(r.rows.begin) * out_pitch + size_t(r.cols.begin) * size_t(C);
  const int32_t* xs = s.cx.start.data() + r.cols.begin;
  const int32_t* ys = s.cy.start.data() + r.rows.begin;
  if (xt == 1 && yt == 1) {  // nearest (or copy) on both axes: a gather, converting like Resize
    for (int y = 0; y < oh; ++y) {
      const TIn* srow = in + size_t(ys[y] - win.y) * in_pitch;
      TOut* d = out0 + size_t(y) * out_pitch;
      for (int x = 0; x < ow; ++x) {
        const TIn* sp = srow + size_t(xs[x] - win.x) * size_t(C);
        for (int c = 0; c < C; ++c) {
          if constexpr (std::is_same_v<TIn, TOut>) d[x * C + c] = sp[c];
          else if constexpr (std::is_same_v<TOut, uint8_t>) d[x * C + c] = uint8_t(std::clamp(std::nearbyint(sp[c]), 0.f, 255.f));
          else d[x * C + c] = TOut(sp[c]);
        }
      }
    }
    return r;
  }
  // The rows of the window that the computed output rows read.
  const int row_first = std::min(ys[0], ys[oh - 1]);
  const int row_last = std::max(ys[0], ys[oh - 1]) + yt;
  const int rows = row_last - row_first;
  int32_t* offs = Grow(s.offs, size_t(ne));
  int32_t* ystart = Grow(s.ystart, size_t(oh));
  for (int x = 0; x < ow; ++x)
    for (int c = 0; c < C; ++c) offs[x * C + c] = (xs[x] - win.x) * C + c;
  for (int y = 0; y < oh; ++y) ystart[y] = ys[y] - row_first;

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
  for (int x = 0; x < ow; ++x)
    for (int k = 0; k < xt; ++k) {
      const TAcc w = conv(s.cx.weights[size_t(r.cols.begin + x) * size_t(xt) + size_t(k)]);
      for (int c = 0; c < C; ++c) xc[size_t(k) * size_t(ne) + size_t(x * C + c)] = w;
    }
  TAcc* yc = Grow(yc_v, size_t(yt) * size_t(oh));
  for (size_t i = 0; i < size_t(yt) * size_t(oh); ++i) yc[i] = conv(s.cy.weights[size_t(r.rows.begin) * size_t(yt) + i]);
  TMid* mid = Grow(mid_v, size_t(rows) * size_t(ne));
  TAcc* row = Grow(row_v, size_t(in_w) * size_t(C));
  Horz(HorzArgs<TIn, TAcc, TMid>{in + size_t(row_first - win.y) * in_pitch, in_pitch, in_w * C, rows, offs, xc, xt, C,
                                 ne, mid, size_t(ne), row,
                                 ReadRowMask(yc, ystart, yt, oh, rows, s.row_read)});
  Vert(VertArgs<TMid, TAcc, TOut>{mid, size_t(ne), ne, ystart, yc, yt, oh, out0, out_pitch});
  return r;
}

}  // namespace

Span ResizeSourceSpan(int in_size, double roi0, double roi1, int out_size, const ResizeParams& params, Span out) {
  if (out.end <= out.begin) return Span{0, 0};
  AxisCoeffs& c = GetScratch().cx;
  ComputeAxisCoeffs(in_size, roi0, roi1, out_size, params, &c);
  const int a = c.start[size_t(out.begin)], b = c.start[size_t(out.end - 1)];
  return Span{std::min(a, b), std::max(a, b) + c.taps};
}

ResizeComputed ResizeWindow(const uint8_t* in, int in_h, int in_w, int c, const ResizeInputWindow& w, uint8_t* out,
                            int out_h, int out_w, const ResizeParams& p) {
  return WindowImpl(in, in_h, in_w, c, w, out, out_h, out_w, p);
}
ResizeComputed ResizeWindow(const uint8_t* in, int in_h, int in_w, int c, const ResizeInputWindow& w, float* out,
                            int out_h, int out_w, const ResizeParams& p) {
  return WindowImpl(in, in_h, in_w, c, w, out, out_h, out_w, p);
}
ResizeComputed ResizeWindow(const float* in, int in_h, int in_w, int c, const ResizeInputWindow& w, float* out,
                            int out_h, int out_w, const ResizeParams& p) {
  return WindowImpl(in, in_h, in_w, c, w, out, out_h, out_w, p);
}
ResizeComputed ResizeWindow(const float* in, int in_h, int in_w, int c, const ResizeInputWindow& w, uint8_t* out,
                            int out_h, int out_w, const ResizeParams& p) {
  return WindowImpl(in, in_h, in_w, c, w, out, out_h, out_w, p);
}

}  // namespace sluice::kernels
