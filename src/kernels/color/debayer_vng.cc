// DebayerVng: OpenCV's demosaicing by variable number of gradients, uint8 (kernels/color/debayer.h
// has the contract). Written in OpenCV's BGR terms: the RGB result for blue_position (by, bx) is
// OpenCV's BGR result for the opposite pattern (1 - by, 1 - bx), channel for channel in memory.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/color/debayer.h"
#include "kernels/color/debayer_rows_hwy.h"

namespace sluice::kernels {
namespace {

// Per mosaic row, seven planes of w values at columns 1 .. w - 2 (0 at columns 0 and w - 1):
// vertical and horizontal gradients, the two diagonal ones, the diagonal ones with their
// neighbours, and half the cross sum (a green estimate at red and blue pixels).
enum Plane { kVert, kHoriz, kDiagNE, kDiagNW, kWideNE, kWideNW, kHalfCross, kPlanes };

void Gradients(const uint8_t* in, int64_t w, int64_t y, uint16_t* planes) {
  const uint8_t* __restrict u = in + (y - 1) * w;
  const uint8_t* __restrict m = in + y * w;
  const uint8_t* __restrict d = in + (y + 1) * w;
  for (int k = 0; k < kPlanes; ++k) planes[k * w] = planes[k * w + w - 1] = 0;
  uint16_t* __restrict vert = planes + kVert * w;
  uint16_t* __restrict horiz = planes + kHoriz * w;
  uint16_t* __restrict diag_ne = planes + kDiagNE * w;
  uint16_t* __restrict diag_nw = planes + kDiagNW * w;
  uint16_t* __restrict wide_ne = planes + kWideNE * w;
  uint16_t* __restrict wide_nw = planes + kWideNW * w;
  uint16_t* __restrict half_cross = planes + kHalfCross * w;
  auto ad = [](int a, int b) { return a > b ? a - b : b - a; };
  // Whole vectors in Highway; the last columns here.
  for (int64_t x = debayer_detail::DebayerVngGradients(u, m, d, w, planes); x < w - 1; ++x) {
    const int s1 = u[x - 1], s2 = u[x], s3 = u[x + 1], s4 = m[x - 1], s6 = m[x + 1], s7 = d[x - 1], s8 = d[x],
              s9 = d[x + 1];
    const int ne = 2 * ad(s3, s7), nw = 2 * ad(s1, s9);
    vert[x] = static_cast<uint16_t>(ad(s1, s7) + 2 * ad(s2, s8) + ad(s3, s9));
    horiz[x] = static_cast<uint16_t>(ad(s1, s3) + 2 * ad(s4, s6) + ad(s7, s9));
    diag_ne[x] = static_cast<uint16_t>(ne);
    diag_nw[x] = static_cast<uint16_t>(nw);
    wide_ne[x] = static_cast<uint16_t>(ne + ad(s2, s4) + ad(s6, s8));
    wide_nw[x] = static_cast<uint16_t>(nw + ad(s2, s6) + ad(s4, s8));
    half_cross[x] = static_cast<uint16_t>((s2 + s4 + s6 + s8) >> 1);
  }
}

// OpenCV's scalar code scales by this table (1 / (2n), as float literals); its SIMD code by 0.5f / n.
constexpr float kScalarScale[] = {0.f, 0.5f, 0.25f, 0.1666666666667f, 0.125f, 0.1f, 0.08333333333f, 0.0714286f, 0.0625f};

inline int RoundScaled(int diff, int n, bool simd) {
  const float scale = simd ? 0.5f / static_cast<float>(n) : kScalarScale[n];
  const float v = static_cast<float>(diff) * scale;
  return static_cast<int>(std::nearbyint(v));  // round half to even, as cvRound and SIMD v_round
}

inline uint8_t Sat8(int v) { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }

}  // namespace

void DebayerVng(const uint8_t* in, uint8_t* out, int64_t h, int64_t w, int blue_y, int blue_x) {
  if (std::min(h, w) < 8) {
    // OpenCV's fallback for small images: its bilinear conversion, for the same pattern.
    DebayerBilinear(in, out, h, w, blue_y, blue_x);
    return;
  }
  // OpenCV 5 runs VNG on the mosaic padded by 2 on every side (BORDER_REFLECT_101, which keeps the
  // Bayer phase), so every output pixel is computed, around its own mosaic pixel. Padded pixel
  // (y + 2, x + 2) is mosaic pixel (y, x).
  const int64_t n = w + 4;
  std::vector<uint8_t> padded(static_cast<size_t>((h + 4) * n));
  for (int64_t py = 0; py < h + 4; ++py) {
    const int64_t sy = py < 2 ? 2 - py : py - 2 >= h ? 2 * (h - 1) - (py - 2) : py - 2;
    const uint8_t* src = in + sy * w;
    uint8_t* row = padded.data() + py * n;
    std::memcpy(row + 2, src, static_cast<size_t>(w));
    row[0] = src[2], row[1] = src[1], row[n - 2] = src[w - 2], row[n - 1] = src[w - 3];
  }
  std::vector<uint16_t> buf(static_cast<size_t>(3 * kPlanes * n));
  auto slot = [&](int64_t row) { return buf.data() + (row % 3) * kPlanes * n; };
  // Mosaic row 0's pixel at column 0 is green when the pattern's first pair differs; `blue_idx` is
  // the channel OpenCV's BGR writes blue to (0 or 2) for rows whose red-or-blue pixel is "red".
  const bool green0 = ((blue_y ^ blue_x) & 1) != 0;
  const int blue_idx0 = (blue_y & 1) ? 0 : 2;
  const uint8_t* pad = padded.data();
  Gradients(pad, n, 1, slot(1));
  Gradients(pad, n, 2, slot(2));
  for (int64_t y = 0; y < h; ++y) {
    const int64_t sy = y + 2;  // the padded row
    Gradients(pad, n, sy + 1, slot(sy + 1));
    const uint16_t* g0 = slot(sy - 1);
    const uint16_t* g1 = slot(sy);
    const uint16_t* g2 = slot(sy + 1);
    const bool odd = (y & 1) != 0;
    const bool green_row = green0 != odd;
    const int blue_idx = blue_idx0 ^ (odd ? 2 : 0);
    // OpenCV's SIMD loop covers 8 pixels at a time from the row's first red-or-blue pixel while
    // 10 padded columns remain; the pixels before and after it take its scalar code.
    const int64_t simd_begin = green_row ? 3 : 2;
    const int64_t simd_blocks = n - 10 >= simd_begin ? (n - 10 - simd_begin) / 8 + 1 : 0;
    const int64_t simd_end = simd_begin + 8 * simd_blocks;
    const uint8_t* s = pad + sy * n;
    uint8_t* drow = out + y * w * 3;  // padded column x is output column x - 2
    const bool vectorized =
        debayer_detail::DebayerVngBlocks(s, n, g0, g1, g2, simd_begin, simd_blocks, blue_idx, drow + 3 * (simd_begin - 2));
    for (int64_t x = 2; x < n - 2; ++x) {
      if (vectorized && x == simd_begin && simd_blocks > 0) x = simd_end;  // done above, as OpenCV's SIMD
      if (x >= n - 2) break;
      auto at = [&](int dy, int dx) { return int(s[dy * n + x + dx]); };
      auto p = [&](const uint16_t* g, Plane k, int dx) { return int(g[k * n + x + dx]); };
      const int grad_n = p(g0, kVert, 0) + p(g1, kVert, 0);
      const int grad_s = p(g1, kVert, 0) + p(g2, kVert, 0);
      const int grad_w = p(g1, kHoriz, -1) + p(g1, kHoriz, 0);
      const int grad_e = p(g1, kHoriz, 0) + p(g1, kHoriz, 1);
      const bool green = green_row != (((x - 2) & 1) != 0);
      int grad_ne, grad_sw, grad_nw, grad_se;
      if (!green) {
        grad_ne = p(g0, kWideNE, 1) + p(g1, kWideNE, 0);
        grad_sw = p(g1, kWideNE, 0) + p(g2, kWideNE, -1);
        grad_nw = p(g0, kWideNW, -1) + p(g1, kWideNW, 0);
        grad_se = p(g1, kWideNW, 0) + p(g2, kWideNW, 1);
      } else {
        grad_ne = p(g0, kDiagNE, 0) + p(g0, kDiagNE, 1) + p(g1, kDiagNE, 0) + p(g1, kDiagNE, 1);
        grad_sw = p(g1, kDiagNE, 0) + p(g1, kDiagNE, -1) + p(g2, kDiagNE, 0) + p(g2, kDiagNE, -1);
        grad_nw = p(g0, kDiagNW, 0) + p(g0, kDiagNW, -1) + p(g1, kDiagNW, 0) + p(g1, kDiagNW, -1);
        grad_se = p(g1, kDiagNW, 0) + p(g1, kDiagNW, 1) + p(g2, kDiagNW, 0) + p(g2, kDiagNW, 1);
      }
      const int lo = std::min({grad_n, grad_s, grad_w, grad_e, grad_ne, grad_sw, grad_nw, grad_se});
      const int hi = std::max({grad_n, grad_s, grad_w, grad_e, grad_ne, grad_sw, grad_nw, grad_se});
      const int thresh = lo + std::max(hi / 2, 1);
      // own: the pixel's colour; a: green at red/blue pixels, red-row colour at green; b: the third.
      int own = 0, a = 0, b = 0, count = 0;
      auto add = [&](int grad, int own_sum, int a_sum, int b_sum) {
        if (grad < thresh) own += own_sum, a += a_sum, b += b_sum, ++count;
      };
      const int c = at(0, 0);
      if (!green) {
        add(grad_n, at(-2, 0) + c, 2 * at(-1, 0), at(-1, -1) + at(-1, 1));
        add(grad_s, at(2, 0) + c, 2 * at(1, 0), at(1, -1) + at(1, 1));
        add(grad_w, at(0, -2) + c, 2 * at(0, -1), at(-1, -1) + at(1, -1));
        add(grad_e, at(0, 2) + c, 2 * at(0, 1), at(-1, 1) + at(1, 1));
        add(grad_ne, at(-2, 2) + c, p(g0, kHalfCross, 1), 2 * at(-1, 1));
        add(grad_sw, at(2, -2) + c, p(g2, kHalfCross, -1), 2 * at(1, -1));
        add(grad_nw, at(-2, -2) + c, p(g0, kHalfCross, -1), 2 * at(-1, -1));
        add(grad_se, at(2, 2) + c, p(g2, kHalfCross, 1), 2 * at(1, 1));
      } else {
        add(grad_n, at(-2, 0) + c, at(-2, -1) + at(-2, 1), 2 * at(-1, 0));
        add(grad_s, at(2, 0) + c, at(2, -1) + at(2, 1), 2 * at(1, 0));
        add(grad_w, at(0, -2) + c, 2 * at(0, -1), at(-1, -2) + at(1, -2));
        add(grad_e, at(0, 2) + c, 2 * at(0, 1), at(-1, 2) + at(1, 2));
        add(grad_ne, 2 * at(-1, 1), at(-2, 1) + at(0, 1), at(-1, 0) + at(-1, 2));
        add(grad_sw, 2 * at(1, -1), at(2, -1) + at(0, -1), at(1, 0) + at(1, -2));
        add(grad_nw, 2 * at(-1, -1), at(-2, -1) + at(0, -1), at(-1, -2) + at(-1, 0));
        add(grad_se, 2 * at(1, 1), at(2, 1) + at(0, 1), at(1, 2) + at(1, 0));
      }
      const bool simd = x >= simd_begin && x < simd_end;
      const int va = c + RoundScaled(a - own, count, simd);
      const int vb = c + RoundScaled(b - own, count, simd);
      uint8_t* px = drow + (x - 2) * 3;
      if (!green) {  // own colour is "red" (channel blue_idx ^ 2), a is green, b is "blue"
        px[blue_idx ^ 2] = static_cast<uint8_t>(c), px[1] = Sat8(va), px[blue_idx] = Sat8(vb);
      } else {  // own colour is green, a is "red", b is "blue"
        px[1] = static_cast<uint8_t>(c), px[blue_idx ^ 2] = Sat8(va), px[blue_idx] = Sat8(vb);
      }
    }
  }
}

}  // namespace sluice::kernels
