#include "kernels/color/clahe.h"

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

namespace {

// sRGB (D65) <-> CIE L*a*b*, OpenCV's constants.
constexpr float kRgb2Xyz[9] = {0.412453f, 0.357580f, 0.180423f, 0.212671f, 0.715160f,
                               0.072169f, 0.019334f, 0.119193f, 0.950227f};
constexpr float kXyz2Rgb[9] = {3.240479f, -1.53715f, -0.498535f, -0.969256f, 1.875991f,
                               0.041556f, 0.055648f, -0.204043f, 1.057311f};
constexpr float kWhiteX = 0.950456f, kWhiteZ = 1.088754f;

float SrgbToLinear(float v) { return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f); }
float LinearToSrgb(float v) { return v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f; }
float LabF(float t) { return t > 0.008856f ? std::cbrt(t) : 7.787f * t + 16.0f / 116.0f; }
float LabFInv(float f) { return f > 0.206893f ? f * f * f : (f - 16.0f / 116.0f) / 7.787f; }

}  // namespace

void ClaheRgbLuma(const uint8_t* in, uint8_t* out, int64_t h, int64_t w, const ClaheParams& p) {
  const int64_t n = h * w;
  std::vector<uint8_t> l8(static_cast<size_t>(n));
  std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float r = SrgbToLinear(in[3 * i] / 255.0f), g = SrgbToLinear(in[3 * i + 1] / 255.0f),
                bl = SrgbToLinear(in[3 * i + 2] / 255.0f);
    const float x = (kRgb2Xyz[0] * r + kRgb2Xyz[1] * g + kRgb2Xyz[2] * bl) / kWhiteX;
    const float y = kRgb2Xyz[3] * r + kRgb2Xyz[4] * g + kRgb2Xyz[5] * bl;
    const float z = (kRgb2Xyz[6] * r + kRgb2Xyz[7] * g + kRgb2Xyz[8] * bl) / kWhiteZ;
    const float fy = LabF(y);
    const float l = y > 0.008856f ? 116.0f * fy - 16.0f : 903.3f * y;
    l8[static_cast<size_t>(i)] = RoundToU8(l * 255.0f / 100.0f);
    // a and b stay at 8-bit precision, as in OpenCV's 8-bit Lab image.
    a[static_cast<size_t>(i)] = std::nearbyint(std::clamp(500.0f * (LabF(x) - fy) + 128.0f, 0.0f, 255.0f)) - 128.0f;
    b[static_cast<size_t>(i)] = std::nearbyint(std::clamp(200.0f * (fy - LabF(z)) + 128.0f, 0.0f, 255.0f)) - 128.0f;
  }
  ClahePlane(l8.data(), l8.data(), h, w, 1, p);
  for (int64_t i = 0; i < n; ++i) {
    const float l = l8[static_cast<size_t>(i)] * 100.0f / 255.0f;
    const float fy = (l + 16.0f) / 116.0f;
    const float y = l > 7.9996f ? fy * fy * fy : l / 903.3f;
    const float fyy = l > 7.9996f ? fy : 7.787f * y + 16.0f / 116.0f;
    const float x = LabFInv(fyy + a[static_cast<size_t>(i)] / 500.0f) * kWhiteX;
    const float z = LabFInv(fyy - b[static_cast<size_t>(i)] / 200.0f) * kWhiteZ;
    const float rgb[3] = {kXyz2Rgb[0] * x + kXyz2Rgb[1] * y + kXyz2Rgb[2] * z,
                          kXyz2Rgb[3] * x + kXyz2Rgb[4] * y + kXyz2Rgb[5] * z,
                          kXyz2Rgb[6] * x + kXyz2Rgb[7] * y + kXyz2Rgb[8] * z};
    for (int c = 0; c < 3; ++c) out[3 * i + c] = RoundToU8(LinearToSrgb(std::clamp(rgb[c], 0.0f, 1.0f)) * 255.0f);
  }
}

}  // namespace sluice::kernels
