// Resizing a window of an image as if the whole image were there (ROI decode, pipeline/roi_decode.h):
// the decoder produced only rows y..y+in_h and columns x..x+in_w of a full_h x full_w image, and
// the resize must give the pixels it would give from the whole image. Coordinates, output extents
// and every filter tap (Pillow's windows, edge renormalisation, the shared tap count) are computed
// for the full image by the same code as Resize (resample_coeffs.h), then offset into the window;
// so every output pixel whose taps lie inside the window is bit-identical to Resize's.
#pragma once
#include <cstdint>

#include "kernels/resize/resize.h"

namespace sluice::kernels {

// Where the buffer lies in the full image.
struct ResizeInputWindow {
  int y = 0, x = 0;           // offset of the buffer's first row and column
  int full_h = 0, full_w = 0; // the whole image
};

// An output span [begin, end) along one axis.
struct Span {
  int begin = 0, end = 0;
};

// The source span [first, last) of a full in_size axis that outputs [out.begin, out.end) of a
// resize of roi0..roi1 to out_size read, every tap included (zero-weight padding taps too: the
// kernel loads them). Empty output span: empty result.
Span ResizeSourceSpan(int in_size, double roi0, double roi1, int out_size, const ResizeParams& params, Span out);

// Resizes the window `in` (in_h x in_w x channels, rows packed) of the image described by `win`
// to out_h x out_w (the output of the full image; params.roi in full-image coordinates). Output
// pixels whose taps reach outside the window are set to 0; returns the rows and columns that were
// computed. Throws like Resize, and for a window that does not fit in the full image.
struct ResizeComputed {
  Span rows, cols;
};
ResizeComputed ResizeWindow(const uint8_t* in, int in_h, int in_w, int channels, const ResizeInputWindow& win,
                            uint8_t* out, int out_h, int out_w, const ResizeParams& params);
ResizeComputed ResizeWindow(const uint8_t* in, int in_h, int in_w, int channels, const ResizeInputWindow& win,
                            float* out, int out_h, int out_w, const ResizeParams& params);
ResizeComputed ResizeWindow(const float* in, int in_h, int in_w, int channels, const ResizeInputWindow& win,
                            float* out, int out_h, int out_w, const ResizeParams& params);
ResizeComputed ResizeWindow(const float* in, int in_h, int in_w, int channels, const ResizeInputWindow& win,
                            uint8_t* out, int out_h, int out_w, const ResizeParams& params);

}  // namespace sluice::kernels
