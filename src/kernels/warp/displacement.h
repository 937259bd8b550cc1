// DALI's displacement augmentations `sphere` and `water` (dali/operators/image/remap/sphere.h,
// water.h, displacement_filter_impl_cpu.h): output pixel (x, y) takes the input at a point p given
// in DALI's corner convention (the image spans [0, W] x [0, H]), computed in float32 as DALI does:
//   - sphere: mid = (W / 2, H / 2) (float), d = (int) max(mid); t = (x + 0.5, y + 0.5) - mid;
//     p = mid + t * |t| / d;
//   - water: p = (x + ampl_x * sin(freq_x * y + phase_x), y + ampl_y * cos(freq_y * x + phase_y));
// then nearest takes pixel floor(p), linear blends the 2x2 pixels around p - 0.5 (float32 weights);
// outside the image the value is `fill` (linear: the taps outside read it). Integer outputs round to
// nearest even and saturate. Types uint8 and float32 (DALI's), HWC images, any channel count.
// Checked against DALI 2.4's CPU operators on a photograph (python/tests/test_displacement_ops.py).
// Thread-safety: reentrant. `in` and `out` must not overlap.
#pragma once
#include "kernels/filter/convolution.h"
#include "kernels/warp/warp_perspective.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

struct WaterParams {
  // freq: DALI's default, 2 pi / 128.
  float ampl_x = 10, ampl_y = 10, freq_x = 0.0490873852f, freq_y = 0.0490873852f, phase_x = 0, phase_y = 0;
};

// interp: kNearest or kLinear.
void Sphere(const void* in, void* out, DType type, const ImageGeom& geom, PerspectiveInterp interp, float fill);
void Water(const void* in, void* out, DType type, const ImageGeom& geom, const WaterParams& w, PerspectiveInterp interp,
           float fill);

}  // namespace sluice::kernels
