// Windowed resize: Resize's coefficient tables for the full image, sliced to the outputs whose taps
// the window holds and offset into it; then Resize's own block resampling (resize_block.h).
#include "kernels/resize/resize_window.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/resize/resample_coeffs.h"
#include "kernels/resize/resize_block.h"
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
  CheckResizeExtents(in_h, in_w, C, out_h, out_w);
  if (win.x < 0 || win.y < 0 || win.x + in_w > win.full_w || win.y + in_h > win.full_h)
    throw Error("resize: input window (x " + std::to_string(win.x) + ", y " + std::to_string(win.y) + ", " +
                std::to_string(in_w) + "x" + std::to_string(in_h) + ") does not fit in the " + std::to_string(win.full_w) +
                "x" + std::to_string(win.full_h) + " image");
  const ResizeRoi roi = RoiOrWholeImage(p, win.full_w, win.full_h);
  ResizeScratch& s = GetScratch();
  ComputeAxisCoeffs(win.full_w, roi.x0, roi.x1, out_w, p, &s.cx, ResizeAxis::kWidth);
  ComputeAxisCoeffs(win.full_h, roi.y0, roi.y1, out_h, p, &s.cy, ResizeAxis::kHeightOrDepth);
  ResizeComputed r{InsideOutputs(s.cy, win.y, win.y + in_h), InsideOutputs(s.cx, win.x, win.x + in_w)};
  ZeroOutside(reinterpret_cast<uint8_t*>(out), sizeof(TOut), out_h, out_w, C, r);
  if (r.rows.end <= r.rows.begin || r.cols.end <= r.cols.begin) return r;
  const size_t out_pitch = size_t(out_w) * size_t(C);
  ResizeBlock(in, size_t(in_w) * size_t(C), in_w, C, win.x, win.y, r.rows, r.cols,
              out + size_t(r.rows.begin) * out_pitch + size_t(r.cols.begin) * size_t(C), out_pitch, s);
  return r;
}

}  // namespace

Span ResizeSourceSpan(int in_size, double roi0, double roi1, int out_size, const ResizeParams& params, Span out) {
  if (out.end <= out.begin) return Span{0, 0};
  // The axis is not known here. The two roles' tables differ only in DALI's nearest (a tie may
  // fall on either pixel): then the union of both spans, else one table serves.
  AxisCoeffs& c = GetScratch().cx;
  auto span_of = [&](ResizeAxis axis) {
    ComputeAxisCoeffs(in_size, roi0, roi1, out_size, params, &c, axis);
    const int a = c.start[size_t(out.begin)], b = c.start[size_t(out.end - 1)];
    return Span{std::min(a, b), std::max(a, b) + c.taps};
  };
  const Span width = span_of(ResizeAxis::kWidth);
  if (!params.dali_nearest) return width;
  const Span height = span_of(ResizeAxis::kHeightOrDepth);
  return Span{std::min(width.begin, height.begin), std::max(width.end, height.end)};
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
