// Sluice's geometry, colour, blur and filter kernels (Laplacian, median, dilate/erode, perspective
// warp, remap, debayer: issue 26) against OpenCV, one thread, on the same images with the same parameters
// (issue 14, "Speed"). Built only where CMake finds OpenCV (core, imgproc); run it
// with `make bench-opencv`, which also prints the ratio table (benchmarks/opencv_ratio_table.py).
//
// Benchmarks are named <op>/<side>/<width>x<height>, side "sluice" or "opencv"; the ratio of an op
// is opencv time / sluice time (> 1: Sluice is faster). The opencv side of each op also reports
// `mean_abs_diff`, the mean absolute difference of the two outputs (computed once, outside the timed
// loop): near 0 where both compute the same thing, larger where OpenCV's formula differs (noted).
//
// Input: a real photograph (the first JPEG of sample_data/train, else $SLUICE_BENCH_IMAGE, else the
// committed tests/data/images/photo_500x375.jpg), decoded to RGB and resized (Sluice, linear) to
// 640x480 and 1920x1080 once, before any timing; the `_gray` ops (median, dilate, erode) take its
// grey version (cv::COLOR_RGB2GRAY), one channel.
#include <benchmark/benchmark.h>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_kernels_common.h"
#include "kernels/color/color_adjust.h"
#include "kernels/color/color_space.h"
#include "kernels/color/debayer.h"
#include "kernels/color/equalize.h"
#include "kernels/crop/flip.h"
#include "kernels/decode/image_decoder.h"
#include "kernels/filter/convolution.h"
#include "kernels/filter/gaussian_window.h"
#include "kernels/filter/laplacian.h"
#include "kernels/morphology/rank_filter.h"
#include "kernels/resize/resize.h"
#include "kernels/warp/affine_transform.h"
#include "kernels/warp/warp_affine.h"
#include "kernels/warp/remap.h"
#include "kernels/warp/warp_perspective.h"

namespace {
using namespace sluice::kernels;
namespace fs = std::filesystem;
using sluice::DType;

// ---- The input photograph ----

std::string PhotoPath() {
  if (const char* env = std::getenv("SLUICE_BENCH_IMAGE"); env && *env) return env;
  const fs::path train = fs::path(sluice::bench::SourceRoot()) / "sample_data" / "train";
  std::vector<fs::path> jpegs;
  if (fs::is_directory(train))
    for (const auto& e : fs::recursive_directory_iterator(train))
      if (e.is_regular_file() && e.path().extension() == ".jpg") jpegs.push_back(e.path());
  if (!jpegs.empty()) return std::min_element(jpegs.begin(), jpegs.end())->string();
  return sluice::bench::BenchImagePath();
}

struct Photo {
  std::string source;
  int h = 0, w = 0;
  std::vector<uint8_t> px;  // h x w x 3, RGB
};

Photo DecodePhoto() {
  Photo p;
  p.source = PhotoPath();
  std::ifstream f(p.source, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + p.source);
  const std::vector<uint8_t> jpg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto plan = PlanDecode(PeekImage(jpg), DecodeParams{});
  if (plan.channels != 3) throw std::runtime_error(p.source + ": expected an RGB photograph");
  p.h = plan.height;
  p.w = plan.width;
  p.px.resize(plan.size_bytes());
  DecodeImage(jpg, DecodeParams{}, p.px.data(), p.px.size());
  return p;
}

// The photograph resized to w x h (cached per size).
const cv::Mat& Image(int w, int h) {
  static const Photo photo = DecodePhoto();
  static std::vector<std::pair<std::pair<int, int>, cv::Mat>> cache;
  for (const auto& [size, m] : cache)
    if (size == std::pair{w, h}) return m;
  cv::Mat m(h, w, CV_8UC3);
  Resize(photo.px.data(), photo.h, photo.w, 3, m.data, h, w, ResizeParams{});
  cache.emplace_back(std::pair{w, h}, m);
  return cache.back().second;
}

// The grey version (one channel) of Image(w, h), cached per size.
const cv::Mat& GrayImage(int w, int h) {
  static std::vector<std::pair<std::pair<int, int>, cv::Mat>> cache;
  for (const auto& [size, m] : cache)
    if (size == std::pair{w, h}) return m;
  cv::Mat m;
  cv::cvtColor(Image(w, h), m, cv::COLOR_RGB2GRAY);
  cache.emplace_back(std::pair{w, h}, m);
  return cache.back().second;
}

HwcView<const uint8_t> View(const cv::Mat& m) { return {m.data, m.rows, m.cols, m.channels()}; }
HwcView<uint8_t> View(cv::Mat& m) { return {m.data, m.rows, m.cols, m.channels()}; }

double MeanAbsDiff(const cv::Mat& a, const cv::Mat& b) {
  if (a.size() != b.size() || a.type() != b.type()) return -1;
  return cv::norm(a, b, cv::NORM_L1) / static_cast<double>(a.total() * a.channels());
}

// ---- One op = a Sluice function and an OpenCV function on the same input ----

using OpFn = std::function<void(const cv::Mat& in, cv::Mat& out)>;

struct Op {
  std::string name;
  OpFn sluice, opencv;
  int channels = 3;  // 1: the photograph converted to grey (cv::COLOR_RGB2GRAY) once, before timing
};

void RunSide(benchmark::State& st, const Op& op, bool sluice_side, int w, int h) {
  const cv::Mat& in = op.channels == 1 ? GrayImage(w, h) : Image(w, h);
  cv::Mat out;
  const OpFn& fn = sluice_side ? op.sluice : op.opencv;
  fn(in, out);  // warm-up: allocates `out` once
  for (auto _ : st) {
    fn(in, out);
    benchmark::DoNotOptimize(out.data);
    benchmark::ClobberMemory();
  }
  if (!sluice_side) {
    cv::Mat ref;
    op.sluice(in, ref);
    st.counters["mean_abs_diff"] = MeanAbsDiff(ref, out);
  }
  st.SetLabel(std::to_string(w) + "x" + std::to_string(h) + " -> " + std::to_string(out.cols) + "x" +
              std::to_string(out.rows) + "x" + std::to_string(out.channels()));
  st.SetItemsProcessed(st.iterations());  // items/s = images/s
}

// ---- Geometry ----

// A generic affine map (rotation 10 deg, scale 0.9, shear 0.1 about the centre), output -> input.
Affine2D TestWarp(int w, int h) {
  const Affine2D a = Compose(Rotation(10), Compose(Scaling(0.9, 0.9), Shear(0.1, 0)));
  Affine2D inv;
  Invert(AboutCenter(a, w / 2.0, h / 2.0), &inv);
  return inv;
}

// OpenCV's matrix for Sluice's pixel-centre convention (warp_affine.h): [A | A (0.5, 0.5) + t - (0.5, 0.5)].
cv::Mat OpenCvMap(const Affine2D& m) {
  cv::Mat a(2, 3, CV_64F);
  for (int r = 0; r < 2; ++r) {
    a.at<double>(r, 0) = m.m[r][0];
    a.at<double>(r, 1) = m.m[r][1];
    a.at<double>(r, 2) = m.m[r][0] * 0.5 + m.m[r][1] * 0.5 + m.m[r][2] - 0.5;
  }
  return a;
}

Op WarpOp(const std::string& name, WarpInterp interp) {
  WarpOptions opt;
  opt.interp = interp;
  opt.clamp = false;
  opt.fill = 0;
  const int cv_interp = interp == WarpInterp::kLinear ? cv::INTER_LINEAR : cv::INTER_NEAREST;
  return {name,
          [opt](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            WarpAffine(View(in), View(out), TestWarp(in.cols, in.rows), opt);
          },
          [cv_interp](const cv::Mat& in, cv::Mat& out) {
            cv::warpAffine(in, out, OpenCvMap(TestWarp(in.cols, in.rows)), in.size(),
                           cv_interp | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar::all(0));
          }};
}

// DALI's rotate: 30 degrees, keep_size=False (the whole rotated image), linear, fill 0.
Op RotateOp() {
  constexpr double kAngle = 30;
  auto geometry = [](const cv::Mat& in, cv::Size* size) {
    const auto hw = RotatedCanvasSize(in.rows, in.cols, kAngle);
    *size = cv::Size(static_cast<int>(hw[1]), static_cast<int>(hw[0]));
    return RotateInverseMap(in.rows, in.cols, hw[0], hw[1], kAngle);
  };
  return {"rotate",
          [geometry](const cv::Mat& in, cv::Mat& out) {
            cv::Size size;
            const Affine2D m = geometry(in, &size);
            out.create(size, CV_8UC3);
            WarpAffine(View(in), View(out), m, WarpOptions{WarpInterp::kLinear, false, 0});
          },
          [geometry](const cv::Mat& in, cv::Mat& out) {
            cv::Size size;
            const Affine2D m = geometry(in, &size);
            cv::warpAffine(in, out, OpenCvMap(m), size, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                           cv::BORDER_CONSTANT, cv::Scalar::all(0));
          }};
}

Op FlipOp() {
  return {"flip_horizontal",
          [](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            Flip(in.data, out.data, in.rows, in.cols, 3, 1, true, false);
          },
          [](const cv::Mat& in, cv::Mat& out) { cv::flip(in, out, 1); }};
}

// Linear without antialiasing (DALI antialias=False): the same filter as OpenCV's INTER_LINEAR.
Op ResizeOp() {
  return {"resize_linear_224",
          [](const cv::Mat& in, cv::Mat& out) {
            out.create(224, 224, CV_8UC3);
            ResizeParams p;
            p.min_filter = p.mag_filter = ResizeFilter::kLinear;
            p.antialias = false;
            Resize(in.data, in.rows, in.cols, 3, out.data, 224, 224, p);
          },
          [](const cv::Mat& in, cv::Mat& out) { cv::resize(in, out, cv::Size(224, 224), 0, 0, cv::INTER_LINEAR); }};
}

// ---- Blur ----

// DALI's gaussian_blur with only sigma given: window 2 * ceil(3 sigma) + 1, border reflect_101
// (OpenCV's BORDER_DEFAULT).
Op BlurOp(const std::string& name, float sigma) {
  const int window = GaussianSigmaToWindow(sigma);
  return {name,
          [=](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            const std::vector<float> wts = GaussianWindow(window, sigma);
            SeparableFilter2D(in.data, DType::kUInt8, out.data, DType::kUInt8, ImageGeom::HWC(in.rows, in.cols, 3),
                              wts, wts, BorderMode::kReflect101);
          },
          [=](const cv::Mat& in, cv::Mat& out) {
            cv::GaussianBlur(in, out, cv::Size(window, window), sigma, sigma, cv::BORDER_REFLECT_101);
          }};
}

// DALI's laplacian with window_size = smoothing_size = k, uint8 -> uint8 (DALI's default dtype: the
// input's): cv::Laplacian(ksize = k, CV_8U), the same numbers (reflect-101 borders, saturated).
Op LaplacianOp(const std::string& name, int k) {
  const LaplacianWindows w = MakeLaplacianWindows(k, k, k, k, false, 1, 1);
  return {name,
          [=](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            Laplacian2D(in.data, DType::kUInt8, out.data, DType::kUInt8, ImageGeom::HWC(in.rows, in.cols, 3), w);
          },
          [=](const cv::Mat& in, cv::Mat& out) { cv::Laplacian(in, out, CV_8U, k, 1, 0, cv::BORDER_REFLECT_101); }};
}

// experimental.median_blur (window k x k, replicated border): cv::medianBlur, the same values;
// on the RGB photograph or (channels 1) its grey version.
Op MedianOp(const std::string& name, int k, int channels = 3) {
  const RankFilterParams p{RankOp::kMedian, k, k, k / 2, k / 2, BorderMode::kClamp};
  return {name,
          [=](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC(channels));
            RankFilter2D(in.data, out.data, DType::kUInt8, ImageGeom::HWC(in.rows, in.cols, channels), p);
          },
          [=](const cv::Mat& in, cv::Mat& out) { cv::medianBlur(in, out, k); }, channels};
}

// experimental.dilate / erode (k x k mask; DALI's default 3x3; constant neutral border):
// cv::dilate / cv::erode with a k x k rectangle, the same values.
Op MorphOp(const std::string& name, bool dilate, int k = 3, int channels = 3) {
  const RankFilterParams p{dilate ? RankOp::kMax : RankOp::kMin, k, k, k / 2, k / 2, BorderMode::kConstant};
  const cv::Mat element = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(k, k));
  return {name,
          [=](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC(channels));
            RankFilter2D(in.data, out.data, DType::kUInt8, ImageGeom::HWC(in.rows, in.cols, channels), p);
          },
          [=](const cv::Mat& in, cv::Mat& out) {
            if (dilate)
              cv::dilate(in, out, element);
            else
              cv::erode(in, out, element);
          },
          channels};
}

// experimental.warp_perspective, linear, constant border 0, a mild homography (destination ->
// source, OpenCV's pixel-centre convention): cv::warpPerspective with WARP_INVERSE_MAP (fixed-point
// coordinates and weights; Sluice computes them in double / float32).
Op PerspectiveOp(const std::string& name, PerspectiveInterp interp, int cv_interp) {
  const double m[9] = {0.9, 0.1, 10, -0.05, 1.1, 5, 0.0002, 0.0001, 1};
  PerspectiveParams p;
  std::copy(m, m + 9, p.map);
  p.interp = interp;
  cv::Mat cm(3, 3, CV_64F);
  for (int k = 0; k < 9; ++k) cm.at<double>(k / 3, k % 3) = m[k];
  return {name,
          [=](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            const ImageGeom g = ImageGeom::HWC(in.rows, in.cols, 3);
            WarpPerspective(in.data, g, out.data, g, DType::kUInt8, p);
          },
          [=](const cv::Mat& in, cv::Mat& out) {
            cv::warpPerspective(in, out, cm, in.size(), cv_interp | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT,
                                cv::Scalar::all(0));
          }};
}

// experimental.remap, pixel_origin "center": cv::remap with the same float maps (a mild swirl),
// BORDER_CONSTANT 0. The maps are built once per size, outside the timed loop.
Op RemapOp(const std::string& name, PerspectiveInterp interp, int cv_interp) {
  struct Maps {
    cv::Mat x, y;
  };
  auto maps = std::make_shared<std::vector<std::pair<std::pair<int, int>, Maps>>>();
  auto get = [maps](int w, int h) -> const Maps& {
    for (const auto& [k, v] : *maps)
      if (k == std::make_pair(w, h)) return v;
    Maps m{cv::Mat(h, w, CV_32F), cv::Mat(h, w, CV_32F)};
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double dx = x - w / 2.0, dy = y - h / 2.0, a = 0.3 * std::exp(-std::hypot(dx, dy) / (0.4 * w));
        m.x.at<float>(y, x) = float(w / 2.0 + dx * std::cos(a) - dy * std::sin(a));
        m.y.at<float>(y, x) = float(h / 2.0 + dx * std::sin(a) + dy * std::cos(a));
      }
    maps->push_back({{w, h}, m});
    return maps->back().second;
  };
  return {name,
          [get, interp](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            const Maps& m = get(in.cols, in.rows);
            const ImageGeom g = ImageGeom::HWC(in.rows, in.cols, 3);
            Remap(in.data, g, out.data, g, DType::kUInt8, m.x.ptr<float>(), m.y.ptr<float>(), in.cols,
                  interp, 0.f);
          },
          [get, cv_interp](const cv::Mat& in, cv::Mat& out) {
            const Maps& m = get(in.cols, in.rows);
            cv::remap(in, out, m.x, m.y, cv_interp, cv::BORDER_CONSTANT, cv::Scalar::all(0));
          }};
}

// ---- Colour ----

// HSV adjustment, OpenCV's way: RGB -> HSV (full 0..255 hue), a 3-channel table, HSV -> RGB.
cv::Mat HsvTable(double hue_degrees, double saturation, double value) {
  cv::Mat lut(1, 256, CV_8UC3);
  const int shift = static_cast<int>(std::lround(hue_degrees * 256.0 / 360.0));
  for (int v = 0; v < 256; ++v) {
    auto& e = lut.at<cv::Vec3b>(0, v);
    e[0] = static_cast<uint8_t>(((v + shift) % 256 + 256) % 256);
    e[1] = cv::saturate_cast<uint8_t>(v * saturation);
    e[2] = cv::saturate_cast<uint8_t>(v * value);
  }
  return lut;
}

void OpenCvHsvRoundTrip(const cv::Mat& in, cv::Mat& out, const cv::Mat& lut, cv::Mat& scratch) {
  cv::cvtColor(in, scratch, cv::COLOR_RGB2HSV_FULL);
  cv::LUT(scratch, lut, scratch);
  cv::cvtColor(scratch, out, cv::COLOR_HSV2RGB_FULL);
}

// Sluice's hsv/hue/saturation/color_twist: one 3x3 matrix in YIQ space (kernels::ColorMatrix3).
OpFn SluiceMatrix(const ColorTransform& t) {
  return [t](const cv::Mat& in, cv::Mat& out) {
    out.create(in.rows, in.cols, CV_8UC3);
    ColorMatrix3(in.data, DType::kUInt8, out.data, DType::kUInt8, in.total(), t);
  };
}

Op HsvStyleOp(const std::string& name, double hue, double saturation, double value) {
  const cv::Mat lut = HsvTable(hue, saturation, value);
  return {name, SluiceMatrix(ColorTwistTransform(hue, saturation, value, 1, 1, 128)),
          [lut](const cv::Mat& in, cv::Mat& out) {
            thread_local cv::Mat scratch;
            OpenCvHsvRoundTrip(in, out, lut, scratch);
          }};
}

// color_twist: the same 3x3 matrix + offset applied by cv::transform (OpenCV's colour-matrix op).
Op ColorTwistOp() {
  const ColorTransform t = ColorTwistTransform(20, 1.2, 1.0, 1.1, 0.9, 128);
  cv::Mat m(3, 4, CV_32F);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m.at<float>(r, c) = t.m[r][c];
    m.at<float>(r, 3) = t.offset[r];
  }
  return {"color_twist", SluiceMatrix(t), [m](const cv::Mat& in, cv::Mat& out) { cv::transform(in, out, m); }};
}

// brightness_contrast (brightness 1.2, contrast 0.8, centre 128): out = in * mul + add, which is
// OpenCV's convertTo(alpha, beta).
Op BrightnessContrastOp() {
  const AffineCoeffs k = BrightnessContrastCoeffs(1.2, 0, 0.8, 128, DType::kUInt8);
  return {"brightness_contrast",
          [k](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            ColorAffine(in.data, DType::kUInt8, out.data, DType::kUInt8, in.total() * 3, k);
          },
          [k](const cv::Mat& in, cv::Mat& out) { in.convertTo(out, CV_8U, k.mul, k.add); }};
}

// color_space_conversion. OpenCV's YCrCb is the full-range JPEG variant with Cr before Cb (Sluice
// and DALI: BT.601 studio range, Cb first): same cost, different numbers.
Op ColorSpaceOp(const std::string& name, ColorSpace to, int cv_code) {
  return {name,
          [to](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC(ColorSpaceChannels(to)));
            ConvertColorSpace(in.data, ColorSpace::kRGB, out.data, to, DType::kUInt8, in.total());
          },
          [cv_code](const cv::Mat& in, cv::Mat& out) { cv::cvtColor(in, out, cv_code); }};
}

// equalize: every channel on its own (DALI's CPU equalize; OpenCV: split, equalizeHist, merge).
Op EqualizeOp() {
  return {"equalize",
          [](const cv::Mat& in, cv::Mat& out) {
            out.create(in.rows, in.cols, CV_8UC3);
            Equalize(in.data, out.data, static_cast<int64_t>(in.total()), 3);
          },
          [](const cv::Mat& in, cv::Mat& out) {
            thread_local std::vector<cv::Mat> planes(3);
            cv::split(in, planes);
            for (auto& p : planes) cv::equalizeHist(p, p);
            cv::merge(planes, out);
          }};
}

// debayer (DALI's four CPU algorithms): a BG Bayer mosaic of the photograph (built once per size,
// outside the timed loop), uint8; OpenCV's cvtColor is what DALI calls, so mean_abs_diff is 0, except
// for VNG and gray against an OpenCV 4.x: Sluice's are OpenCV 5.0's (DALI 2.4's): 5's VNG pads the
// mosaic where 4.x shifts its result by two rows, 5's gray is exact where 4.x's SIMD truncates
// (docs/dali-compatibility.md, debayer).
const cv::Mat& Mosaic(const cv::Mat& rgb) {
  static std::vector<cv::Mat> cache;
  for (const auto& m : cache)
    if (m.rows == rgb.rows && m.cols == rgb.cols) return m;
  cv::Mat m(rgb.rows, rgb.cols, CV_8UC1);
  for (int y = 0; y < rgb.rows; ++y)
    for (int x = 0; x < rgb.cols; ++x) {
      const int c = (y % 2 == 0 && x % 2 == 0) ? 0 : (y % 2 == 1 && x % 2 == 1) ? 2 : 1;  // blue_position [0, 0]
      m.at<uint8_t>(y, x) = rgb.at<cv::Vec3b>(y, x)[c];
    }
  cache.push_back(m);
  return cache.back();
}

Op DebayerOp(const std::string& name, void (*kernel)(const uint8_t*, uint8_t*, int64_t, int64_t, int, int),
             int channels, int cv_code) {
  return {name,
          [kernel, channels](const cv::Mat& in, cv::Mat& out) {
            const cv::Mat& m = Mosaic(in);
            out.create(m.rows, m.cols, CV_8UC(channels));
            kernel(m.data, out.data, m.rows, m.cols, 0, 0);
          },
          [cv_code](const cv::Mat& in, cv::Mat& out) { cv::cvtColor(Mosaic(in), out, cv_code); }};
}

std::vector<Op> AllOps() {
  return {
      WarpOp("warp_affine_linear", WarpInterp::kLinear),
      WarpOp("warp_affine_nearest", WarpInterp::kNearest),
      RotateOp(),
      BlurOp("gaussian_blur_sigma1.5", 1.5f),
      BlurOp("gaussian_blur_sigma3", 3.0f),
      LaplacianOp("laplacian_k3", 3),
      LaplacianOp("laplacian_k5", 5),
      MedianOp("median_blur_k3", 3),
      MedianOp("median_blur_k3_gray", 3, 1),
      MedianOp("median_blur_k5", 5),
      MedianOp("median_blur_k5_gray", 5, 1),
      MorphOp("dilate_3x3", true),
      MorphOp("dilate_3x3_gray", true, 3, 1),
      MorphOp("erode_3x3", false),
      MorphOp("erode_3x3_gray", false, 3, 1),
      MorphOp("dilate_15x15", true, 15),
      MorphOp("erode_15x15", false, 15),
      PerspectiveOp("warp_perspective_linear", PerspectiveInterp::kLinear, cv::INTER_LINEAR),
      PerspectiveOp("warp_perspective_nearest", PerspectiveInterp::kNearest, cv::INTER_NEAREST),
      RemapOp("remap_linear", PerspectiveInterp::kLinear, cv::INTER_LINEAR),
      RemapOp("remap_nearest", PerspectiveInterp::kNearest, cv::INTER_NEAREST),
      HsvStyleOp("hsv", 30, 1.3, 0.9),
      HsvStyleOp("hue", 30, 1, 1),
      HsvStyleOp("saturation", 0, 1.5, 1),
      ColorTwistOp(),
      BrightnessContrastOp(),
      ColorSpaceOp("color_space_rgb_to_gray", ColorSpace::kGray, cv::COLOR_RGB2GRAY),
      ColorSpaceOp("color_space_rgb_to_ycbcr", ColorSpace::kYCbCr, cv::COLOR_RGB2YCrCb),
      EqualizeOp(),
      FlipOp(),
      ResizeOp(),
      DebayerOp("debayer_bilinear", &DebayerBilinear<uint8_t>, 3, cv::COLOR_BayerBG2RGB),
      DebayerOp("debayer_edgeaware", &DebayerEdgeAware<uint8_t>, 3, cv::COLOR_BayerBG2RGB_EA),
      DebayerOp("debayer_vng", &DebayerVng, 3, cv::COLOR_BayerBG2RGB_VNG),
      DebayerOp("debayer_gray", &DebayerGray<uint8_t>, 1, cv::COLOR_BayerBG2GRAY),
  };
}

}  // namespace

int main(int argc, char** argv) {
  cv::setNumThreads(1);
  static const std::vector<Op> ops = AllOps();
  const std::pair<int, int> sizes[] = {{640, 480}, {1920, 1080}};
  for (const Op& op : ops) {
    for (auto [w, h] : sizes) {
      const std::string size = std::to_string(w) + "x" + std::to_string(h);
      for (bool sluice_side : {true, false}) {
        benchmark::RegisterBenchmark((op.name + (sluice_side ? "/sluice/" : "/opencv/") + size).c_str(),
                                     [&op, sluice_side, w = w, h = h](benchmark::State& st) {
                                       RunSide(st, op, sluice_side, w, h);
                                     })
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("image", PhotoPath());
  benchmark::AddCustomContext("opencv", CV_VERSION);
  benchmark::AddCustomContext("opencv_threads", std::to_string(cv::getNumThreads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
