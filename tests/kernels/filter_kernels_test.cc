// The filter and noise kernels against independent references:
//   - SeparableFilter2D with DALI's Gaussian windows vs OpenCV's cv2.GaussianBlur (same sigma and
//     window, BORDER_REFLECT_101) on a real photograph, within 1 LSB (run through /usr/bin/python3);
//   - Filter2D vs a scalar double-precision reference for every border mode, anchors and "valid",
//     and vs cv2.filter2D;
//   - DALI's window formulas; PoissonSample/GaussianNoise/SaltAndPepper statistics;
//   - GridMask vs DALI's formula evaluated independently; EraseBox vs direct indexing;
//   - JpegDistort vs TurboJPEG's tjCompress2 (ISLOW DCT, 4:2:0) + tjDecompress2 (a separate API) at the
//     same quality: identical bytes are expected.
#include <gtest/gtest.h>

#include <type_traits>
#include <hwy/targets.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "kernels/filter/convolution.h"
#include "kernels/filter/gaussian_window.h"
#include "kernels/erase/erase.h"
#include "kernels/erase/grid_mask.h"
#include "kernels/noise/jpeg_distortion.h"
#include "kernels/noise/noise.h"
#include "kernels_test_util.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

using testing::Image;

Image Photo() { return testing::Decode(testing::ReadImage("photo_500x375.jpg")); }

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xff);
  return v;
}

struct TmpDir {
  std::string path;
  TmpDir() {
    path = (std::filesystem::temp_directory_path() / ("sluice_filter_kt_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(path);
  }
  ~TmpDir() { std::filesystem::remove_all(path); }
};

void WriteRaw(const std::string& p, const void* data, size_t n) {
  std::ofstream(p, std::ios::binary).write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}
std::vector<uint8_t> ReadRaw(const std::string& p) { return testing::ReadFile(p); }

// Runs `body` with `img` (h, w, c uint8 in numpy as `img`); the script writes `out` (uint8) to OUT.
bool RunCv2(const TmpDir& d, const Image& img, const std::string& body, std::vector<uint8_t>* out) {
  WriteRaw(d.path + "/in.raw", img.data.data(), img.data.size());
  std::ofstream(d.path + "/s.py") << "import sys, numpy as np\n"
                                     "try:\n  import cv2\nexcept ImportError:\n  sys.exit(77)\n"
                                  << "img = np.fromfile('" << d.path << "/in.raw', np.uint8).reshape(" << img.h << ","
                                  << img.w << "," << img.c << ")\n"
                                  << body << "\nnp.ascontiguousarray(out).tofile('" << d.path << "/out.raw')\n";
  const int rc = std::system(("/usr/bin/python3 " + d.path + "/s.py").c_str());
  if (rc != 0) return false;
  *out = ReadRaw(d.path + "/out.raw");
  return true;
}

TEST(GaussianWindow, DalisFormulas) {
  EXPECT_EQ(GaussianSigmaToWindow(1.0f), 7);
  EXPECT_EQ(GaussianSigmaToWindow(0.5f), 5);
  EXPECT_EQ(GaussianSigmaToWindow(2.1f), 2 * 7 + 1);
  EXPECT_NEAR(GaussianWindowToSigma(5), 1.1f, 1e-6);  // ((5-1)/2 - 1) * 0.3 + 0.8
  EXPECT_NEAR(GaussianWindowToSigma(3), 0.8f, 1e-6);
  const auto w = GaussianWindow(7, 1.5f);
  double sum = 0;
  for (float x : w) sum += x;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  for (int i = 0; i < 7; ++i) {
    EXPECT_FLOAT_EQ(w[static_cast<size_t>(i)], w[static_cast<size_t>(6 - i)]);
    const double ref = std::exp(-(i - 3) * (i - 3) / (2 * 1.5 * 1.5)) / std::exp(0) ;
    EXPECT_NEAR(w[static_cast<size_t>(i)] / w[3], ref, 1e-5);
  }
}

TEST(BorderIndex, Modes) {
  // n = 4: reflect_101 dcb|abcd|cba, reflect_1001 cba|abcd|dcb, wrap, clamp.
  const int64_t n = 4;
  auto idx = [&](BorderMode m, std::vector<int64_t> is) {
    std::vector<int64_t> r;
    for (int64_t i : is) r.push_back(BorderIndex(i, n, m));
    return r;
  };
  EXPECT_EQ(idx(BorderMode::kReflect101, {-3, -2, -1, 4, 5, 6, 9}), (std::vector<int64_t>{3, 2, 1, 2, 1, 0, 3}));
  EXPECT_EQ(idx(BorderMode::kReflect1001, {-3, -2, -1, 4, 5, 6, 9}), (std::vector<int64_t>{2, 1, 0, 3, 2, 1, 1}));
  EXPECT_EQ(idx(BorderMode::kWrap, {-3, -1, 4, 9}), (std::vector<int64_t>{1, 3, 0, 1}));
  EXPECT_EQ(idx(BorderMode::kClamp, {-3, 7}), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(BorderIndex(-1, n, BorderMode::kConstant), -1);
  EXPECT_EQ(BorderIndex(5, 1, BorderMode::kReflect101), 0);
}

TEST(GaussianBlurKernel, MatchesOpenCvOnAPhotoWithin1Lsb) {
  const Image img = Photo();
  TmpDir d;
  struct Case { float sy, sx; int wy, wx; };
  for (const Case& c : {Case{1.0f, 1.0f, 0, 0}, Case{2.5f, 0.8f, 0, 0}, Case{0, 0, 5, 9}, Case{1.3f, 3.0f, 7, 11},
                        Case{6.0f, 6.0f, 0, 0}}) {
    const int wy = c.wy ? c.wy : GaussianSigmaToWindow(c.sy), wx = c.wx ? c.wx : GaussianSigmaToWindow(c.sx);
    const float sy = c.sy ? c.sy : GaussianWindowToSigma(wy), sx = c.sx ? c.sx : GaussianWindowToSigma(wx);
    std::vector<uint8_t> got(img.data.size());
    SeparableFilter2D(img.data.data(), DType::kUInt8, got.data(), DType::kUInt8, ImageGeom::HWC(img.h, img.w, img.c),
                      GaussianWindow(wy, sy), GaussianWindow(wx, sx), BorderMode::kReflect101);
    std::vector<uint8_t> ref;
    const std::string body = "out = cv2.GaussianBlur(img, (" + std::to_string(wx) + "," + std::to_string(wy) +
                             "), sigmaX=" + std::to_string(sx) + ", sigmaY=" + std::to_string(sy) +
                             ", borderType=cv2.BORDER_REFLECT_101)";
    if (!RunCv2(d, img, body, &ref)) GTEST_SKIP() << "python3-opencv is not available";
    ASSERT_EQ(ref.size(), got.size());
    EXPECT_LE(testing::MaxAbsDiff(got, ref), 1) << "sigma " << sy << "," << sx << " window " << wy << "," << wx;
  }
}

TEST(GaussianBlurKernel, PlanarAndFloatAgreeWithInterleaved) {
  const int h = 13, w = 17, c = 3;
  const auto in = RandomBytes(size_t(h * w * c), 3);
  std::vector<uint8_t> planar(in.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) planar[size_t((k * h + y) * w + x)] = in[size_t((y * w + x) * c + k)];
  const auto wy = GaussianWindow(5, 1.0f), wx = GaussianWindow(31, 4.0f);  // window wider than the image
  std::vector<float> hwc(in.size()), chw(in.size());
  SeparableFilter2D(in.data(), DType::kUInt8, hwc.data(), DType::kFloat32, ImageGeom::HWC(h, w, c), wy, wx,
                    BorderMode::kReflect101);
  SeparableFilter2D(planar.data(), DType::kUInt8, chw.data(), DType::kFloat32, ImageGeom::CHW(c, h, w), wy, wx,
                    BorderMode::kReflect101);
  // Scalar reference in double.
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        double acc = 0;
        for (int i = 0; i < 5; ++i)
          for (int j = 0; j < 31; ++j) {
            const int64_t sy = BorderIndex(y + i - 2, h, BorderMode::kReflect101);
            const int64_t sx = BorderIndex(x + j - 15, w, BorderMode::kReflect101);
            acc += double(wy[size_t(i)]) * wx[size_t(j)] * in[size_t((sy * w + sx) * c + k)];
          }
        ASSERT_NEAR(hwc[size_t((y * w + x) * c + k)], acc, 1e-3);
        ASSERT_EQ(hwc[size_t((y * w + x) * c + k)], chw[size_t((k * h + y) * w + x)]);
      }
}

// ---- The uint8 fixed-point path of SeparableFilter2D ----

// Separable filter in double (constant border: zero), HWC.
std::vector<double> RefSeparable(const std::vector<uint8_t>& in, int h, int w, int c, const std::vector<float>& wy,
                                 const std::vector<float>& wx, BorderMode b) {
  const int ky = static_cast<int>(wy.size()), kx = static_cast<int>(wx.size());
  std::vector<double> out(in.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        double acc = 0;
        for (int i = 0; i < ky; ++i) {
          const int64_t sy = BorderIndex(y + i - ky / 2, h, b);
          if (sy < 0) continue;
          for (int j = 0; j < kx; ++j) {
            const int64_t sx = BorderIndex(x + j - kx / 2, w, b);
            if (sx < 0) continue;
            acc += double(wy[size_t(i)]) * wx[size_t(j)] * in[size_t((sy * w + sx) * c + k)];
          }
        }
        out[size_t((y * w + x) * c + k)] = acc;
      }
  return out;
}

std::vector<uint8_t> BlurU8(const std::vector<uint8_t>& in, const ImageGeom& g, const std::vector<float>& wy,
                            const std::vector<float>& wx, BorderMode b) {
  std::vector<uint8_t> out(in.size());
  SeparableFilter2D(in.data(), DType::kUInt8, out.data(), DType::kUInt8, g, wy, wx, b);
  return out;
}

// The float path rounded (what uint8 -> uint8 gave before the fixed-point path): uint8 -> float
// goes through the same float arithmetic.
std::vector<uint8_t> BlurViaFloat(const std::vector<uint8_t>& in, const ImageGeom& g, const std::vector<float>& wy,
                                  const std::vector<float>& wx, BorderMode b) {
  std::vector<float> f(in.size());
  SeparableFilter2D(in.data(), DType::kUInt8, f.data(), DType::kFloat32, g, wy, wx, b);
  std::vector<uint8_t> out(in.size());
  for (size_t i = 0; i < f.size(); ++i) out[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(f[i]), 0.f, 255.f));
  return out;
}

// Random bytes, or only 0 and 255 (the largest steps: the worst case of weight rounding).
std::vector<uint8_t> TestBytes(size_t n, uint32_t seed, bool binary) {
  auto v = RandomBytes(n, seed);
  if (binary)
    for (auto& x : v) x = x & 1 ? 255 : 0;
  return v;
}

TEST(GaussianBlurKernel, Uint8FixedPointWithin1LsbOfFloatPathAndDoubleReference) {
  const BorderMode modes[] = {BorderMode::kReflect101, BorderMode::kReflect1001, BorderMode::kWrap, BorderMode::kClamp,
                              BorderMode::kConstant};
  struct Size { int h, w, c; };
  // Widths beyond one column tile (1024 elements), narrower than the window, 1, 3 and 4 channels.
  for (const Size sz : {Size{9, 700, 3}, Size{23, 37, 1}, Size{6, 5, 3}, Size{17, 300, 4}, Size{40, 1, 3}})
    for (const float sigma : {0.6f, 1.5f, 3.0f, 7.0f})
      for (const BorderMode b : modes)
        for (const bool binary : {false, true}) {
          const int win = GaussianSigmaToWindow(sigma);
          const auto wx = GaussianWindow(win, sigma), wy = GaussianWindow(GaussianSigmaToWindow(sigma * 0.7f), sigma * 0.7f);
          const auto in = TestBytes(size_t(sz.h) * sz.w * sz.c, uint32_t(sz.w * 131 + win), binary);
          const ImageGeom g = ImageGeom::HWC(sz.h, sz.w, sz.c);
          const auto got = BlurU8(in, g, wy, wx, b);
          const auto via_float = BlurViaFloat(in, g, wy, wx, b);
          const auto ref = RefSeparable(in, sz.h, sz.w, sz.c, wy, wx, b);
          int worst_float = 0, worst_ref = 0;
          for (size_t i = 0; i < got.size(); ++i) {
            worst_float = std::max(worst_float, std::abs(int(got[i]) - int(via_float[i])));
            worst_ref = std::max(worst_ref, int(std::abs(got[i] - std::clamp(std::nearbyint(ref[i]), 0.0, 255.0))));
          }
          SCOPED_TRACE(::testing::Message() << sz.h << "x" << sz.w << "x" << sz.c << " sigma " << sigma << " border "
                                            << int(b) << " binary " << binary);
          EXPECT_LE(worst_float, 1);
          EXPECT_LE(worst_ref, 1);
          // Planar (CHW) gives the same bytes per channel.
          std::vector<uint8_t> planar(in.size());
          for (int y = 0; y < sz.h; ++y)
            for (int x = 0; x < sz.w; ++x)
              for (int k = 0; k < sz.c; ++k)
                planar[size_t((k * sz.h + y) * sz.w + x)] = in[size_t((y * sz.w + x) * sz.c + k)];
          const auto got_planar = BlurU8(planar, ImageGeom::CHW(sz.c, sz.h, sz.w), wy, wx, b);
          int mismatch = 0;
          for (int y = 0; y < sz.h; ++y)
            for (int x = 0; x < sz.w; ++x)
              for (int k = 0; k < sz.c; ++k)
                mismatch += got_planar[size_t((k * sz.h + y) * sz.w + x)] != got[size_t((y * sz.w + x) * sz.c + k)];
          EXPECT_EQ(mismatch, 0);
        }
}

TEST(GaussianBlurKernel, Uint8ExactCasesAndFloatFallback) {
  // A constant image stays constant; the identity-like window [0, 1, 0] (a weight of 1 does not fit
  // the fixed point) and a window with negative weights take the float path, bit-exact as before.
  const int h = 11, w = 29, c = 3;
  const ImageGeom g = ImageGeom::HWC(h, w, c);
  for (int v : {0, 1, 128, 254, 255}) {
    const std::vector<uint8_t> flat(size_t(h * w * c), uint8_t(v));
    for (float sigma : {0.8f, 2.0f, 5.0f}) {
      const auto k = GaussianWindow(GaussianSigmaToWindow(sigma), sigma);
      EXPECT_EQ(BlurU8(flat, g, k, k, BorderMode::kReflect101), flat) << v << " " << sigma;
    }
  }
  const auto in = RandomBytes(size_t(h * w * c), 8);
  EXPECT_EQ(BlurU8(in, g, {0.f, 1.f, 0.f}, {0.f, 1.f, 0.f}, BorderMode::kReflect101), in);
  const std::vector<float> sharpen = {-0.25f, 1.5f, -0.25f};
  EXPECT_EQ(BlurU8(in, g, sharpen, sharpen, BorderMode::kClamp), BlurViaFloat(in, g, sharpen, sharpen, BorderMode::kClamp));
  // Asymmetric non-negative windows (no mirrored pairs) stay within 1 of the float path.
  const std::vector<float> ramp = {0.1f, 0.2f, 0.3f, 0.4f}, skew = {0.5f, 0.25f, 0.125f, 0.0625f, 0.0625f};
  const auto got = BlurU8(in, g, ramp, skew, BorderMode::kWrap), ref = BlurViaFloat(in, g, ramp, skew, BorderMode::kWrap);
  EXPECT_LE(testing::MaxAbsDiff(got, ref), 1);
}

TEST(GaussianBlurKernel, Uint8SameBytesOnEverySimdTarget) {
  const int h = 21, w = 531, c = 3;  // two column tiles, a ragged last one
  const auto in = RandomBytes(size_t(h * w * c), 12);
  const auto k1 = GaussianWindow(11, 1.5f), k2 = GaussianWindow(19, 3.0f);
  std::vector<uint8_t> first_hwc, first_chw;
  int64_t first_target = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    std::vector<uint8_t> hwc = BlurU8(in, ImageGeom::HWC(h, w, c), k1, k2, BorderMode::kReflect101);
    const auto more = BlurU8(in, ImageGeom::HWC(h, w, c), k2, k1, BorderMode::kConstant);
    hwc.insert(hwc.end(), more.begin(), more.end());
    const auto chw = BlurU8(in, ImageGeom::CHW(c, h, w), k2, k2, BorderMode::kWrap);
    if (first_hwc.empty()) {
      first_hwc = hwc;
      first_chw = chw;
      first_target = target;
    } else {
      size_t differ = 0;
      for (size_t k = 0; k < hwc.size(); ++k) differ += hwc[k] != first_hwc[k];
      for (size_t k = 0; k < chw.size(); ++k) differ += chw[k] != first_chw[k];
      EXPECT_EQ(differ, 0u) << hwy::TargetName(target) << " vs " << hwy::TargetName(first_target);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets.size(), 2u);
}

// Scalar reference of DALI's filter: correlation with anchor and border.
std::vector<double> RefFilter(const std::vector<uint8_t>& in, int h, int w, int c, const std::vector<float>& f, int kh,
                              int kw, int ay, int ax, BorderMode b, float fill, bool valid) {
  const int oh = valid ? h - kh + 1 : h, ow = valid ? w - kw + 1 : w;
  if (valid) ay = ax = 0;
  std::vector<double> out(size_t(oh * ow * c));
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x)
      for (int k = 0; k < c; ++k) {
        double acc = 0;
        for (int i = 0; i < kh; ++i)
          for (int j = 0; j < kw; ++j) {
            const int64_t sy = BorderIndex(y + i - ay, h, b), sx = BorderIndex(x + j - ax, w, b);
            const double v = (sy < 0 || sx < 0) ? fill : in[size_t((sy * w + sx) * c + k)];
            acc += v * f[size_t(i * kw + j)];
          }
        out[size_t((y * ow + x) * c + k)] = acc;
      }
  return out;
}

TEST(Filter2DKernel, MatchesScalarReferenceForEveryBorderAnchorAndMode) {
  const int h = 9, w = 11, c = 3, kh = 3, kw = 5;
  const auto in = RandomBytes(size_t(h * w * c), 5);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> f(size_t(kh * kw));
  for (auto& x : f) x = u(rng);
  for (BorderMode b : {BorderMode::kReflect101, BorderMode::kReflect1001, BorderMode::kWrap, BorderMode::kClamp,
                       BorderMode::kConstant})
    for (auto [ay, ax] : {std::pair{1, 2}, std::pair{0, 0}, std::pair{2, 4}})
      for (bool valid : {false, true}) {
        FilterParams p{f.data(), kh, kw, ay, ax, b, 37.5f, valid};
        const int oh = valid ? h - kh + 1 : h, ow = valid ? w - kw + 1 : w;
        std::vector<float> got(size_t(oh * ow * c));
        Filter2D(in.data(), DType::kUInt8, ImageGeom::HWC(h, w, c), got.data(), DType::kFloat32,
                 ImageGeom::HWC(oh, ow, c), p);
        const auto ref = RefFilter(in, h, w, c, f, kh, kw, ay, ax, b, 37.5f, valid);
        for (size_t k = 0; k < ref.size(); ++k) ASSERT_NEAR(got[k], ref[k], 1e-3) << int(b) << " " << ay << ax << valid;
        // uint8 output: rounded and saturated.
        std::vector<uint8_t> u8(got.size());
        Filter2D(in.data(), DType::kUInt8, ImageGeom::HWC(h, w, c), u8.data(), DType::kUInt8, ImageGeom::HWC(oh, ow, c), p);
        for (size_t k = 0; k < ref.size(); ++k)
          ASSERT_LE(std::abs(u8[k] - std::clamp(std::nearbyint(ref[k]), 0.0, 255.0)), 1.0);
      }
}

// HWC images take the interleaved path (rows of width * channels elements, SIMD taps); CHW planes
// the per-channel path. Both must give the same values bit for bit: float, uint8 and int16
// outputs, every border mode, anchors and "valid", widths that leave SIMD tails.
TEST(Filter2DKernel, InterleavedAndPlanarPathsAgreeBitForBit) {
  const int h = 23, w = 70, c = 3, kh = 3, kw = 4;
  const auto in = RandomBytes(size_t(h * w * c), 8);
  std::vector<uint8_t> planar(in.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) planar[(size_t(ch) * h + y) * w + x] = in[(size_t(y) * w + x) * c + ch];
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-1.5f, 1.5f);
  std::vector<float> f(size_t(kh * kw));
  for (auto& x : f) x = u(rng);
  f[5] = 0.f;  // a zero tap is skipped by both
  auto to_hwc = [&](const auto& chw, int oh, int ow) {
    std::remove_cvref_t<decltype(chw)> out(chw.size());
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        for (int ch = 0; ch < c; ++ch) out[(size_t(y) * ow + x) * c + ch] = chw[(size_t(ch) * oh + y) * ow + x];
    return out;
  };
  for (BorderMode b : {BorderMode::kReflect101, BorderMode::kWrap, BorderMode::kClamp, BorderMode::kConstant})
    for (auto [ay, ax] : {std::pair{1, 2}, std::pair{0, 3}})
      for (bool valid : {false, true}) {
        const FilterParams p{f.data(), kh, kw, ay, ax, b, 200.f, valid};
        const int oh = valid ? h - kh + 1 : h, ow = valid ? w - kw + 1 : w;
        const size_t n = size_t(oh * ow * c);
        std::vector<float> f_hwc(n), f_chw(n);
        Filter2D(in.data(), DType::kUInt8, ImageGeom::HWC(h, w, c), f_hwc.data(), DType::kFloat32, ImageGeom::HWC(oh, ow, c), p);
        Filter2D(planar.data(), DType::kUInt8, ImageGeom::CHW(c, h, w), f_chw.data(), DType::kFloat32,
                 ImageGeom::CHW(c, oh, ow), p);
        ASSERT_EQ(f_hwc, to_hwc(f_chw, oh, ow)) << int(b) << " " << ay << ax << valid;
        std::vector<uint8_t> u_hwc(n), u_chw(n);
        Filter2D(in.data(), DType::kUInt8, ImageGeom::HWC(h, w, c), u_hwc.data(), DType::kUInt8, ImageGeom::HWC(oh, ow, c), p);
        Filter2D(planar.data(), DType::kUInt8, ImageGeom::CHW(c, h, w), u_chw.data(), DType::kUInt8, ImageGeom::CHW(c, oh, ow), p);
        ASSERT_EQ(u_hwc, to_hwc(u_chw, oh, ow)) << int(b) << " " << ay << ax << valid;
        std::vector<int16_t> s_hwc(n), s_chw(n);
        Filter2D(in.data(), DType::kUInt8, ImageGeom::HWC(h, w, c), s_hwc.data(), DType::kInt16, ImageGeom::HWC(oh, ow, c), p);
        Filter2D(planar.data(), DType::kUInt8, ImageGeom::CHW(c, h, w), s_chw.data(), DType::kInt16, ImageGeom::CHW(c, oh, ow), p);
        ASSERT_EQ(s_hwc, to_hwc(s_chw, oh, ow)) << int(b) << " " << ay << ax << valid;
      }
}

// Integer outputs are the float result rounded to nearest even and saturated, exactly as
// std::nearbyint gives: ties (a 0.5 filter on odd values), values just beyond the type's range,
// far beyond it, negative and NaN, for uint8, int16 and uint16 outputs.
TEST(Filter2DKernel, IntegerOutputsRoundHalfToEvenAndSaturateLikeNearbyint) {
  const std::vector<float> ins = {0, 1, 2, 3, 5, 7, 253, 255, 509, 510, 511, 512, -1, -3, -65535, 65535, 65537,
                                  1e9f, -1e9f, 32767, 32769, -32769, 0.4f, 1.2f, std::nanf("")};
  for (const float scale : {0.5f, 1.0f, -0.5f, 3.25f}) {
    const float f[1] = {scale};
    const FilterParams p{f, 1, 1, 0, 0, BorderMode::kClamp, 0.f, false};
    const int n = static_cast<int>(ins.size());
    std::vector<uint8_t> u8(ins.size());
    std::vector<int16_t> i16(ins.size());
    std::vector<uint16_t> u16(ins.size());
    Filter2D(ins.data(), DType::kFloat32, ImageGeom::HWC(1, n, 1), u8.data(), DType::kUInt8, ImageGeom::HWC(1, n, 1), p);
    Filter2D(ins.data(), DType::kFloat32, ImageGeom::HWC(1, n, 1), i16.data(), DType::kInt16, ImageGeom::HWC(1, n, 1), p);
    Filter2D(ins.data(), DType::kFloat32, ImageGeom::HWC(1, n, 1), u16.data(), DType::kUInt16, ImageGeom::HWC(1, n, 1), p);
    for (size_t k = 0; k < ins.size(); ++k) {
      const float v = ins[k] * scale;
      auto expect = [&](double lo, double hi) { return std::isnan(v) ? 0.0 : std::clamp(double(std::nearbyint(v)), lo, hi); };
      EXPECT_EQ(u8[k], expect(0, 255)) << v;
      EXPECT_EQ(i16[k], expect(-32768, 32767)) << v;
      EXPECT_EQ(u16[k], expect(0, 65535)) << v;
    }
  }
}

TEST(Filter2DKernel, MatchesOpenCvFilter2D) {
  const Image img = Photo();
  TmpDir d;
  const std::vector<float> f = {0, -1, 0, -1, 5, -1, 0, -1, 0.5f, 0.25f, 0.1f, -0.2f};  // 3x4, asymmetric
  FilterParams p{f.data(), 3, 4, 1, 2, BorderMode::kReflect101, 0, false};
  std::vector<uint8_t> got(img.data.size());
  Filter2D(img.data.data(), DType::kUInt8, ImageGeom::HWC(img.h, img.w, img.c), got.data(), DType::kUInt8,
           ImageGeom::HWC(img.h, img.w, img.c), p);
  std::vector<uint8_t> ref;
  const std::string body =
      "k = np.array([0,-1,0,-1,5,-1,0,-1,0.5,0.25,0.1,-0.2], np.float32).reshape(3,4)\n"
      "out = cv2.filter2D(img, -1, k, anchor=(2,1), borderType=cv2.BORDER_REFLECT_101)";
  if (!RunCv2(d, img, body, &ref)) GTEST_SKIP() << "python3-opencv is not available";
  EXPECT_LE(testing::MaxAbsDiff(got, ref), 1);
}

TEST(NoiseKernels, PoissonMoments) {
  RandomGenerator rng(123);
  for (double lambda : {0.5, 3.0, 9.9, 12.0, 80.0, 1000.0}) {
    const int n = 40000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
      const double k = static_cast<double>(PoissonSample(lambda, rng));
      s += k;
      s2 += k * k;
    }
    const double mean = s / n, var = s2 / n - mean * mean;
    EXPECT_NEAR(mean, lambda, 5 * std::sqrt(lambda / n)) << lambda;
    EXPECT_NEAR(var / lambda, 1.0, 0.05) << lambda;
  }
  EXPECT_EQ(PoissonSample(0, rng), 0);
}

TEST(NoiseKernels, GaussianNoiseStatistics) {
  const size_t n = 200000;
  std::vector<float> in(n, 10.f), out(n);
  RandomGenerator rng(5);
  GaussianNoise(in.data(), out.data(), DType::kFloat32, n, 2.0, 3.0, rng);
  double s = 0, s2 = 0;
  for (float v : out) {
    s += v - 10;
    s2 += (v - 10) * (v - 10);
  }
  const double mean = s / n, sd = std::sqrt(s2 / n - mean * mean);
  EXPECT_NEAR(mean, 2.0, 0.03);
  EXPECT_NEAR(sd, 3.0, 0.03);
  // uint8 saturates.
  std::vector<uint8_t> u(1000, 250), uo(1000);
  GaussianNoise(u.data(), uo.data(), DType::kUInt8, u.size(), 50.0, 1.0, rng);
  for (uint8_t v : uo) ASSERT_EQ(v, 255);
}

TEST(NoiseKernels, SaltAndPepperFractionsPerPixelAndPerChannel) {
  const int64_t pixels = 100000, c = 3;
  std::vector<uint8_t> in(size_t(pixels * c), 100), out(in.size());
  RandomGenerator rng(7);
  SaltAndPepperParams p{0.2, 0.25, 255, 0, false};
  SaltAndPepper(in.data(), out.data(), DType::kUInt8, PixelGeom{pixels, c, c, 1}, p, rng);
  int64_t salt = 0, pepper = 0;
  for (int64_t px = 0; px < pixels; ++px) {
    const uint8_t v = out[size_t(px * c)];
    ASSERT_EQ(out[size_t(px * c + 1)], v);  // all channels alike
    ASSERT_EQ(out[size_t(px * c + 2)], v);
    salt += v == 255;
    pepper += v == 0;
  }
  EXPECT_NEAR(double(salt) / pixels, 0.05, 0.004);
  EXPECT_NEAR(double(pepper) / pixels, 0.15, 0.006);
  p.per_channel = true;
  SaltAndPepper(in.data(), out.data(), DType::kUInt8, PixelGeom{pixels, c, c, 1}, p, rng);
  int64_t mixed = 0, changed = 0;
  for (int64_t px = 0; px < pixels; ++px) {
    const uint8_t* q = &out[size_t(px * c)];
    mixed += !(q[0] == q[1] && q[1] == q[2]);
    for (int k = 0; k < c; ++k) changed += q[k] != 100;
  }
  EXPECT_GT(mixed, pixels / 4);
  EXPECT_NEAR(double(changed) / (pixels * c), 0.2, 0.005);
}

TEST(GridMaskKernel, MatchesDalisFormula) {
  const int h = 40, w = 53, c = 3;
  const auto in = RandomBytes(size_t(h * w * c), 11);
  for (GridMaskParams p : {GridMaskParams{10, 0.5f, 0.f, 0.f, 0.f}, GridMaskParams{7, 0.3f, 0.6f, 2.5f, -4.f},
                           GridMaskParams{16, 0.8f, -1.2f, 0.f, 3.f}}) {
    std::vector<uint8_t> out(in.size());
    GridMask(in.data(), out.data(), DType::kUInt8, h, w, c, p);
    int zeroed = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        // Rotate the point by -angle, shift, in double (independently of the kernel's float steps).
        const double ca = std::cos(double(p.angle)), sa = std::sin(double(p.angle));
        const double fx = (x * ca - y * sa - p.shift_x) / p.tile, fy = (x * sa + y * ca - p.shift_y) / p.tile;
        const double frx = fx - std::floor(fx), fry = fy - std::floor(fy);
        if (std::abs(frx - p.ratio) < 1e-4 || std::abs(fry - p.ratio) < 1e-4 || frx > 1 - 1e-4 || fry > 1 - 1e-4 ||
            frx < 1e-4 || fry < 1e-4)
          continue;  // on an edge: float rounding decides
        const bool keep = frx >= p.ratio || fry >= p.ratio;
        for (int k = 0; k < c; ++k) {
          const size_t e = size_t((y * w + x) * c + k);
          ASSERT_EQ(out[e], keep ? in[e] : 0) << y << "," << x;
        }
        zeroed += !keep;
      }
    EXPECT_GT(zeroed, 0);
  }
}

TEST(EraseKernel, FillsTheClippedBox) {
  const std::vector<int64_t> shape{6, 7, 3};
  std::vector<int16_t> data(6 * 7 * 3, 5);
  EraseBox(data.data(), DType::kInt16, shape, {2, -3, 0}, {9, 4, 3}, {1, 2, 40000}, 2);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 7; ++x)
      for (int c = 0; c < 3; ++c) {
        const bool in_box = y >= 2 && x < 4;
        const int16_t want = in_box ? (c == 0 ? 1 : c == 1 ? 2 : 32767) : 5;
        ASSERT_EQ(data[size_t((y * 7 + x) * 3 + c)], want);
      }
}

TEST(JpegDistortKernel, MatchesTurboJpegRoundTrip) {
  const Image img = Photo();
  for (int q : {90, 50, 20, 5}) {
    std::vector<uint8_t> got(img.data.size());
    JpegDistort(img.data.data(), img.h, img.w, img.c, q, got.data());
    tjhandle c = tjInitCompress();
    unsigned char* buf = nullptr;
    unsigned long size = 0;
    ASSERT_EQ(tjCompress2(c, img.data.data(), img.w, 0, img.h, TJPF_RGB, &buf, &size, TJSAMP_420, q, TJFLAG_ACCURATEDCT), 0);
    tjDestroy(c);
    const Image ref = testing::TjDecode(std::vector<uint8_t>(buf, buf + size), TJPF_RGB);
    tjFree(buf);
    EXPECT_EQ(testing::MaxAbsDiff(got, ref.data), 0) << q;
  }
  // Lower quality, lower PSNR.
  double last = 1e9;
  for (int q : {95, 60, 25, 5}) {
    std::vector<uint8_t> got(img.data.size());
    JpegDistort(img.data.data(), img.h, img.w, img.c, q, got.data());
    const double psnr = testing::Psnr(got, img.data);
    EXPECT_LT(psnr, last) << q;
    last = psnr;
  }
  EXPECT_THROW(JpegDistort(img.data.data(), 4, 4, 2, 50, std::vector<uint8_t>(32).data()), sluice::Error);
}

}  // namespace
}  // namespace sluice::kernels
