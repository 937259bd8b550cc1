#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <vector>
#include <optional>
#include <cstring>
#include <random>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_window.h"
#include "kernels_test_util.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {
using namespace testing;

struct PillowCase {
  const char* filter_name;
  ResizeFilter filter;
};
const PillowCase kPillow[] = {{"nearest", ResizeFilter::kNearest},
                              {"linear", ResizeFilter::kLinear},
                              {"cubic", ResizeFilter::kCubic},
                              {"lanczos", ResizeFilter::kLanczos3}};

TEST(Resize, MatchesPillowReferences) {
  Image src = Decode(ReadImage("resize_src.png"));
  ASSERT_EQ(src.w, 200);
  struct Geo { const char* name; int w, h; std::optional<ResizeRoi> roi; };
  const Geo geos[] = {{"down", 90, 90, std::nullopt}, {"up", 311, 257, std::nullopt},
                      {"roi", 64, 48, ResizeRoi{20.5f, 10.25f, 150.0f, 110.0f}}};
  for (const PillowCase& pc : kPillow) {
    for (const Geo& g : geos) {
      Image ref = Decode(ReadImage(std::string("resize_") + pc.filter_name + "_" + g.name + ".png"));
      ASSERT_EQ(ref.w, g.w);
      ASSERT_EQ(ref.h, g.h);
      ResizeParams p;
      p.min_filter = p.mag_filter = pc.filter;
      p.roi = g.roi;
      std::vector<uint8_t> out(size_t(g.w) * g.h * 3);
      Resize(src.data.data(), src.h, src.w, 3, out.data(), g.h, g.w, p);
      const double psnr = Psnr(out, ref.data);
      const int maxd = MaxAbsDiff(out, ref.data);
      if (pc.filter == ResizeFilter::kNearest) EXPECT_EQ(maxd, 0) << g.name;
      else EXPECT_GE(psnr, 40.0) << pc.filter_name << " " << g.name;
      // Same coefficients, order of passes and rounding as Pillow: bit-exact.
      EXPECT_EQ(maxd, 0) << pc.filter_name << " " << g.name << " psnr " << psnr;
    }
  }
}

// Independent double-precision reference: direct 2-D sum with separable weights (Pillow formula).
double RefFilter(ResizeFilter f, double x) {
  x = std::fabs(x);
  switch (f) {
    case ResizeFilter::kCubic: return x < 1 ? (1.5 * x - 2.5) * x * x + 1 : x < 2 ? ((-0.5 * x + 2.5) * x - 4) * x + 2 : 0;
    case ResizeFilter::kLanczos3: {
      if (x >= 3) return 0;
      auto sinc = [](double t) { return t == 0 ? 1.0 : std::sin(M_PI * t) / (M_PI * t); };
      return sinc(x) * sinc(x / 3);
    }
    case ResizeFilter::kGaussian: return x < 1.5 ? std::exp(-2 * x * x) : 0;
    default: return x < 1 ? 1 - x : 0;
  }
}
double RefSupport(ResizeFilter f) {
  return f == ResizeFilter::kCubic ? 2 : f == ResizeFilter::kLanczos3 ? 3 : f == ResizeFilter::kGaussian ? 1.5 : 1;
}
std::vector<std::vector<std::pair<int, double>>> RefWeights(int in, double r0, double r1, int out, ResizeFilter f, bool aa) {
  std::vector<std::vector<std::pair<int, double>>> res(static_cast<size_t>(out));
  const double scale = (r1 - r0) / out;
  const bool widen = aa || f == ResizeFilter::kTriangular || f == ResizeFilter::kGaussian;
  const double fs = widen ? std::max(1.0, scale) : 1.0, support = RefSupport(f) * fs;
  for (int i = 0; i < out; ++i) {
    const double center = r0 + (i + 0.5) * scale;
    double sum = 0;
    for (int x = std::max(0, int(center - support + 0.5)); x < std::min(in, int(center + support + 0.5)); ++x) {
      const double w = RefFilter(f, (x - center + 0.5) / fs);
      res[size_t(i)].push_back({x, w});
      sum += w;
    }
    for (auto& [x, w] : res[size_t(i)]) w /= sum;
  }
  return res;
}

TEST(Resize, FloatPathMatchesDoubleReference) {
  std::mt19937 rng(7);
  const int H = 41, W = 53;
  for (int C : {1, 2, 3, 4}) {
    std::vector<float> in(size_t(H) * W * C);
    for (auto& v : in) v = float(rng() % 256);
    for (ResizeFilter f : {ResizeFilter::kLinear, ResizeFilter::kCubic, ResizeFilter::kLanczos3, ResizeFilter::kTriangular,
                           ResizeFilter::kGaussian}) {
      for (auto [oh, ow] : {std::pair{17, 29}, std::pair{77, 61}, std::pair{41, 20}}) {
        for (bool aa : {true, false}) {
          ResizeParams p;
          p.min_filter = p.mag_filter = f;
          p.antialias = aa;
          std::vector<float> out(size_t(oh) * ow * C);
          Resize(in.data(), H, W, C, out.data(), oh, ow, p);
          auto wx = RefWeights(W, 0, W, ow, f, aa), wy = RefWeights(H, 0, H, oh, f, aa);
          double maxerr = 0;
          for (int y = 0; y < oh; ++y)
            for (int x = 0; x < ow; ++x)
              for (int c = 0; c < C; ++c) {
                double acc = 0;
                for (auto [sy, ky] : wy[size_t(y)])
                  for (auto [sx, kx] : wx[size_t(x)]) acc += ky * kx * in[(size_t(sy) * W + sx) * C + c];
                maxerr = std::max(maxerr, std::fabs(acc - out[(size_t(y) * ow + x) * C + c]));
              }
          EXPECT_LT(maxerr, 2e-3) << "C=" << C << " filter " << int(f) << " " << oh << "x" << ow << " aa=" << aa;
        }
      }
    }
  }
}

// Without antialiasing a strong downscale reads only some intermediate rows, and the horizontal
// pass computes only those (resize_rows.h): uint8 RGB and float, whole images and windows, at 1/4
// and 1/2.7, against the float path rounded and the double-precision reference.
TEST(Resize, NoAntialiasDownscaleSkipsUnreadRowsWithTheSameResult) {
  std::mt19937 rng(12);
  const int H = 173, W = 241, C = 3;
  std::vector<uint8_t> in(size_t(H) * W * C);
  for (auto& v : in) v = uint8_t(rng());
  std::vector<float> inf(in.begin(), in.end());
  for (auto [oh, ow] : {std::pair{43, 60}, std::pair{64, 89}}) {
    ResizeParams p;
    p.min_filter = p.mag_filter = ResizeFilter::kLinear;
    p.antialias = false;
    std::vector<uint8_t> out8(size_t(oh) * ow * C);
    std::vector<float> outf(out8.size());
    Resize(in.data(), H, W, C, out8.data(), oh, ow, p);
    Resize(inf.data(), H, W, C, outf.data(), oh, ow, p);
    auto wx = RefWeights(W, 0, W, ow, p.min_filter, false), wy = RefWeights(H, 0, H, oh, p.min_filter, false);
    double maxerr = 0;
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        for (int c = 0; c < C; ++c) {
          double acc = 0;
          for (auto [sy, ky] : wy[size_t(y)])
            for (auto [sx, kx] : wx[size_t(x)]) acc += ky * kx * in[(size_t(sy) * W + sx) * C + c];
          const size_t i = (size_t(y) * ow + x) * C + c;
          maxerr = std::max(maxerr, std::fabs(acc - outf[i]));
          ASSERT_LE(std::abs(int(out8[i]) - int(std::nearbyint(acc))), 1) << oh << "x" << ow << " at " << i;
        }
    EXPECT_LT(maxerr, 2e-3) << oh << "x" << ow;
    // The same output from a window holding only rows 30-160 and columns 10-230 of the image, for
    // the output rows and columns that window covers (ResizeWindow leaves the others zero).
    std::vector<uint8_t> win(size_t(131) * 221 * C);
    for (int y = 0; y < 131; ++y) std::memcpy(&win[size_t(y) * 221 * C], &in[(size_t(y + 30) * W + 10) * C], 221 * C);
    std::vector<uint8_t> outw(out8.size());
    const ResizeComputed r = ResizeWindow(win.data(), 131, 221, C, ResizeInputWindow{30, 10, H, W}, outw.data(), oh, ow, p);
    ASSERT_GT(r.rows.end - r.rows.begin, 0);
    for (int y = r.rows.begin; y < r.rows.end; ++y)
      for (int x = r.cols.begin; x < r.cols.end; ++x)
        for (int c = 0; c < C; ++c) {
          const size_t i = (size_t(y) * ow + x) * C + c;
          ASSERT_EQ(outw[i], out8[i]) << "window, " << oh << "x" << ow << " at " << x << "," << y;
        }
  }
}

TEST(Resize, Uint8AgreesWithFloatPathAllChannelCounts) {
  std::mt19937 rng(3);
  const int H = 60, W = 75;
  for (int C : {1, 2, 3, 4}) {
    std::vector<uint8_t> in(size_t(H) * W * C);
    for (auto& v : in) v = uint8_t(rng());
    std::vector<float> inf(in.begin(), in.end());
    for (ResizeFilter f : {ResizeFilter::kLinear, ResizeFilter::kCubic}) {
    ResizeParams p;
    p.min_filter = p.mag_filter = f;
    std::vector<uint8_t> out8(size_t(31) * 50 * C), outf8(out8.size());
    std::vector<float> outf(out8.size());
    Resize(in.data(), H, W, C, out8.data(), 31, 50, p);
    Resize(inf.data(), H, W, C, outf.data(), 31, 50, p);
    Resize(inf.data(), H, W, C, outf8.data(), 31, 50, p);
    std::vector<uint8_t> rounded(outf.size());
    for (size_t i = 0; i < outf.size(); ++i) rounded[i] = uint8_t(std::clamp(std::nearbyint(outf[i]), 0.f, 255.f));
    EXPECT_EQ(outf8, rounded) << C;
    // The fixed-point path rounds (and, like Pillow, clamps) a uint8 intermediate: with an
    // overshooting filter on noise the clamp matters, so compare exactly only the linear filter.
    if (f == ResizeFilter::kLinear) {
      EXPECT_LE(MaxAbsDiff(out8, rounded), 1) << C;
    }
    std::vector<float> outuf(out8.size());
    Resize(in.data(), H, W, C, outuf.data(), 31, 50, p);
    EXPECT_EQ(outuf, outf);
    }
  }
}

// uint8 RGB takes a block-per-pixel horizontal pass on AVX2/AVX3 and the generic gather pass on
// the other targets: both must give the same bytes, for down- and up-scaling, negative weights
// (cubic, Lanczos), more taps than the block pass takes (Lanczos at 1/4: the generic pass), output
// widths that are not multiples of 8, flipped ROIs and windowed inputs.
TEST(Resize, Uint8RgbSameBytesOnEverySimdTarget) {
  std::mt19937 rng(17);
  std::vector<uint8_t> in(size_t(173) * 241 * 3);
  for (auto& v : in) v = uint8_t(rng());
  struct Case { ResizeFilter f; int h, w; std::optional<ResizeRoi> roi; };
  const Case cases[] = {{ResizeFilter::kLinear, 97, 224, std::nullopt}, {ResizeFilter::kLinear, 61, 83, std::nullopt},
                        {ResizeFilter::kLinear, 300, 500, std::nullopt}, {ResizeFilter::kCubic, 77, 131, std::nullopt},
                        {ResizeFilter::kLanczos3, 50, 60, std::nullopt}, {ResizeFilter::kLanczos3, 40, 57, std::nullopt},
                        {ResizeFilter::kLinear, 90, 117, ResizeRoi{230.f, 160.f, 7.5f, 3.25f}},
                        {ResizeFilter::kTriangular, 100, 45, ResizeRoi{3.f, 1.f, 200.f, 150.f}}};
  std::vector<std::vector<uint8_t>> first;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  EXPECT_GE(targets.size(), 2u);
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    std::vector<std::vector<uint8_t>> all;
    for (const Case& c : cases) {
      ResizeParams p;
      p.min_filter = p.mag_filter = c.f;
      p.roi = c.roi;
      all.emplace_back(size_t(c.h) * c.w * 3);
      Resize(in.data(), 173, 241, 3, all.back().data(), c.h, c.w, p);
      // A window of the source (rows 20-149, columns 31-230), as the ROI decoders hand it over.
      std::vector<uint8_t> win(size_t(130) * 200 * 3);
      for (int y = 0; y < 130; ++y)
        std::memcpy(&win[size_t(y) * 600], &in[(size_t(y + 20) * 241 + 31) * 3], 600);
      all.emplace_back(size_t(c.h) * c.w * 3);
      ResizeWindow(win.data(), 130, 200, 3, ResizeInputWindow{20, 31, 173, 241}, all.back().data(), c.h, c.w, p);
    }
    if (first.empty()) {
      first = all;
      continue;
    }
    for (size_t k = 0; k < all.size(); ++k)
      EXPECT_EQ(all[k], first[k]) << hwy::TargetName(target) << " case " << k / 2 << (k % 2 ? " (window)" : "");
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(Resize, FlippedRoiMirrors) {
  Image src = Decode(ReadImage("resize_src.png"));
  for (ResizeFilter f : {ResizeFilter::kNearest, ResizeFilter::kLinear, ResizeFilter::kLanczos3}) {
    ResizeParams p;
    p.min_filter = p.mag_filter = f;
    p.roi = ResizeRoi{10.f, 5.f, 190.f, 140.f};
    std::vector<uint8_t> a(size_t(70) * 80 * 3), b(a.size());
    Resize(src.data.data(), src.h, src.w, 3, a.data(), 70, 80, p);
    p.roi = ResizeRoi{190.f, 140.f, 10.f, 5.f};  // both axes flipped
    Resize(src.data.data(), src.h, src.w, 3, b.data(), 70, 80, p);
    for (int y = 0; y < 70; ++y)
      for (int x = 0; x < 80; ++x)
        for (int c = 0; c < 3; ++c)
          ASSERT_EQ(b[(size_t(y) * 80 + x) * 3 + c], a[(size_t(69 - y) * 80 + (79 - x)) * 3 + c]) << int(f);
  }
}

TEST(Resize, IdentityAndErrors) {
  std::vector<uint8_t> in(12 * 10 * 3);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 7);
  std::vector<uint8_t> out(in.size());
  Resize(in.data(), 12, 10, 3, out.data(), 12, 10, ResizeParams{});
  EXPECT_EQ(in, out);
  ReleaseResizeScratch();
  Resize(in.data(), 12, 10, 3, out.data(), 12, 10, ResizeParams{});
  EXPECT_EQ(in, out);
  EXPECT_THROW(Resize(in.data(), 12, 10, 5, out.data(), 12, 10, ResizeParams{}), Error);
  EXPECT_THROW(Resize(in.data(), 0, 10, 3, out.data(), 12, 10, ResizeParams{}), Error);
  ResizeParams degenerate;
  degenerate.roi = ResizeRoi{3, 3, 3, 8};
  EXPECT_THROW(Resize(in.data(), 12, 10, 3, out.data(), 12, 10, degenerate), Error);
  // 1-pixel source, large output, and a ROI entirely outside the image do not crash.
  std::vector<uint8_t> one = {1, 2, 3}, big(size_t(50) * 40 * 3);
  Resize(one.data(), 1, 1, 3, big.data(), 50, 40, ResizeParams{});
  EXPECT_EQ(big[0], 1);
  ResizeParams outside;
  outside.roi = ResizeRoi{100, 100, 120, 130};
  Resize(in.data(), 12, 10, 3, big.data(), 50, 40, outside);
  outside.roi = ResizeRoi{-1e30f, 1e30f, 1e30f, -1e30f};
  Resize(in.data(), 12, 10, 3, big.data(), 50, 40, outside);
  outside.min_filter = outside.mag_filter = ResizeFilter::kNearest;
  Resize(in.data(), 12, 10, 3, big.data(), 50, 40, outside);
}

}  // namespace
}  // namespace sluice::kernels
