#include "kernels/color/lab8.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace sluice::kernels {
namespace {

// OpenCV's fixed-point scales: XYZ in 2^12, cube roots in 2^15 (gamma values carry 3 more bits),
// L -> y and f(y) in 2^14, the inverse gamma table indexed by 2^12.
constexpr int kLabShift = 12, kGammaShift = 3, kLabShift2 = kLabShift + kGammaShift;
constexpr int kLutBase = 1 << 14, kInvGammaShift = 12, kInvGammaSize = 1 << kInvGammaShift;
constexpr int kCbrtSize = 256 * 3 / 2 * (1 << kGammaShift);
constexpr int kMinAb = -8145, kAbSize = kLutBase * 9 / 4;

constexpr double kRgbToXyz[3][3] = {
    {0.412453, 0.357580, 0.180423}, {0.212671, 0.715160, 0.072169}, {0.019334, 0.119193, 0.950227}};
constexpr double kXyzToRgb[3][3] = {
    {3.240479, -1.53715, -0.498535}, {-0.969256, 1.875991, 0.041556}, {0.055648, -0.204043, 1.057311}};
constexpr double kWhite[3] = {0.950456, 1.0, 1.088754};

constexpr int Descale(int64_t v, int shift) { return static_cast<int>((v + (int64_t{1} << (shift - 1))) >> shift); }

int RoundEven(double v) { return static_cast<int>(std::nearbyint(v)); }  // cvRound: half to even

// sRGB's transfer functions as OpenCV's softdouble code writes them (constants as integer ratios),
// rounded to float as its tables take them.
float ApplyGamma(float x) {
  const double xd = x;
  return static_cast<float>(xd <= 809.0 / 20000.0 ? xd / (323.0 / 25.0)
                                                   : std::pow((xd + 11.0 / 200.0) / (1.0 + 11.0 / 200.0), 12.0 / 5.0));
}
float ApplyInvGamma(float x) {
  const double xd = x;
  return static_cast<float>(xd <= 7827.0 / 2500000.0 ? xd * (323.0 / 25.0)
                                                       : std::pow(xd, 1.0 / (12.0 / 5.0)) * (1.0 + 11.0 / 200.0) -
                                                             11.0 / 200.0);
}

// OpenCV's float cube root (softfloat's f32_cbrt): a quartic rational approximation in double on
// the mantissa, whose fraction bits are then truncated (not rounded) to float. Its table is filled
// with this, so an exact std::cbrt would differ in the last bit of some entries. x > 0, finite.
float OpenCvCbrt(float x) {
  constexpr double a[10] = {std::bit_cast<double>(0x4046a09e6653ba70ULL), std::bit_cast<double>(0x406808f46c6116e0ULL),
                            std::bit_cast<double>(0x405dca97439cae14ULL), std::bit_cast<double>(0x402add70d2827500ULL),
                            std::bit_cast<double>(0x3fc4f15f83f55d2dULL), std::bit_cast<double>(0x402d9e20660edb21ULL),
                            std::bit_cast<double>(0x4062ff15c0285815ULL), std::bit_cast<double>(0x406510d06a8112ceULL),
                            std::bit_cast<double>(0x4040fecbc9e2c375ULL), 1.0};
  const uint32_t xv = std::bit_cast<uint32_t>(x);
  int ex = static_cast<int>((xv >> 23) & 0xFF) - 127;
  int shx = ex % 3;
  shx -= shx >= 0 ? 3 : 0;
  ex = (ex - shx) / 3 - 1;
  double fr = std::bit_cast<double>((static_cast<uint64_t>(shx + 1023) << 52) | (uint64_t{xv & 0x7FFFFF} << 29));
  fr = ((((a[0] * fr + a[1]) * fr + a[2]) * fr + a[3]) * fr + a[4]) /
       ((((a[5] * fr + a[6]) * fr + a[7]) * fr + a[8]) * fr + a[9]);
  const uint64_t frac = std::bit_cast<uint64_t>(fr) & ((uint64_t{1} << 52) - 1);
  return std::bit_cast<float>((xv & 0x80000000u) + (static_cast<uint32_t>(ex + 127) << 23) +
                              static_cast<uint32_t>(frac >> 29));
}

struct Tables {
  uint16_t gamma[256];             // sRGB -> linear, * 255 * 2^3
  uint16_t cbrt[kCbrtSize];        // f(t) of L*a*b*, * 2^15, for t = i / (255 * 2^3)
  uint16_t inv_gamma[kInvGammaSize];  // linear (i / 2^12) -> sRGB, * 255
  uint16_t l_to_y[256], l_to_fy[256];  // L (8-bit) -> y and f(y), * 2^14
  std::vector<int> ab_to_xz;       // f -> x or z (* 2^14), f from kMinAb
  int to_xyz[3][3];                // RGB -> XYZ / white, * 2^12
  int to_rgb[3][3];                // XYZ * white -> RGB, * 2^12

  Tables() : ab_to_xz(kAbSize) {
    for (int i = 0; i < 256; ++i)
      gamma[i] = static_cast<uint16_t>(RoundEven(static_cast<float>(255 * (1 << kGammaShift)) *
                                                 ApplyGamma(static_cast<float>(i) / 255.0f)));
    const float lthresh = 216.0f / 24389.0f, lscale = 841.0f / 108.0f, lbias = 16.0f / 116.0f;
    const float cb_scale = 1.0f / (255.0f * static_cast<float>(1 << kGammaShift));
    for (int i = 0; i < kCbrtSize; ++i) {
      const float x = cb_scale * static_cast<float>(i);
      const float f = x < lthresh ? std::fma(x, lscale, lbias) : OpenCvCbrt(x);
      cbrt[i] = static_cast<uint16_t>(RoundEven(static_cast<float>(1 << kLabShift2) * f));
    }
    const float inv_scale = 1.0f / static_cast<float>(kInvGammaSize);
    for (int i = 0; i < kInvGammaSize; ++i)
      inv_gamma[i] = static_cast<uint16_t>(RoundEven(255.0f * ApplyInvGamma(inv_scale * static_cast<float>(i))));
    for (int i = 0; i < 256; ++i) {
      int y, fy;
      if (i <= 20) {  // the linear part of f: y = L / 903.3, f = 7.787 y + 16 / 116, as integer ratios
        y = RoundEven(static_cast<float>(i * kLutBase * 20 * 9) / static_cast<float>(17 * 29 * 29 * 29));
        fy = RoundEven(static_cast<float>(kLutBase) *
                       (16.0f / 116.0f + static_cast<float>(i * 5) / static_cast<float>(3 * 17 * 29)));
      } else {
        const float f = static_cast<float>(i * 100 * kLutBase) / static_cast<float>(255 * 116) +
                        static_cast<float>(16 * kLutBase) / 116.0f;
        fy = RoundEven(f);
        y = RoundEven(f * f * f / static_cast<float>(kLutBase * kLutBase));
      }
      l_to_y[i] = static_cast<uint16_t>(y);
      l_to_fy[i] = static_cast<uint16_t>(fy);
    }
    for (int i = kMinAb; i < kAbSize + kMinAb; ++i)  // integer arithmetic, C's truncating division
      ab_to_xz[static_cast<size_t>(i - kMinAb)] =
          i <= 3390 ? i * 108 / 841 - kLutBase * 16 / 116 * 108 / 841 : i * i / kLutBase * i / kLutBase;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        to_xyz[r][c] = RoundEven(static_cast<double>(1 << kLabShift) * kRgbToXyz[r][c] / kWhite[r]);
        to_rgb[r][c] = RoundEven(static_cast<double>(1 << kLabShift) * kXyzToRgb[r][c] * kWhite[c]);
      }
  }
};

const Tables& GetTables() {
  static const Tables tables;
  return tables;
}

uint8_t Sat8(int v) { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }

}  // namespace

void RgbToLab8(const uint8_t* rgb, uint8_t* lab, int64_t n) {
  const Tables& t = GetTables();
  constexpr int l_scale = (116 * 255 + 50) / 100;
  constexpr int l_shift = -((16 * 255 * (1 << kLabShift2) + 50) / 100);
  for (int64_t i = 0; i < n; ++i) {
    const int r = t.gamma[rgb[3 * i]], g = t.gamma[rgb[3 * i + 1]], b = t.gamma[rgb[3 * i + 2]];
    int f[3];
    for (int k = 0; k < 3; ++k)
      f[k] = t.cbrt[Descale(int64_t{r} * t.to_xyz[k][0] + int64_t{g} * t.to_xyz[k][1] + int64_t{b} * t.to_xyz[k][2],
                            kLabShift)];
    lab[3 * i] = Sat8(Descale(int64_t{l_scale} * f[1] + l_shift, kLabShift2));
    lab[3 * i + 1] = Sat8(Descale(500 * (f[0] - f[1]) + 128 * (1 << kLabShift2), kLabShift2));
    lab[3 * i + 2] = Sat8(Descale(200 * (f[1] - f[2]) + 128 * (1 << kLabShift2), kLabShift2));
  }
}

void Lab8ToRgb(const uint8_t* lab, uint8_t* rgb, int64_t n) {
  const Tables& t = GetTables();
  constexpr int shift = kLabShift + (14 - kInvGammaShift);  // XYZ in 2^14, table index in 2^12
  for (int64_t i = 0; i < n; ++i) {
    const int l = lab[3 * i], a = lab[3 * i + 1], b = lab[3 * i + 2];
    const int y = t.l_to_y[l], fy = t.l_to_fy[l];
    // a / 500 and b / 200 in 2^14, OpenCV's approximations of the divisions.
    const int adiv = ((5 * a * 53687 + (1 << 7)) >> 13) - 128 * kLutBase / 500;
    const int bdiv = ((b * 41943 + (1 << 4)) >> 9) - 128 * kLutBase / 200 + 1;
    const int x = t.ab_to_xz[static_cast<size_t>(fy + adiv - kMinAb)];
    const int z = t.ab_to_xz[static_cast<size_t>(fy - bdiv - kMinAb)];
    for (int k = 0; k < 3; ++k) {
      const int v = Descale(int64_t{x} * t.to_rgb[k][0] + int64_t{y} * t.to_rgb[k][1] + int64_t{z} * t.to_rgb[k][2],
                            shift);
      rgb[3 * i + k] = Sat8(t.inv_gamma[std::clamp(v, 0, kInvGammaSize - 1)]);
    }
  }
}

}  // namespace sluice::kernels
