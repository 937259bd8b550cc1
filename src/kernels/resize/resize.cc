// Resize: the whole image's coefficient tables, then resize_block.h's passes (horizontal then
// vertical, Pillow's order; 22-bit fixed point for uint8 -> uint8, float otherwise) over the whole
// output.
#include "kernels/resize/resize.h"

#include "kernels/resize/resample_coeffs.h"
#include "kernels/resize/resize_block.h"
#include "kernels/resize/resize_scratch.h"

namespace sluice::kernels {
namespace {
using namespace resize_detail;

template <typename TIn, typename TOut>
void ResizeImpl(const TIn* in, int in_h, int in_w, int C, TOut* out, int out_h, int out_w, const ResizeParams& p) {
  CheckResizeExtents(in_h, in_w, C, out_h, out_w);
  const ResizeRoi roi = RoiOrWholeImage(p, in_w, in_h);
  ResizeScratch& s = GetScratch();
  ComputeAxisCoeffs(in_w, roi.x0, roi.x1, out_w, p, &s.cx, ResizeAxis::kWidth);
  ComputeAxisCoeffs(in_h, roi.y0, roi.y1, out_h, p, &s.cy, ResizeAxis::kHeightOrDepth);
  ResizeBlock(in, size_t(in_w) * size_t(C), in_w, C, 0, 0, Span{0, out_h}, Span{0, out_w}, out,
              size_t(out_w) * size_t(C), s);
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
void Resize(const int16_t* in, int in_h, int in_w, int c, int16_t* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}
void Resize(const int16_t* in, int in_h, int in_w, int c, float* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}
void Resize(const uint16_t* in, int in_h, int in_w, int c, uint16_t* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}
void Resize(const uint16_t* in, int in_h, int in_w, int c, float* out, int out_h, int out_w, const ResizeParams& p) {
  ResizeImpl(in, in_h, in_w, c, out, out_h, out_w, p);
}

}  // namespace sluice::kernels
