#include "operators/resize/resize_sample.h"

#include <vector>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "kernels/tensor/transpose.h"
#include "operators/resize/resize_types.h"

namespace sluice {
namespace {

// uint8 -> uint8 with 3 planes: the interleaved kernel's horizontal pass has a SIMD path for RGB
// (resize_horz_c3.h) that 1-channel planes do not get, and it outweighs interleaving the planes
// into thread-local scratch and back (benchmarks/channel_first_resize.py: a 480x640 -> 224x224
// CHW image 2.3x slower plane by plane). The result is the HWC resize's, transposed.
void ResizeRgbPlanes(const uint8_t* in, const ResizeSamplePlan& p, uint8_t* out) {
  const size_t in_plane = size_t(p.in_h) * size_t(p.in_w), out_plane = size_t(p.out_h) * size_t(p.out_w);
  thread_local std::vector<uint8_t> src, dst;
  if (src.size() < 3 * in_plane) src.resize(3 * in_plane);
  if (dst.size() < 3 * out_plane) dst.resize(3 * out_plane);
  const int64_t in_chw[3] = {3, p.in_h, p.in_w}, out_hwc[3] = {p.out_h, p.out_w, 3};
  const int to_hwc[3] = {1, 2, 0}, to_chw[3] = {2, 0, 1};
  kernels::Transpose(in, src.data(), in_chw, to_hwc, 1);
  kernels::Resize(src.data(), p.in_h, p.in_w, 3, dst.data(), p.out_h, p.out_w, p.params);
  kernels::Transpose(dst.data(), out, out_hwc, to_chw, 1);
}

}  // namespace

void ResizePlanes(const void* in, DType in_type, const ResizeSamplePlan& p, void* out, DType out_type) {
  if (in_type == DType::kUInt8 && out_type == DType::kUInt8 && p.channels == 3)
    return ResizeRgbPlanes(static_cast<const uint8_t*>(in), p, static_cast<uint8_t*>(out));
  const size_t in_plane = size_t(p.in_h) * size_t(p.in_w), out_plane = size_t(p.out_h) * size_t(p.out_w);
  VisitResizeTypes(in, in_type, out, out_type, [&](const auto* src, auto* dst) {
    for (int c = 0; c < p.channels; ++c)
      kernels::Resize(src + size_t(c) * in_plane, p.in_h, p.in_w, 1, dst + size_t(c) * out_plane, p.out_h, p.out_w,
                      p.params);
  });
}

void ResizeVolumeSample(const void* in, DType in_type, const ResizeVolumeSamplePlan& p, bool channels_first, void* out,
                        DType out_type) {
  const size_t in_vol = size_t(p.in_d) * size_t(p.in_h) * size_t(p.in_w);
  const size_t out_vol = size_t(p.out_d) * size_t(p.out_h) * size_t(p.out_w);
  VisitResizeTypes(in, in_type, out, out_type, [&](const auto* src, auto* dst) {
    if (!channels_first)
      return kernels::ResizeVolume(src, p.in_d, p.in_h, p.in_w, p.channels, dst, p.out_d, p.out_h, p.out_w, p.params,
                                   p.depth);
    for (int c = 0; c < p.channels; ++c)
      kernels::ResizeVolume(src + size_t(c) * in_vol, p.in_d, p.in_h, p.in_w, 1, dst + size_t(c) * out_vol, p.out_d,
                            p.out_h, p.out_w, p.params, p.depth);
  });
}

}  // namespace sluice
