#include "kernels/crop_mirror_normalize/crop_mirror_normalize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/crop_mirror_normalize/crop_mirror_normalize_hwy.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

float PerChannel(std::span<const float> v, int c, float dflt) {
  if (v.empty()) return dflt;
  return v.size() == 1 ? v[0] : v[size_t(c)];
}

// Everything per call that does not depend on the row.
struct Prep {
  int C, Co, cw, ch;
  float a[4], b[4], fill[5];
  int xa, xb;  // output x range whose source column lies inside the image
  bool chw;
};

Prep Prepare(int W, int C, const CmnParams& p) {
  Prep r{};
  r.C = C;
  r.Co = CmnOutputChannels(p, C);
  r.cw = p.crop_w;
  r.ch = p.crop_h;
  r.chw = p.layout == CmnLayout::kCHW;
  const CmnCoefficients k = CmnNormalization(p, C);
  for (int c = 0; c < C; ++c) {
    r.a[c] = k.a[c];
    r.b[c] = k.b[c];
    r.fill[c] = k.fill[c];
  }
  r.fill[C] = 0.f;  // pad channel
  if (!p.mirror) {
    r.xa = std::clamp(-p.crop_x, 0, r.cw);
    r.xb = std::clamp(W - p.crop_x, r.xa, r.cw);
  } else {
    r.xa = std::clamp(p.crop_x + r.cw - W, 0, r.cw);
    r.xb = std::clamp(p.crop_x + r.cw, r.xa, r.cw);
  }
  return r;
}

// Computes output row y as float. CHW: dst is channel 0 of the row, planes `plane` apart.
// HWC: dst is the interleaved row.
template <typename TIn>
void FloatRow(const TIn* in, int H, int W, const Prep& r, const CmnParams& p, int y, float* dst, size_t plane) {
  const int C = r.C, Co = r.Co, cw = r.cw;
  auto at = [&](int x, int c) -> float& { return r.chw ? dst[size_t(c) * plane + size_t(x)] : dst[size_t(x) * size_t(Co) + size_t(c)]; };
  const int sy = p.crop_y + y;
  const bool row_in = sy >= 0 && sy < H;
  const int ra = row_in ? r.xa : cw, rb = row_in ? r.xb : cw;
  for (int x = 0; x < ra; ++x)
    for (int c = 0; c < Co; ++c) at(x, c) = r.fill[c];
  if (ra < rb) {
    const int sx0 = p.mirror ? p.crop_x + cw - 1 - ra : p.crop_x + ra;  // source of output ra
    (void)W;
    const TIn* src = in + (size_t(sy) * size_t(W) + size_t(sx0)) * size_t(C);
    const bool fused = std::is_same_v<TIn, uint8_t> && CmnFusedRows(DType::kUInt8, C, p);
    if (fused && r.chw) {
      float* o = &at(ra, 0);
      cmn_detail::RowU8ToF32Planar3(reinterpret_cast<const uint8_t*>(src), p.mirror, rb - ra, r.a, r.b, o, o + plane,
                                    o + 2 * plane);
      if (Co > C) std::fill(o + 3 * plane, o + 3 * plane + (rb - ra), 0.f);
    } else if (fused) {  // HWC, no pad channel
      cmn_detail::RowU8ToF32Interleaved3(reinterpret_cast<const uint8_t*>(src), p.mirror, rb - ra, r.a, r.b,
                                         &at(ra, 0));
    } else {
      const ptrdiff_t step = p.mirror ? -C : C;
      for (int x = ra; x < rb; ++x, src += step) {
        for (int c = 0; c < C; ++c) at(x, c) = float(src[c]) * r.a[c] + r.b[c];
        if (Co > C) at(x, C) = 0.f;
      }
    }
  }
  for (int x = rb; x < cw; ++x)
    for (int c = 0; c < Co; ++c) at(x, c) = r.fill[c];
}

template <typename TIn>
void CmnImpl(const TIn* in, int H, int W, int C, const CmnParams& p, DType t, void* out) {
  const Prep r = Prepare(W, C, p);
  const size_t cw = size_t(r.cw), plane = cw * size_t(r.ch), row = cw * size_t(r.Co);
  if (t == DType::kFloat32) {
    float* o = static_cast<float*>(out);
    for (int y = 0; y < r.ch; ++y) FloatRow(in, H, W, r, p, y, r.chw ? o + size_t(y) * cw : o + size_t(y) * row, plane);
    return;
  }
  // Other output types: one float row in per-thread scratch (grows only), then a vectorized
  // round/saturate/convert into place.
  thread_local std::vector<float> scratch;
  if (scratch.size() < row) scratch.resize(row);
  float* tmp = scratch.data();
  auto* o = static_cast<uint8_t*>(out);
  const size_t es = SizeOf(t);
  for (int y = 0; y < r.ch; ++y) {
    FloatRow(in, H, W, r, p, y, tmp, cw);
    if (r.chw) {
      for (int c = 0; c < r.Co; ++c)
        cmn_detail::ConvertFloatRow(tmp + size_t(c) * cw, cw, t, o + (size_t(c) * plane + size_t(y) * cw) * es);
    } else {
      cmn_detail::ConvertFloatRow(tmp, row, t, o + size_t(y) * row * es);
    }
  }
}

template <typename TIn>
void Dispatch(const TIn* in, int H, int W, int C, const CmnParams& p, DType t, void* out) {
  if (H <= 0 || W <= 0 || C < 1 || C > 4)
    throw Error("crop_mirror_normalize: invalid input shape " + std::to_string(H) + "x" + std::to_string(W) + "x" +
                std::to_string(C));
  if (p.crop_w <= 0 || p.crop_h <= 0) throw Error("crop_mirror_normalize: crop extents must be positive");
  switch (t) {
    case DType::kFloat32: case DType::kFloat16: case DType::kUInt8: case DType::kInt8:
      return CmnImpl(in, H, W, C, p, t, out);
    default: throw Error(std::string("crop_mirror_normalize: unsupported output type ") + std::string(ToString(t)));
  }
}

}  // namespace

CmnCoefficients CmnNormalization(const CmnParams& p, int C) {
  CmnCoefficients k;
  for (int c = 0; c < C; ++c) {
    k.a[c] = p.scale / PerChannel(p.stddev, c, 1.f);
    k.b[c] = p.shift - PerChannel(p.mean, c, 0.f) * k.a[c];
    k.fill[c] = PerChannel(p.fill_values, c, 0.f);
  }
  return k;
}

bool CmnFusedRows(DType in_type, int channels, const CmnParams& p) {
  return in_type == DType::kUInt8 && channels == 3 && (p.layout == CmnLayout::kCHW || !p.pad_output);
}

int CmnOutputChannels(const CmnParams& p, int channels) { return channels + (p.pad_output ? 1 : 0); }

size_t CmnOutputElements(const CmnParams& p, int channels) {
  return size_t(std::max(p.crop_w, 0)) * size_t(std::max(p.crop_h, 0)) * size_t(CmnOutputChannels(p, channels));
}

void CropMirrorNormalize(const uint8_t* in, int H, int W, int C, const CmnParams& p, DType t, void* out) {
  Dispatch(in, H, W, C, p, t, out);
}
void CropMirrorNormalize(const float* in, int H, int W, int C, const CmnParams& p, DType t, void* out) {
  Dispatch(in, H, W, C, p, t, out);
}

}  // namespace sluice::kernels
