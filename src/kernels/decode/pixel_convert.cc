#include "kernels/decode/pixel_convert.h"

#include <cstring>
#include <utility>

#include "sluice/error.h"

namespace sluice::kernels::decode_detail {
namespace {

// libjpeg's jccolor.c constants (SCALEBITS = 16), so conversions agree with libjpeg's own.
constexpr int kYR = 19595, kYG = 38470, kYB = 7471;
constexpr int kCbR = -11059, kCbG = -21709, kCbB = 32768;
constexpr int kCrR = 32768, kCrG = -27439, kCrB = -5329;

inline uint8_t Luma(int r, int g, int b) { return uint8_t((kYR * r + kYG * g + kYB * b + 32768) >> 16); }
inline uint8_t Mul255(int a, int b) {  // round(a*b/255), exact for all 8-bit inputs
  int t = a * b + 128;
  return uint8_t((t + (t >> 8)) >> 8);
}

template <Layout S>
inline void Load(const uint8_t* p, int& r, int& g, int& b, int& a) {
  if constexpr (S == Layout::kGray) { r = g = b = p[0]; a = 255; }
  else if constexpr (S == Layout::kGrayAlpha) { r = g = b = p[0]; a = p[1]; }
  else if constexpr (S == Layout::kRGB) { r = p[0]; g = p[1]; b = p[2]; a = 255; }
  else if constexpr (S == Layout::kRGBA) { r = p[0]; g = p[1]; b = p[2]; a = p[3]; }
  else if constexpr (S == Layout::kBGR) { b = p[0]; g = p[1]; r = p[2]; a = 255; }
  else if constexpr (S == Layout::kCMYK) {  // plain CMYK: 0 = no ink
    int k = 255 - p[3];
    r = Mul255(255 - p[0], k); g = Mul255(255 - p[1], k); b = Mul255(255 - p[2], k); a = 255;
  } else if constexpr (S == Layout::kCMYKInverted) {  // Adobe: stored values are 255 - ink
    r = Mul255(p[0], p[3]); g = Mul255(p[1], p[3]); b = Mul255(p[2], p[3]); a = 255;
  } else {
    static_assert(S != S, "unsupported source layout");
  }
}

template <Layout D>
inline void Store(uint8_t* p, int r, int g, int b, int a) {
  if constexpr (D == Layout::kGray) { p[0] = (r == g && g == b) ? uint8_t(r) : Luma(r, g, b); }
  else if constexpr (D == Layout::kGrayAlpha) { p[0] = (r == g && g == b) ? uint8_t(r) : Luma(r, g, b); p[1] = uint8_t(a); }
  else if constexpr (D == Layout::kRGB) { p[0] = uint8_t(r); p[1] = uint8_t(g); p[2] = uint8_t(b); }
  else if constexpr (D == Layout::kRGBA) { p[0] = uint8_t(r); p[1] = uint8_t(g); p[2] = uint8_t(b); p[3] = uint8_t(a); }
  else if constexpr (D == Layout::kBGR) { p[0] = uint8_t(b); p[1] = uint8_t(g); p[2] = uint8_t(r); }
  else if constexpr (D == Layout::kYCbCr) {
    p[0] = Luma(r, g, b);
    p[1] = uint8_t((kCbR * r + kCbG * g + kCbB * b + (128 << 16) + 32767) >> 16);
    p[2] = uint8_t((kCrR * r + kCrG * g + kCrB * b + (128 << 16) + 32767) >> 16);
  } else {
    static_assert(D != D, "unsupported destination layout");
  }
}

template <Layout S, Layout D>
void ConvertT(const uint8_t* src, uint8_t* dst, size_t n) {
  constexpr int sc = S == Layout::kGray ? 1 : S == Layout::kGrayAlpha ? 2
                   : (S == Layout::kRGBA || S == Layout::kCMYK || S == Layout::kCMYKInverted) ? 4 : 3;
  constexpr int dc = D == Layout::kGray ? 1 : D == Layout::kGrayAlpha ? 2 : D == Layout::kRGBA ? 4 : 3;
  for (size_t i = 0; i < n; ++i, src += sc, dst += dc) {
    int r, g, b, a;
    Load<S>(src, r, g, b, a);
    Store<D>(dst, r, g, b, a);
  }
}

template <Layout S>
void ConvertFrom(const uint8_t* src, uint8_t* dst, Layout d, size_t n) {
  switch (d) {
    case Layout::kGray: return ConvertT<S, Layout::kGray>(src, dst, n);
    case Layout::kGrayAlpha: return ConvertT<S, Layout::kGrayAlpha>(src, dst, n);
    case Layout::kRGB: return ConvertT<S, Layout::kRGB>(src, dst, n);
    case Layout::kRGBA: return ConvertT<S, Layout::kRGBA>(src, dst, n);
    case Layout::kBGR: return ConvertT<S, Layout::kBGR>(src, dst, n);
    case Layout::kYCbCr: return ConvertT<S, Layout::kYCbCr>(src, dst, n);
    default: throw Error("internal: unsupported pixel conversion target");
  }
}

}  // namespace

int Channels(Layout l) {
  switch (l) {
    case Layout::kGray: return 1;
    case Layout::kGrayAlpha: return 2;
    case Layout::kRGBA: case Layout::kCMYK: case Layout::kCMYKInverted: return 4;
    default: return 3;
  }
}

Layout OutputLayout(OutputColor out, int native_channels) {
  switch (out) {
    case OutputColor::kRGB: return Layout::kRGB;
    case OutputColor::kBGR: return Layout::kBGR;
    case OutputColor::kGray: return Layout::kGray;
    case OutputColor::kYCbCr: return Layout::kYCbCr;
    case OutputColor::kAnyData: break;
  }
  switch (native_channels) {
    case 1: return Layout::kGray;
    case 2: return Layout::kGrayAlpha;
    case 4: return Layout::kRGBA;
    default: return Layout::kRGB;
  }
}

void ConvertPixels(const uint8_t* src, Layout s, uint8_t* dst, Layout d, size_t n) {
  if (s == d) {
    std::memcpy(dst, src, n * size_t(Channels(s)));
    return;
  }
  switch (s) {
    case Layout::kGray: return ConvertFrom<Layout::kGray>(src, dst, d, n);
    case Layout::kGrayAlpha: return ConvertFrom<Layout::kGrayAlpha>(src, dst, d, n);
    case Layout::kRGB: return ConvertFrom<Layout::kRGB>(src, dst, d, n);
    case Layout::kRGBA: return ConvertFrom<Layout::kRGBA>(src, dst, d, n);
    case Layout::kBGR: return ConvertFrom<Layout::kBGR>(src, dst, d, n);
    case Layout::kCMYK: return ConvertFrom<Layout::kCMYK>(src, dst, d, n);
    case Layout::kCMYKInverted: return ConvertFrom<Layout::kCMYKInverted>(src, dst, d, n);
    default: throw Error("internal: unsupported pixel conversion source");
  }
}

namespace {
template <int C>
void OrientT(const uint8_t* src, int h, int w, int cc, int o, uint8_t* dst) {
  const int c = C > 0 ? C : cc;
  const bool swap = o >= 5;
  const int ow = swap ? h : w, oh = swap ? w : h;
  const ptrdiff_t px = c, row = ptrdiff_t(w) * c;
  for (int oy = 0; oy < oh; ++oy) {
    // Source of (0, oy) and the source step per output x, from the table in the header.
    int sx, sy;
    ptrdiff_t step;
    switch (o) {
      case 2: sx = w - 1; sy = oy; step = -px; break;
      case 3: sx = w - 1; sy = h - 1 - oy; step = -px; break;
      case 4: sx = 0; sy = h - 1 - oy; step = px; break;
      case 5: sx = oy; sy = 0; step = row; break;
      case 6: sx = oy; sy = h - 1; step = -row; break;
      case 7: sx = w - 1 - oy; sy = h - 1; step = -row; break;
      case 8: sx = w - 1 - oy; sy = 0; step = row; break;
      default: sx = 0; sy = oy; step = px; break;
    }
    const uint8_t* s = src + ptrdiff_t(sy) * row + ptrdiff_t(sx) * px;
    uint8_t* d = dst + ptrdiff_t(oy) * ow * c;
    for (int ox = 0; ox < ow; ++ox, s += step, d += c)
      for (int k = 0; k < c; ++k) d[k] = s[k];
  }
}
}  // namespace

void ApplyOrientation(const uint8_t* src, int h, int w, int c, int o, uint8_t* dst) {
  if (o < 1 || o > 8) o = 1;
  switch (c) {
    case 1: return OrientT<1>(src, h, w, c, o, dst);
    case 3: return OrientT<3>(src, h, w, c, o, dst);
    case 4: return OrientT<4>(src, h, w, c, o, dst);
    default: return OrientT<0>(src, h, w, c, o, dst);
  }
}

CropWindow OrientedToStored(const CropWindow& r, int W, int H, int o) {
  switch (o) {
    case 2: return {W - (r.x + r.w), r.y, r.w, r.h};
    case 3: return {W - (r.x + r.w), H - (r.y + r.h), r.w, r.h};
    case 4: return {r.x, H - (r.y + r.h), r.w, r.h};
    case 5: return {r.y, r.x, r.h, r.w};
    case 6: return {r.y, H - (r.x + r.w), r.h, r.w};
    case 7: return {W - (r.y + r.h), H - (r.x + r.w), r.h, r.w};
    case 8: return {W - (r.y + r.h), r.x, r.h, r.w};
    default: return r;
  }
}

namespace {
// Grows only; freed at thread exit or by ReleaseDecodeScratch. Slots: 0 = full native image or
// un-oriented window, 1 = JPEG row batch.
std::vector<uint8_t>* ScratchBuffers() {
  thread_local std::vector<uint8_t> buffers[2];
  return buffers;
}
}  // namespace

uint8_t* Scratch(int slot, size_t bytes) {
  auto& b = ScratchBuffers()[slot];
  if (b.size() < bytes) {
    b.clear();
    b.shrink_to_fit();
    b.resize(bytes);
  }
  return b.data();
}

}  // namespace sluice::kernels::decode_detail

namespace sluice::kernels {
void ReleaseDecodeScratch() {
  for (int i = 0; i < 2; ++i) std::vector<uint8_t>().swap(decode_detail::ScratchBuffers()[i]);
}
}  // namespace sluice::kernels
