#include "kernels/color/clahe.h"

#include "kernels/color/lab8.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sluice::kernels {
namespace {

constexpr int kBins = 256;

// OpenCV's BORDER_REFLECT_101 index (gfedcb|abcdefgh|gfedcba), for any distance past the edge.
int64_t Reflect101(int64_t i, int64_t n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

// saturate_cast<uchar>(float): round half to even (cvRound), clamp.
uint8_t RoundToU8(float v) {
  const float r = std::nearbyint(v);
  return static_cast<uint8_t>(r < 0.f ? 0.f : r > 255.f ? 255.f : r);
}

}  // namespace

void ClahePlane(const uint8_t* in, uint8_t* out, int64_t h, int64_t w, int64_t stride, const ClaheParams& p) {
  if (h <= 0 || w <= 0) return;
  const int tx = p.tiles_x, ty = p.tiles_y;
  // The padded plane OpenCV builds when an extent is not a multiple of its tile count. Then both
  // extents grow by `tiles - extent % tiles`: a whole tile's worth where the extent was a multiple.
  const bool pad = w % tx != 0 || h % ty != 0;
  const int64_t pw = pad ? w + tx - w % tx : w, ph = pad ? h + ty - h % ty : h;
  const int64_t tile_w = pw / tx, tile_h = ph / ty;
  const int64_t tile_area = tile_w * tile_h;
  const float lut_scale = static_cast<float>(kBins - 1) / static_cast<float>(tile_area);
  int clip = 0;
  if (p.clip_limit > 0.0) clip = std::max(static_cast<int>(p.clip_limit * static_cast<double>(tile_area) / kBins), 1);

  std::vector<uint8_t> luts(static_cast<size_t>(tx) * ty * kBins);
  std::vector<int64_t> cols(static_cast<size_t>(tile_w));
  for (int ti = 0; ti < ty; ++ti) {
    for (int tj = 0; tj < tx; ++tj) {
      int hist[kBins] = {};
      for (int64_t c = 0; c < tile_w; ++c) cols[static_cast<size_t>(c)] = Reflect101(tj * tile_w + c, w);
      for (int64_t r = 0; r < tile_h; ++r) {
        const uint8_t* row = in + Reflect101(ti * tile_h + r, h) * w * stride;
        for (int64_t c : cols) ++hist[row[c * stride]];
      }
      if (clip > 0) {
        int clipped = 0;
        for (int& b : hist)
          if (b > clip) {
            clipped += b - clip;
            b = clip;
          }
        const int batch = clipped / kBins;
        int residual = clipped - batch * kBins;
        for (int& b : hist) b += batch;
        if (residual != 0) {
          const int step = std::max(kBins / residual, 1);
          for (int i = 0; i < kBins && residual > 0; i += step, --residual) ++hist[i];
        }
      }
      uint8_t* lut = luts.data() + (static_cast<size_t>(ti) * tx + tj) * kBins;
      int sum = 0;
      for (int i = 0; i < kBins; ++i) {
        sum += hist[i];
        lut[i] = RoundToU8(static_cast<float>(sum) * lut_scale);
      }
    }
  }

  // Per column: the two tiles' table offsets and their weights (OpenCV's float32 arithmetic).
  std::vector<int64_t> ind1(static_cast<size_t>(w)), ind2(static_cast<size_t>(w));
  std::vector<float> xa(static_cast<size_t>(w)), xa1(static_cast<size_t>(w));
  const float inv_tw = 1.0f / static_cast<float>(tile_w), inv_th = 1.0f / static_cast<float>(tile_h);
  for (int64_t x = 0; x < w; ++x) {
    const float txf = static_cast<float>(x) * inv_tw - 0.5f;
    int64_t t1 = static_cast<int64_t>(std::floor(txf));
    int64_t t2 = t1 + 1;
    xa[static_cast<size_t>(x)] = txf - static_cast<float>(t1);
    xa1[static_cast<size_t>(x)] = 1.0f - xa[static_cast<size_t>(x)];
    t1 = std::max<int64_t>(t1, 0);
    t2 = std::min<int64_t>(t2, tx - 1);
    ind1[static_cast<size_t>(x)] = t1 * kBins;
    ind2[static_cast<size_t>(x)] = t2 * kBins;
  }
  // Rows are written after they are read, so in == out works: tables and weights are already built.
  for (int64_t y = 0; y < h; ++y) {
    const float tyf = static_cast<float>(y) * inv_th - 0.5f;
    int64_t t1 = static_cast<int64_t>(std::floor(tyf));
    int64_t t2 = t1 + 1;
    const float ya = tyf - static_cast<float>(t1), ya1 = 1.0f - ya;
    t1 = std::max<int64_t>(t1, 0);
    t2 = std::min<int64_t>(t2, ty - 1);
    const uint8_t* plane1 = luts.data() + static_cast<size_t>(t1) * tx * kBins;
    const uint8_t* plane2 = luts.data() + static_cast<size_t>(t2) * tx * kBins;
    const uint8_t* src = in + y * w * stride;
    uint8_t* dst = out + y * w * stride;
    for (int64_t x = 0; x < w; ++x) {
      const size_t xs = static_cast<size_t>(x);
      const int64_t v = src[x * stride];
      const float a = static_cast<float>(plane1[ind1[xs] + v]) * xa1[xs];
      const float b = static_cast<float>(plane1[ind2[xs] + v]) * xa[xs];
      const float c = static_cast<float>(plane2[ind1[xs] + v]) * xa1[xs];
      const float d = static_cast<float>(plane2[ind2[xs] + v]) * xa[xs];
      const float top = a + b, bottom = c + d;
      const float res = top * ya1 + bottom * ya;
      dst[x * stride] = RoundToU8(res);
    }
  }
}

void ClaheRgbLuma(const uint8_t* in, uint8_t* out, int64_t h, int64_t w, const ClaheParams& p) {
  // As DALI: cvtColor(RGB2Lab), CLAHE on the L channel, cvtColor(Lab2RGB), all 8-bit; the Lab image
  // lives in `out` (ClahePlane works in place on one channel).
  RgbToLab8(in, out, h * w);
  ClahePlane(out, out, h, w, 3, p);
  Lab8ToRgb(out, out, h * w);
}

}  // namespace sluice::kernels
