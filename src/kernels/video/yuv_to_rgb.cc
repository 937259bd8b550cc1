#include "kernels/video/yuv_to_rgb.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>

extern "C" {
#include <libavutil/pixfmt.h>
}

#include "kernels/video/yuv_to_rgb_hwy.h"

namespace sluice::kernels {

namespace {

// libswscale's ROUNDED_DIV (round half away from zero).
int64_t RoundedDiv(int64_t a, int64_t b) { return a >= 0 ? (a + (b >> 1)) / b : -((-a + (b >> 1)) / b); }

// The fixed-point BT.601 coefficients libswscale derives (yuv2rgb.c, ff_yuv2rgb_c_init_tables with
// ff_yuv2rgb_coeffs[SWS_CS_DEFAULT], brightness 0, contrast and saturation 1<<16): 13-bit
// multipliers and a 9-bit luma offset, each rounded to int16.
struct RgbCoeffs {
  int y, y_offset, v2r, v2g, u2g, u2b;
};

constexpr int RoundToInt16(int64_t f) {
  const int64_t r = (f + (int64_t{1} << 15)) >> 16;
  return static_cast<int>(r < -32768 ? -32768 : r > 32767 ? 32767 : r);
}

constexpr RgbCoeffs MakeCoeffs(bool full_range) {
  int64_t crv = 104597, cbu = 132201, cgu = -25675, cgv = -53279;  // ff_yuv2rgb_coeffs[5] (BT.601)
  int64_t cy = 1 << 16, oy = 0;
  if (!full_range) {
    cy = cy * 255 / 219;
    oy = int64_t{16} << 16;
  } else {  // C division truncates toward zero, as in libswscale
    crv = crv * 224 / 255;
    cbu = cbu * 224 / 255;
    cgu = cgu * 224 / 255;
    cgv = cgv * 224 / 255;
  }
  return {RoundToInt16(cy * (1 << 13)),  RoundToInt16(oy * (1 << 9)),  RoundToInt16(crv * (1 << 13)),
          RoundToInt16(cgv * (1 << 13)), RoundToInt16(cgu * (1 << 13)), RoundToInt16(cbu * (1 << 13))};
}

constexpr RgbCoeffs kLimited = MakeCoeffs(false), kFull = MakeCoeffs(true);

// av_clip_uintp2(a, 30) of an int32.
inline int32_t Clip30(int32_t a) {
  if (a & ~((1 << 30) - 1)) return (~a >> 31) & ((1 << 30) - 1);
  return a;
}

// yuv2rgb_write_full for RGB24: y, u, v in libswscale's 19-bit domain (8-bit value << 9, chroma
// centred on 0). The sums wrap at 32 bits as libswscale's unsigned arithmetic does.
inline void WriteRgb(int y, int u, int v, const RgbCoeffs& c, uint8_t* out) {
  const uint32_t yy = static_cast<uint32_t>((y - c.y_offset) * c.y + (1 << 21));
  const auto uu = static_cast<uint32_t>(u), vv = static_cast<uint32_t>(v);
  int32_t r = static_cast<int32_t>(yy + vv * static_cast<uint32_t>(c.v2r));
  int32_t g = static_cast<int32_t>(yy + vv * static_cast<uint32_t>(c.v2g) + uu * static_cast<uint32_t>(c.u2g));
  int32_t b = static_cast<int32_t>(yy + uu * static_cast<uint32_t>(c.u2b));
  if ((r | g | b) & static_cast<int32_t>(0xC0000000u)) {
    r = Clip30(r);
    g = Clip30(g);
    b = Clip30(b);
  }
  out[0] = static_cast<uint8_t>(r >> 22);
  out[1] = static_cast<uint8_t>(g >> 22);
  out[2] = static_cast<uint8_t>(b >> 22);
}

}  // namespace

bool YuvLayout::For(int fmt, YuvLayout* l) {
  switch (fmt) {
    case AV_PIX_FMT_YUV420P: *l = {1, 1, false}; return true;
    case AV_PIX_FMT_YUV422P: *l = {1, 0, false}; return true;
    case AV_PIX_FMT_YUV444P: *l = {0, 0, false}; return true;
    case AV_PIX_FMT_YUV440P: *l = {0, 1, false}; return true;
    case AV_PIX_FMT_YUV411P: *l = {2, 0, false}; return true;
    case AV_PIX_FMT_YUV410P: *l = {2, 2, false}; return true;
    case AV_PIX_FMT_YUVJ420P: *l = {1, 1, true}; return true;
    case AV_PIX_FMT_YUVJ422P: *l = {1, 0, true}; return true;
    case AV_PIX_FMT_YUVJ444P: *l = {0, 0, true}; return true;
    case AV_PIX_FMT_YUVJ440P: *l = {0, 1, true}; return true;
    case AV_PIX_FMT_YUVJ411P: *l = {2, 0, true}; return true;
    default: return false;
  }
}

// libswscale's initFilter (utils.c) for SWS_BILINEAR, chroma_len -> len samples, source and
// destination chroma positions centred (get_local_pos of the default -513: 128 in 1/256 sample
// units), then its filter reduction, border fixes and error-diffusing normalisation to `one`.
// The alignment libswscale pads filters to (4 horizontally, 2 vertically on x86) only adds zero
// taps; it is kept so that the border fix moves the same taps.
DaliYuvConverter::Filter DaliYuvConverter::Bilinear(int src_w, int dst_w, int log2_sub, int one) {
  const int align = one == (1 << 14) ? 4 : 2;
  const int64_t x_inc = ((static_cast<int64_t>(src_w) << 16) + (dst_w >> 1)) / dst_w;
  const int src_pos = (((128 << log2_sub) - 128) + 128) >> log2_sub, dst_pos = 128;
  const int ratio = src_w / dst_w;
  int log2_ratio = 0;
  while ((ratio >> (log2_ratio + 1)) > 0) ++log2_ratio;
  const int64_t fone = int64_t{1} << (54 - std::min(log2_ratio, 8));

  int size = 0;
  std::vector<int> pos(static_cast<size_t>(dst_w));
  std::vector<int64_t> taps;
  if (std::llabs(x_inc - 0x10000) < 10 && src_pos == dst_pos) {  // unscaled
    size = 1;
    taps.assign(static_cast<size_t>(dst_w), fone);
    for (int i = 0; i < dst_w; ++i) pos[static_cast<size_t>(i)] = i;
  } else {
    size = x_inc <= (1 << 16) ? 3 : 1 + static_cast<int>((2 * static_cast<int64_t>(src_w) + dst_w - 1) / dst_w);
    size = std::max(std::min(size, src_w - 2), 1);
    taps.assign(static_cast<size_t>(dst_w) * static_cast<size_t>(size), 0);
    int64_t x = ((dst_pos * x_inc) >> 7) - ((src_pos * int64_t{0x10000}) >> 7);
    for (int i = 0; i < dst_w; ++i) {
      const int64_t xx = (x - (size - 2) * (int64_t{1} << 16)) / (int64_t{1} << 17);  // truncates, as C
      pos[static_cast<size_t>(i)] = static_cast<int>(xx);
      for (int j = 0; j < size; ++j) {
        int64_t d = std::llabs((xx + j) * (int64_t{1} << 17) - x) << 13;
        if (x_inc > (1 << 16)) d = d * dst_w / src_w;
        const int64_t c = std::max<int64_t>((int64_t{1} << 30) - d, 0);
        taps[static_cast<size_t>(i * size + j)] = c * (fone >> 30);
      }
      x += 2 * x_inc;
    }
  }
  // Reduction, step 1: drop near-zero taps on the left (shifting), count them on the right.
  const double cutoff = 0.002 * static_cast<double>(fone);  // SWS_MAX_REDUCE_CUTOFF
  int min_size = 0;
  for (int i = dst_w - 1; i >= 0; --i) {
    int64_t* t = &taps[static_cast<size_t>(i * size)];
    int keep = size;
    int64_t cut = 0;
    for (int j = 0; j < size; ++j) {
      cut += std::llabs(t[0]);
      if (static_cast<double>(cut) > cutoff) break;
      if (i < dst_w - 1 && pos[static_cast<size_t>(i)] >= pos[static_cast<size_t>(i + 1)]) break;
      for (int k = 1; k < size; ++k) t[k - 1] = t[k];
      t[size - 1] = 0;
      ++pos[static_cast<size_t>(i)];
    }
    cut = 0;
    for (int j = size - 1; j > 0; --j) {
      cut += std::llabs(t[j]);
      if (static_cast<double>(cut) > cutoff) break;
      --keep;
    }
    min_size = std::max(min_size, keep);
  }
  int a = align;
  if (min_size == 1 && a == 2) a = 1;  // libswscale's special case for unscaled vertical filtering
  const int out_size = (min_size + a - 1) & ~(a - 1);
  std::vector<int64_t> f(static_cast<size_t>(dst_w) * static_cast<size_t>(out_size), 0);
  for (int i = 0; i < dst_w; ++i)
    for (int j = 0; j < out_size && j < size; ++j)
      f[static_cast<size_t>(i * out_size + j)] = taps[static_cast<size_t>(i * size + j)];
  // Border fixes: taps before the first sample fold onto it, taps past the last onto the last.
  for (int i = 0; i < dst_w; ++i) {
    int64_t* t = &f[static_cast<size_t>(i * out_size)];
    int& p = pos[static_cast<size_t>(i)];
    if (p < 0) {
      for (int j = 1; j < out_size; ++j) {
        const int left = std::max(j + p, 0);
        t[left] += t[j];
        t[j] = 0;
      }
      p = 0;
    }
    if (p + out_size > src_w) {
      const int shift = p + std::min(out_size - src_w, 0);
      int64_t acc = 0;
      for (int j = out_size - 1; j >= 0; --j)
        if (p + j >= src_w) {
          acc += t[j];
          t[j] = 0;
        }
      for (int j = out_size - 1; j >= 0; --j) t[j] = j < shift ? 0 : t[j - shift];
      p -= shift;
      t[src_w - 1 - p] += acc;
    }
  }
  Filter out;
  out.size = out_size;
  out.count.resize(static_cast<size_t>(dst_w));
  for (int i = 0; i < dst_w; ++i)  // taps past the source's end are zero after the border fix
    out.count[static_cast<size_t>(i)] = std::min(out_size, src_w - pos[static_cast<size_t>(i)]);
  out.pos = std::move(pos);
  out.coeff.resize(f.size());
  for (int i = 0; i < dst_w; ++i) {
    const int64_t* t = &f[static_cast<size_t>(i * out_size)];
    int64_t sum = 0;
    for (int j = 0; j < out_size; ++j) sum += t[j];
    sum = std::max<int64_t>((sum + one / 2) / one, 1);
    int64_t error = 0;
    for (int j = 0; j < out_size; ++j) {
      const int64_t v = t[j] + error;
      const int64_t iv = RoundedDiv(v, sum);
      out.coeff[static_cast<size_t>(i * out_size + j)] = static_cast<int>(iv);
      error = v - iv * sum;
    }
  }
  // The two-tap form: the non-zero taps of every position within two adjacent samples.
  out.two_tap = true;
  for (int i = 0; i < dst_w && out.two_tap; ++i) {
    const int* t = &out.coeff[static_cast<size_t>(i * out_size)];
    int a = 0;
    while (a < out_size - 1 && t[a] == 0) ++a;
    for (int j = a + 2; j < out_size; ++j) out.two_tap = out.two_tap && t[j] == 0;
    const int p = out.pos[static_cast<size_t>(i)] + a;
    out.p0.push_back(p);
    out.p1.push_back(std::min(p + 1, src_w - 1));
    out.c0.push_back(t[a]);
    out.c1.push_back(a + 1 < out_size && p + 1 < src_w ? t[a + 1] : 0);
  }
  out.sorted = true;
  for (size_t i = 0; i < out.p0.size(); ++i)
    out.sorted = out.sorted && out.p0[i] <= out.p1[i] &&
                 (i == 0 || (out.p0[i - 1] <= out.p0[i] && out.p1[i - 1] <= out.p1[i]));
  return out;
}

void DaliYuvConverter::Prepare(const YuvFrame& f, const YuvLayout& l) {
  if (f.width == width_ && f.height == height_ && l.log2_chroma_w == layout_.log2_chroma_w &&
      l.log2_chroma_h == layout_.log2_chroma_h)
    return;
  const int cw = -((-f.width) >> l.log2_chroma_w), ch = -((-f.height) >> l.log2_chroma_h);  // rounded up
  horizontal_ = Bilinear(cw, f.width, l.log2_chroma_w, 1 << 14);
  vertical_ = Bilinear(ch, f.height, l.log2_chroma_h, 1 << 12);
  width_ = f.width;
  height_ = f.height;
  layout_ = l;
}

void DaliYuvConverter::Convert(const YuvFrame& f, const YuvLayout& l, bool ycbcr, uint8_t* out) {
  Run(f, l, ycbcr, out, true);
}

void DaliYuvConverter::ConvertReference(const YuvFrame& f, const YuvLayout& l, bool ycbcr, uint8_t* out) {
  Run(f, l, ycbcr, out, false);
}

void DaliYuvConverter::Run(const YuvFrame& f, const YuvLayout& l, bool ycbcr, uint8_t* out, bool vector) {
  Prepare(f, l);
  const int w = f.width, h = f.height;
  const int ch = -((-h) >> l.log2_chroma_h);
  const size_t row = static_cast<size_t>(w);
  cb_.resize(static_cast<size_t>(ch) * row);
  cr_.resize(static_cast<size_t>(ch) * row);
  const int cw = -((-w) >> l.log2_chroma_w);
  // Slack past the line: a zero tap may index past it, and the vector rows load whole windows.
  wide_.resize(static_cast<size_t>(cw + horizontal_.size + 64));
  // Horizontal chroma pass (hScale8To15): 8-bit samples x 14-bit taps >> 7, capped at 15 bits.
  const Filter& hf = horizontal_;
  for (int c = 0; c < 2; ++c) {
    int16_t* dst = c == 0 ? cb_.data() : cr_.data();
    for (int y = 0; y < ch; ++y) {
      const uint8_t* src = f.plane[1 + c] + static_cast<std::ptrdiff_t>(y) * f.stride[1 + c];
      int16_t* d = dst + static_cast<size_t>(y) * row;
      if (hf.two_tap) {
        const int *p0 = hf.p0.data(), *p1 = hf.p1.data(), *c0 = hf.c0.data(), *c1 = hf.c1.data();
        int x = 0;
        if (vector) {  // gathered from the line widened to int32
          video_detail::WidenRow(src, static_cast<size_t>(cw), wide_.data());
          x = static_cast<int>(
              video_detail::ChromaRowTwoTap(wide_.data(), wide_.size(), p0, p1, c0, c1, hf.sorted, row, d));
        }
        for (; x < w; ++x)
          d[x] = static_cast<int16_t>(std::min((src[p0[x]] * c0[x] + src[p1[x]] * c1[x]) >> 7, (1 << 15) - 1));
        continue;
      }
      for (int x = 0; x < w; ++x) {
        const int* t = &hf.coeff[static_cast<size_t>(x * hf.size)];
        const uint8_t* s = src + hf.pos[static_cast<size_t>(x)];
        int sum = 0;
        for (int j = 0; j < hf.count[static_cast<size_t>(x)]; ++j) sum += s[j] * t[j];
        d[x] = static_cast<int16_t>(std::min(sum >> 7, (1 << 15) - 1));
      }
    }
  }
  // Vertical chroma pass fused with the output (yuv2rgb_full_X / yuv2planeX_8): luma is unscaled.
  const Filter& vf = vertical_;
  const RgbCoeffs& k = l.full_range ? kFull : kLimited;
  const video_detail::YuvRowCoeffs vk{k.y, k.y_offset, k.v2r, k.v2g, k.u2g, k.u2b};
  for (int y = 0; y < h; ++y) {
    const uint8_t* luma = f.plane[0] + static_cast<std::ptrdiff_t>(y) * f.stride[0];
    uint8_t* o = out + static_cast<size_t>(y) * row * 3;
    // The chroma lines and weights of this row (two taps, or the generic filter's).
    const int16_t *cb0 = nullptr, *cb1 = nullptr, *cr0 = nullptr, *cr1 = nullptr;
    int t0 = 0, t1 = 0;
    if (vf.two_tap) {
      const auto r0 = static_cast<size_t>(vf.p0[static_cast<size_t>(y)]) * row;
      const auto r1 = static_cast<size_t>(vf.p1[static_cast<size_t>(y)]) * row;
      cb0 = cb_.data() + r0;
      cb1 = cb_.data() + r1;
      cr0 = cr_.data() + r0;
      cr1 = cr_.data() + r1;
      t0 = vf.c0[static_cast<size_t>(y)];
      t1 = vf.c1[static_cast<size_t>(y)];
    }
    const int* t = &vf.coeff[static_cast<size_t>(y * vf.size)];
    const int16_t* cb = cb_.data() + static_cast<size_t>(vf.pos[static_cast<size_t>(y)]) * row;
    const int16_t* cr = cr_.data() + static_cast<size_t>(vf.pos[static_cast<size_t>(y)]) * row;
    const int taps = vf.count[static_cast<size_t>(y)];
    int x = 0;  // the vector rows take the two-tap form; the scalar loop below is the reference
    if (vector && vf.two_tap)
      x = static_cast<int>(video_detail::YuvRowTwoTap(luma, cb0, cb1, cr0, cr1, t0, t1, row, vk, ycbcr, o));
    for (; x < w; ++x) {
      int u = 0, v = 0;
      if (vf.two_tap) {
        u = cb0[x] * t0 + cb1[x] * t1;
        v = cr0[x] * t0 + cr1[x] * t1;
      } else {
        for (int j = 0; j < taps; ++j) {
          u += cb[static_cast<size_t>(j) * row + x] * t[j];
          v += cr[static_cast<size_t>(j) * row + x] * t[j];
        }
      }
      if (ycbcr) {  // yuv2planeX_8 with libswscale's flat dither (64 << 12) for 8-bit sources
        o[3 * x] = luma[x];
        o[3 * x + 1] = static_cast<uint8_t>(std::clamp(((1 << 18) + u) >> 19, 0, 255));
        o[3 * x + 2] = static_cast<uint8_t>(std::clamp(((1 << 18) + v) >> 19, 0, 255));
      } else {  // yuv2rgb_full_X: chroma sums floored to 19 bits, no rounding term
        WriteRgb(luma[x] << 9, (u - (128 << 19)) >> 10, (v - (128 << 19)) >> 10, k, o + 3 * x);
      }
    }
  }
}

}  // namespace sluice::kernels
