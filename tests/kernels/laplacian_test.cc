// Laplacian2D (kernels/filter/laplacian.h) against independent references:
//   - the windows against their closed forms (binomial coefficients; OpenCV's Sobel second
//     derivative [1, 0, -2, 0, 1] and [1, 2, -1, -4, -1, 2, 1]);
//   - a direct double-precision 2-D sum with reflect-101 indexing written here (not the kernel's
//     separable passes), for every window/smoothing/scale combination below, HWC, CHW and HW,
//     images narrower than the window, every output type: within 1e-4 relative for float output,
//     exact for integer outputs (the sums are exact integers);
//   - cv2.Laplacian (OpenCV 4.6, ksize 3 and 5, BORDER_REFLECT_101, CV_16S and CV_8U) on a real
//     photograph: identical values (run through /usr/bin/python3; skipped without python3-opencv).
#include "kernels/filter/laplacian.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "kernels_test_util.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

TEST(LaplacianWindows, ClosedForms) {
  EXPECT_EQ(LaplacianSmoothingWindow(1), (std::vector<float>{1}));
  EXPECT_EQ(LaplacianSmoothingWindow(5), (std::vector<float>{1, 4, 6, 4, 1}));
  EXPECT_EQ(LaplacianDerivativeWindow(3), (std::vector<float>{1, -2, 1}));
  EXPECT_EQ(LaplacianDerivativeWindow(5), (std::vector<float>{1, 0, -2, 0, 1}));
  EXPECT_EQ(LaplacianDerivativeWindow(7), (std::vector<float>{1, 2, -1, -4, -1, 2, 1}));
  const auto s23 = LaplacianSmoothingWindow(23);
  EXPECT_EQ(s23[11], 705432.f);  // C(22, 11), exact in float
  EXPECT_THROW(LaplacianDerivativeWindow(1), Error);
  EXPECT_THROW(LaplacianSmoothingWindow(4), Error);
  // DALI's normalized_kernel: 2^(-s + n + 2), n = 2.
  const auto w = MakeLaplacianWindows(3, 5, 1, 3, true, 9, 9);
  EXPECT_EQ(w.scale_y, std::ldexp(1.f, -(3 + 3) + 4));
  EXPECT_EQ(w.scale_x, std::ldexp(1.f, -(5 + 1) + 4));
}

int64_t Reflect101(int64_t i, int64_t n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

// The direct 2-D sum of both partial derivatives, in double, on channel c of an HWC float image.
std::vector<double> Reference(const std::vector<float>& img, int h, int w, int c_n, const LaplacianWindows& lw) {
  std::vector<double> out(img.size());
  auto term = [&](const std::vector<float>& ky, const std::vector<float>& kx, int y, int x, int c) {
    double s = 0;
    const int ry = int(ky.size()) / 2, rx = int(kx.size()) / 2;
    for (int i = 0; i < int(ky.size()); ++i)
      for (int j = 0; j < int(kx.size()); ++j)
        s += double(ky[size_t(i)]) * kx[size_t(j)] *
             img[size_t((Reflect101(y + i - ry, h) * w + Reflect101(x + j - rx, w)) * c_n + c)];
    return s;
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < c_n; ++c)
        out[size_t((y * w + x) * c_n + c)] = lw.scale_y * term(lw.deriv_y, lw.smooth_x, y, x, c) +
                                             lw.scale_x * term(lw.smooth_y, lw.deriv_x, y, x, c);
  return out;
}

struct Case {
  int wy, wx, sy, sx;
  bool norm;
  float scy, scx;
};
const Case kCases[] = {{3, 3, 3, 3, false, 1, 1},  {5, 5, 5, 5, false, 1, 1},  {7, 3, 1, 5, false, 0.5f, 2},
                       {3, 9, 3, 1, true, 1, 1},   {23, 23, 23, 23, true, 1, 1}, {5, 3, 1, 1, false, -1, 1}};

TEST(LaplacianKernel, MatchesDirectSumEveryLayoutAndType) {
  std::mt19937 rng(5);
  for (auto [h, w] : {std::pair{17, 29}, std::pair{1, 1}, std::pair{2, 40}, std::pair{33, 3}}) {
    for (int c_n : {1, 3}) {
      std::vector<uint8_t> u8(size_t(h * w * c_n));
      for (auto& v : u8) v = uint8_t(rng() & 0xff);
      std::vector<float> f(u8.begin(), u8.end());
      std::vector<uint8_t> planar(u8.size());
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < c_n; ++c) planar[size_t((c * h + y) * w + x)] = u8[size_t((y * w + x) * c_n + c)];
      for (const Case& k : kCases) {
        const auto lw = MakeLaplacianWindows(k.wy, k.wx, k.sy, k.sx, k.norm, k.scy, k.scx);
        const auto ref = Reference(f, h, w, c_n, lw);
        const std::string what = std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c_n) + " window " +
                                 std::to_string(k.wy) + "," + std::to_string(k.wx);
        std::vector<float> got(u8.size()), got_chw(u8.size());
        Laplacian2D(u8.data(), DType::kUInt8, got.data(), DType::kFloat32, ImageGeom::HWC(h, w, c_n), lw);
        Laplacian2D(planar.data(), DType::kUInt8, got_chw.data(), DType::kFloat32, ImageGeom::CHW(c_n, h, w), lw);
        double scale = 1;
        for (double v : ref) scale = std::max(scale, std::fabs(v));
        for (size_t e = 0; e < ref.size(); ++e) ASSERT_NEAR(got[e], ref[e], 1e-6 * scale) << what << " at " << e;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            for (int c = 0; c < c_n; ++c)
              ASSERT_EQ(got_chw[size_t((c * h + y) * w + x)], got[size_t((y * w + x) * c_n + c)]) << what;
        if (k.norm || k.scy != 1) continue;  // integer outputs: exact sums only
        std::vector<uint8_t> o8(u8.size());
        std::vector<int16_t> o16(u8.size());
        Laplacian2D(u8.data(), DType::kUInt8, o8.data(), DType::kUInt8, ImageGeom::HWC(h, w, c_n), lw);
        Laplacian2D(f.data(), DType::kFloat32, o16.data(), DType::kInt16, ImageGeom::HWC(h, w, c_n), lw);
        for (size_t e = 0; e < ref.size(); ++e) {
          ASSERT_EQ(o8[e], std::clamp(ref[e], 0.0, 255.0)) << what << " uint8 at " << e;
          ASSERT_EQ(o16[e], std::clamp(ref[e], -32768.0, 32767.0)) << what << " int16 at " << e;
        }
      }
    }
  }
}

struct TmpDir {
  std::string path;
  TmpDir() {
    path = (std::filesystem::temp_directory_path() / ("sluice_lap_kt_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(path);
  }
  ~TmpDir() { std::filesystem::remove_all(path); }
};

// cv2.Laplacian on the photograph (uint8 HWC) -> raw bytes of `out`; false without python3-opencv.
bool CvLaplacian(const TmpDir& d, const testing::Image& img, const std::string& call, std::vector<uint8_t>* out) {
  std::ofstream(d.path + "/in.raw", std::ios::binary)
      .write(reinterpret_cast<const char*>(img.data.data()), std::streamsize(img.data.size()));
  std::ofstream(d.path + "/s.py") << "import sys\ntry:\n  import numpy as np, cv2\nexcept ImportError:\n  sys.exit(77)\n"
                                  << "img = np.fromfile('" << d.path << "/in.raw', np.uint8).reshape(" << img.h << ","
                                  << img.w << "," << img.c << ")\nout = " << call << "\nout.tofile('" << d.path
                                  << "/out.raw')\n";
  if (std::system(("/usr/bin/python3 " + d.path + "/s.py").c_str()) != 0) return false;
  *out = testing::ReadFile(d.path + "/out.raw");
  return true;
}

TEST(LaplacianKernel, MatchesOpenCvOnAPhoto) {
  const testing::Image img = testing::Decode(testing::ReadImage("photo_500x375.jpg"));
  const ImageGeom g = ImageGeom::HWC(img.h, img.w, img.c);
  TmpDir d;
  for (int k : {3, 5}) {
    const auto lw = MakeLaplacianWindows(k, k, k, k, false, 1, 1);
    std::vector<int16_t> got16(img.data.size());
    std::vector<uint8_t> got8(img.data.size()), ref;
    Laplacian2D(img.data.data(), DType::kUInt8, got16.data(), DType::kInt16, g, lw);
    Laplacian2D(img.data.data(), DType::kUInt8, got8.data(), DType::kUInt8, g, lw);
    const std::string ks = std::to_string(k);
    if (!CvLaplacian(d, img, "cv2.Laplacian(img, cv2.CV_16S, ksize=" + ks + ", borderType=cv2.BORDER_REFLECT_101)", &ref))
      GTEST_SKIP() << "python3-opencv is not available";
    ASSERT_EQ(ref.size(), got16.size() * 2);
    EXPECT_EQ(0, std::memcmp(ref.data(), got16.data(), ref.size())) << "ksize " << k << " CV_16S";
    ASSERT_TRUE(CvLaplacian(d, img, "cv2.Laplacian(img, cv2.CV_8U, ksize=" + ks + ")", &ref));
    EXPECT_EQ(ref, got8) << "ksize " << k << " CV_8U";
  }
}

}  // namespace
}  // namespace sluice::kernels
