#include "operators/image/resize_sample.h"

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"

namespace sluice {
namespace {

// f(src, dst) with the typed pointers of in_type and out_type (each uint8 or float32).
template <typename F>
void Typed(const void* in, DType in_type, void* out, DType out_type, F&& f) {
  auto to = [&](const auto* src) {
    if (out_type == DType::kUInt8) f(src, static_cast<uint8_t*>(out));
    else f(src, static_cast<float*>(out));
  };
  if (in_type == DType::kUInt8) to(static_cast<const uint8_t*>(in));
  else to(static_cast<const float*>(in));
}

}  // namespace

void ResizePlanes(const void* in, DType in_type, const ResizeSamplePlan& p, void* out, DType out_type) {
  const size_t in_plane = size_t(p.in_h) * size_t(p.in_w), out_plane = size_t(p.out_h) * size_t(p.out_w);
  Typed(in, in_type, out, out_type, [&](const auto* src, auto* dst) {
    for (int c = 0; c < p.channels; ++c)
      kernels::Resize(src + size_t(c) * in_plane, p.in_h, p.in_w, 1, dst + size_t(c) * out_plane, p.out_h, p.out_w,
                      p.params);
  });
}

void ResizeVolumeSample(const void* in, DType in_type, const ResizeVolumeSamplePlan& p, bool channels_first, void* out,
                        DType out_type) {
  const size_t in_vol = size_t(p.in_d) * size_t(p.in_h) * size_t(p.in_w);
  const size_t out_vol = size_t(p.out_d) * size_t(p.out_h) * size_t(p.out_w);
  Typed(in, in_type, out, out_type, [&](const auto* src, auto* dst) {
    if (!channels_first)
      return kernels::ResizeVolume(src, p.in_d, p.in_h, p.in_w, p.channels, dst, p.out_d, p.out_h, p.out_w, p.params,
                                   p.depth);
    for (int c = 0; c < p.channels; ++c)
      kernels::ResizeVolume(src + size_t(c) * in_vol, p.in_d, p.in_h, p.in_w, 1, dst + size_t(c) * out_vol, p.out_d,
                            p.out_h, p.out_w, p.params, p.depth);
  });
}

}  // namespace sluice
