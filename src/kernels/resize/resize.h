// Separable image resampling (HWC, 1..4 channels) with Pillow-compatible conventions:
//   - output pixel i samples the source at roi_start + (i + 0.5) * scale, scale = roi_extent / out_extent;
//   - filter weights are evaluated in double, normalized to sum 1 over the source pixels inside the
//     image (no edge replication: out-of-image taps are dropped and the rest renormalized);
//   - antialiasing: when downscaling, the filter support widens by the scale (Pillow's "filterscale");
//   - uint8 -> uint8 uses Pillow's 22-bit fixed-point coefficients, horizontal pass first into a
//     uint8 intermediate, rounding and clamping like Pillow (results match Pillow's Image.resize
//     bit for bit in our tests for BILINEAR/BICUBIC/LANCZOS, and NEAREST exactly);
//   - float input or output uses float coefficients and a float intermediate (rounding to nearest
//     with saturation only when the output is uint8);
//   - int16 and uint16 (DALI's other resize types: to the same type or to float) use the float
//     path; a 16-bit output rounds half away from zero and saturates (DALI's ConvertSat). NEAREST
//     copies the source values.
//
// Thread-safety: reentrant. Coefficient tables and the intermediate image live in thread_local
// scratch buffers that only grow (freed at thread exit); no other allocation per call.
// Buffers: `in` holds in_h*in_w*channels elements, rows packed; `out` holds out_h*out_w*channels.
#pragma once
#include <cstdint>
#include <optional>

namespace sluice::kernels {

enum class ResizeFilter : uint8_t {
  kNearest,     // Pillow NEAREST: source floor(roi_start + (i + 0.5) * scale), clamped
  kLinear,      // triangle, support 1 (widened when downscaling only if antialias)
  kCubic,       // Keys cubic a = -0.5, support 2 (Pillow BICUBIC)
  kLanczos3,    // sinc(x) sinc(x/3), support 3 (Pillow LANCZOS)
  kTriangular,  // triangle that always widens when downscaling (DALI TRIANGULAR = Pillow BILINEAR)
  kGaussian,    // exp(-2 x^2) (sigma 0.5), support 1.5; always widens when downscaling
};

// Source-space window (pixel edges, not centers). x1 < x0 (or y1 < y0) mirrors that axis.
struct ResizeRoi {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct ResizeParams {
  ResizeFilter min_filter = ResizeFilter::kLinear;  // used on an axis that shrinks
  ResizeFilter mag_filter = ResizeFilter::kLinear;  // used on an axis that grows or keeps its size
  bool antialias = true;                            // widen LINEAR/CUBIC/LANCZOS when shrinking
  std::optional<ResizeRoi> roi;                     // default: the whole image
  // NEAREST's source positions as DALI's CPU resampling computes them (what the operators use), in
  // float32 with scale = (roi end - roi start) / out: along the width origin + (i + 0.5f) * scale,
  // along the height and depth a position accumulated from origin + 0.5f * scale (+= scale per
  // output), each floored and clamped. Where the exact position is an integer (a tie), float
  // rounding picks the pixel, as in DALI. false: Pillow's (a double accumulated along every axis).
  bool dali_nearest = false;
};

// Resizes in (in_h x in_w x channels) to out (out_h x out_w x channels). Throws sluice::Error for
// empty extents, channels outside 1..4, or a degenerate (zero-extent) ROI.
void Resize(const uint8_t* in, int in_h, int in_w, int channels, uint8_t* out, int out_h, int out_w,
            const ResizeParams& params);
void Resize(const uint8_t* in, int in_h, int in_w, int channels, float* out, int out_h, int out_w,
            const ResizeParams& params);
void Resize(const float* in, int in_h, int in_w, int channels, float* out, int out_h, int out_w,
            const ResizeParams& params);
void Resize(const float* in, int in_h, int in_w, int channels, uint8_t* out, int out_h, int out_w,
            const ResizeParams& params);
void Resize(const int16_t* in, int in_h, int in_w, int channels, int16_t* out, int out_h, int out_w,
            const ResizeParams& params);
void Resize(const int16_t* in, int in_h, int in_w, int channels, float* out, int out_h, int out_w,
            const ResizeParams& params);
void Resize(const uint16_t* in, int in_h, int in_w, int channels, uint16_t* out, int out_h, int out_w,
            const ResizeParams& params);
void Resize(const uint16_t* in, int in_h, int in_w, int channels, float* out, int out_h, int out_w,
            const ResizeParams& params);

// Frees this thread's resize scratch (coefficient tables and intermediate image).
void ReleaseResizeScratch();

}  // namespace sluice::kernels
