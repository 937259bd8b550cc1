#include "operators/crop_mirror_normalize/crop_mirror_normalize_volume.h"

#include <cstring>
#include <vector>

namespace sluice {

void RunCmnVolume(const void* in, DType in_type, const CmnSamplePlan& p, bool cdhw, DType out_type, void* out) {
  const size_t es = SizeOf(out_type);
  const size_t plane = size_t(p.params.crop_h) * size_t(p.params.crop_w);
  const size_t slice_elems = plane * size_t(p.out_channels);
  const size_t in_slice = size_t(p.in_h) * size_t(p.in_w) * size_t(p.channels);
  auto* dst_base = static_cast<uint8_t*>(out);
  thread_local std::vector<uint8_t> scratch;
  if (cdhw && scratch.size() < slice_elems * es) scratch.resize(slice_elems * es);
  for (int k = 0; k < p.d; ++k) {
    const int sz = p.z + k;
    const bool outside = sz < 0 || sz >= p.in_d;
    kernels::CmnParams params = p.params;
    if (outside) params.crop_y = p.in_h;  // the window wholly below the slice: fill_values
    const size_t src = size_t(outside ? 0 : sz) * in_slice;
    uint8_t* dst = cdhw ? scratch.data() : dst_base + size_t(k) * slice_elems * es;
    if (in_type == DType::kUInt8)
      kernels::CropMirrorNormalize(static_cast<const uint8_t*>(in) + src, p.in_h, p.in_w, p.channels, params, out_type,
                                   dst);
    else
      kernels::CropMirrorNormalize(static_cast<const float*>(in) + src, p.in_h, p.in_w, p.channels, params, out_type,
                                   dst);
    if (cdhw)
      for (int c = 0; c < p.out_channels; ++c)
        std::memcpy(dst_base + (size_t(c) * size_t(p.d) + size_t(k)) * plane * es, scratch.data() + size_t(c) * plane * es,
                    plane * es);
  }
}

}  // namespace sluice
