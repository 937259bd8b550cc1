#include "operators/crop_mirror_normalize/crop_mirror_normalize_planar.h"

#include <cstring>
#include <span>
#include <vector>

#include "operators/crop_mirror_normalize/crop_mirror_normalize_volume.h"

namespace sluice {
namespace {

// The value of channel c of a 1-or-C-value argument, as a 1-value span (empty stays empty).
std::span<const float> Channel(std::span<const float> v, int c) {
  if (v.empty()) return v;
  return v.subspan(v.size() == 1 ? 0 : size_t(c), 1);
}

// Writes `n` elements of `es` bytes from `plane` (nullptr: zeros) to channel c of an interleaved
// output of `channels` channels.
void Interleave(const uint8_t* plane, size_t n, size_t es, int c, int channels, uint8_t* out) {
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* s = reinterpret_cast<const T*>(plane);
    T* o = reinterpret_cast<T*>(out) + c;
    for (size_t j = 0; j < n; ++j) o[j * size_t(channels)] = s ? s[j] : zero;
  };
  if (es == 1) run(uint8_t{0});
  else if (es == 2) run(uint16_t{0});
  else run(uint32_t{0});
}

}  // namespace

void RunCmnPlanar(const void* in, DType in_type, const CmnSamplePlan& p, bool volume, bool out_channels_first,
                  DType out_type, void* out) {
  const size_t in_es = SizeOf(in_type), es = SizeOf(out_type);
  const size_t in_plane = size_t(p.in_d) * size_t(p.in_h) * size_t(p.in_w);
  const size_t out_plane = size_t(p.d) * size_t(p.params.crop_h) * size_t(p.params.crop_w);  // elements
  auto* dst_base = static_cast<uint8_t*>(out);
  thread_local std::vector<uint8_t> scratch;
  if (!out_channels_first && scratch.size() < out_plane * es) scratch.resize(out_plane * es);
  // One channel as a 1-channel sample: its own normalization and fill value, no pad channel.
  CmnSamplePlan one = p;
  one.channels = 1;
  one.out_channels = 1;
  one.params.pad_output = false;
  for (int c = 0; c < p.channels; ++c) {
    one.params.mean = Channel(p.params.mean, c);
    one.params.stddev = Channel(p.params.stddev, c);
    one.params.fill_values = Channel(p.params.fill_values, c);
    const auto* src = static_cast<const uint8_t*>(in) + size_t(c) * in_plane * in_es;
    uint8_t* dst = out_channels_first ? dst_base + size_t(c) * out_plane * es : scratch.data();
    if (volume)
      RunCmnVolume(src, in_type, one, /*cdhw=*/false, out_type, dst);  // 1 channel: DHW either way
    else if (in_type == DType::kUInt8)
      kernels::CropMirrorNormalize(src, p.in_h, p.in_w, 1, one.params, out_type, dst);
    else
      kernels::CropMirrorNormalize(reinterpret_cast<const float*>(src), p.in_h, p.in_w, 1, one.params, out_type, dst);
    if (!out_channels_first) Interleave(scratch.data(), out_plane, es, c, p.out_channels, dst_base);
  }
  if (p.out_channels > p.channels) {  // pad_output: the last channel is 0 (all-zero bytes in every out_type)
    if (out_channels_first) {
      std::memset(dst_base + size_t(p.channels) * out_plane * es, 0, out_plane * es);
    } else {
      Interleave(nullptr, out_plane, es, p.channels, p.out_channels, dst_base);
    }
  }
}

}  // namespace sluice
