#include "kernels/resize/resize_volume.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/resize/resample_coeffs.h"
#include "kernels/tensor/cast.h"
#include "kernels/tensor/saturate_cast.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {
using namespace resize_detail;

struct VolumeScratch {
  AxisCoeffs cz;
  std::vector<float> slices;  // the resized input slices [cz.first, cz.last), out_h*out_w*C each
  std::vector<float> acc;     // one output slice
};

VolumeScratch& Scratch() {
  thread_local VolumeScratch s;
  return s;
}

template <typename TIn, typename TOut>
void ResizeVolumeImpl(const TIn* in, int in_d, int in_h, int in_w, int C, TOut* out, int out_d, int out_h, int out_w,
                      const ResizeParams& p, const ResizeDepthRoi& depth) {
  if (in_d <= 0 || out_d <= 0)
    throw Error("resize: empty depth (in " + std::to_string(in_d) + ", out " + std::to_string(out_d) + ")");
  if (depth.z0 == depth.z1 || !std::isfinite(depth.z0) || !std::isfinite(depth.z1))
    throw Error("resize: degenerate ROI in depth");
  VolumeScratch& s = Scratch();
  ComputeAxisCoeffs(in_d, depth.z0, depth.z1, out_d, p, &s.cz, ResizeAxis::kHeightOrDepth);
  const size_t in_slice = size_t(in_h) * size_t(in_w) * size_t(C);
  const size_t out_slice = size_t(out_h) * size_t(out_w) * size_t(C);
  // The source slices with a non-zero weight in some output slice.
  const int taps = s.cz.taps;
  int first = in_d, last = 0;
  for (int k = 0; k < out_d; ++k)
    for (int t = 0; t < taps; ++t)
      if (s.cz.weights[size_t(k) * size_t(taps) + size_t(t)] != 0.0) {
        first = std::min(first, s.cz.start[size_t(k)] + t);
        last = std::max(last, s.cz.start[size_t(k)] + t + 1);
      }
  const int used = std::max(0, last - first);
  if (s.slices.size() < size_t(used) * out_slice) s.slices.resize(size_t(used) * out_slice);
  if (s.acc.size() < out_slice) s.acc.resize(out_slice);
  // Height and width: every source slice some output slice reads, into float.
  for (int z = 0; z < used; ++z)
    Resize(in + size_t(first + z) * in_slice, in_h, in_w, C, s.slices.data() + size_t(z) * out_slice, out_h, out_w, p);
  // Depth: out[k] = sum_t w[k][t] * slice[start[k] + t] (taps of weight 0 are skipped).
  for (int k = 0; k < out_d; ++k) {
    float* acc = s.acc.data();
    for (size_t e = 0; e < out_slice; ++e) acc[e] = 0.0f;
    for (int t = 0; t < taps; ++t) {
      const float w = static_cast<float>(s.cz.weights[size_t(k) * size_t(taps) + size_t(t)]);
      if (w == 0.0f) continue;
      const float* src = s.slices.data() + size_t(s.cz.start[size_t(k)] + t - first) * out_slice;
      for (size_t e = 0; e < out_slice; ++e) acc[e] += w * src[e];
    }
    TOut* dst = out + size_t(k) * out_slice;
    if constexpr (sizeof(TOut) == 2) {  // DALI's rounding for its 16-bit resize types
      for (size_t e = 0; e < out_slice; ++e) dst[e] = SaturateArithmetic<TOut, float, Rounding::kTiesAway>(acc[e]);
    } else {
      for (size_t e = 0; e < out_slice; ++e) dst[e] = ConvertSaturate<TOut>(acc[e]);
    }
  }
}

}  // namespace

void ReleaseResizeVolumeScratch() { Scratch() = VolumeScratch{}; }

void ResizeVolume(const uint8_t* in, int in_d, int in_h, int in_w, int c, uint8_t* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}
void ResizeVolume(const uint8_t* in, int in_d, int in_h, int in_w, int c, float* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}
void ResizeVolume(const float* in, int in_d, int in_h, int in_w, int c, float* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}
void ResizeVolume(const float* in, int in_d, int in_h, int in_w, int c, uint8_t* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}

void ResizeVolume(const int16_t* in, int in_d, int in_h, int in_w, int c, int16_t* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}
void ResizeVolume(const int16_t* in, int in_d, int in_h, int in_w, int c, float* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}
void ResizeVolume(const uint16_t* in, int in_d, int in_h, int in_w, int c, uint16_t* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}
void ResizeVolume(const uint16_t* in, int in_d, int in_h, int in_w, int c, float* out, int out_d, int out_h, int out_w,
                  const ResizeParams& p, const ResizeDepthRoi& z) {
  ResizeVolumeImpl(in, in_d, in_h, in_w, c, out, out_d, out_h, out_w, p, z);
}
}  // namespace sluice::kernels
