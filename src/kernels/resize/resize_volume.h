// Separable resampling of volumes (DHWC, 1..4 channels): the image resize (resize.h) of every depth
// slice the output needs, then a third pass over depth with the same filters and conventions:
//   - output slice k samples the source depth at z0 + (k + 0.5) * (z1 - z0) / out_d (z1 < z0 mirrors);
//   - the depth filter is chosen, widened (antialias) and renormalized at the volume's edges exactly
//     as the height and width filters (resample_coeffs.h's ComputeAxisCoeffs);
//   - the slices are resized into a float intermediate (no rounding between the passes); the depth
//     pass accumulates in float and rounds to nearest with saturation only for a uint8 output.
// So a volume of depth 1 resized to depth 1 equals Resize to a float output, rounded.
//
// Thread-safety: reentrant. The intermediate slices and the depth coefficients live in
// thread_local scratch that only grows (ReleaseResizeVolumeScratch frees it).
// Buffers: `in` holds in_d*in_h*in_w*channels elements, `out` out_d*out_h*out_w*channels; no overlap.
#pragma once
#include <cstdint>

#include "kernels/resize/resize.h"

namespace sluice::kernels {

// The depth part of the region of interest (pixel edges); params.roi holds height and width.
struct ResizeDepthRoi {
  double z0 = 0, z1 = 0;
};

// Throws sluice::Error for empty extents, channels outside 1..4 or a degenerate ROI.
void ResizeVolume(const uint8_t* in, int in_d, int in_h, int in_w, int channels, uint8_t* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);
void ResizeVolume(const uint8_t* in, int in_d, int in_h, int in_w, int channels, float* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);
void ResizeVolume(const float* in, int in_d, int in_h, int in_w, int channels, float* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);
void ResizeVolume(const float* in, int in_d, int in_h, int in_w, int channels, uint8_t* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);

// int16 and uint16 (to the same type, rounding half away from zero with saturation, or to float).
void ResizeVolume(const int16_t* in, int in_d, int in_h, int in_w, int channels, int16_t* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);
void ResizeVolume(const int16_t* in, int in_d, int in_h, int in_w, int channels, float* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);
void ResizeVolume(const uint16_t* in, int in_d, int in_h, int in_w, int channels, uint16_t* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);
void ResizeVolume(const uint16_t* in, int in_d, int in_h, int in_w, int channels, float* out, int out_d, int out_h,
                  int out_w, const ResizeParams& params, const ResizeDepthRoi& depth);
void ReleaseResizeVolumeScratch();

}  // namespace sluice::kernels
