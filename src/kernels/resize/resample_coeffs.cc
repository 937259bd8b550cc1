#include "kernels/resize/resample_coeffs.h"

#include <algorithm>
#include <cmath>

namespace sluice::kernels::resize_detail {
namespace {

constexpr double kPi = 3.14159265358979323846;

double Triangle(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}
double Cubic(double x) {  // Keys, a = -0.5, as Pillow's bicubic_filter
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}
double Sinc(double x) {
  if (x == 0.0) return 1.0;
  x *= kPi;
  return std::sin(x) / x;
}
double Lanczos3(double x) { return (-3.0 <= x && x < 3.0) ? Sinc(x) * Sinc(x / 3) : 0.0; }
double Gaussian(double x) { return std::fabs(x) < 1.5 ? std::exp(-2.0 * x * x) : 0.0; }

}  // namespace

void ComputeAxisCoeffs(int in_size, double roi0, double roi1, int out_size, const ResizeParams& p,
                       AxisCoeffs* c, ResizeAxis axis) {
  c->out_size = out_size;
  c->start.assign(size_t(out_size), 0);
  const double scale0 = std::fabs(roi1 - roi0) / out_size;
  if ((scale0 > 1.0 ? p.min_filter : p.mag_filter) == ResizeFilter::kNearest) {
    c->taps = 1;
    c->weights.assign(size_t(out_size), 1.0);
    if (p.dali_nearest)
      ComputeNearestDali(in_size, float(roi0), float(roi1), out_size, axis, c->start.data());
    else
      ComputeNearest(in_size, roi0, roi1, out_size, c->start.data());
    c->first = *std::min_element(c->start.begin(), c->start.end());
    c->last = *std::max_element(c->start.begin(), c->start.end()) + 1;
    return;
  }
  const bool mirror = roi1 < roi0;
  if (mirror) std::swap(roi0, roi1);
  const ResizeFilter f = (roi1 - roi0) / out_size > 1.0 ? p.min_filter : p.mag_filter;
  // An unchanged axis is copied (Pillow skips that pass). Not for the Gaussian, which blurs even
  // at scale 1: every other filter is interpolating (weight 1 at offset 0, 0 at other integers).
  if (in_size == out_size && roi0 == 0.0 && roi1 == double(in_size) && !mirror && f != ResizeFilter::kGaussian) {
    c->taps = 1;
    c->weights.assign(size_t(out_size), 1.0);
    for (int i = 0; i < out_size; ++i) c->start[size_t(i)] = i;
    c->first = 0;
    c->last = in_size;
    return;
  }
  const double scale = (roi1 - roi0) / out_size;
  double (*fn)(double) = Triangle;
  double support = 1.0;
  bool widen = p.antialias;
  switch (f) {
    case ResizeFilter::kCubic: fn = Cubic; support = 2.0; break;
    case ResizeFilter::kLanczos3: fn = Lanczos3; support = 3.0; break;
    case ResizeFilter::kTriangular: widen = true; break;
    case ResizeFilter::kGaussian: fn = Gaussian; support = 1.5; widen = true; break;
    default: break;  // kLinear (kNearest never gets here)
  }
  const double filterscale = widen ? std::max(scale, 1.0) : 1.0;
  support *= filterscale;
  const double ss = 1.0 / filterscale;
  // First pass: exact Pillow windows, to find the widest one.
  c->xmin.resize(size_t(out_size));
  c->count.resize(size_t(out_size));
  std::vector<int32_t>& xmins = c->xmin;
  std::vector<int32_t>& counts = c->count;
  int taps = 1;
  for (int i = 0; i < out_size; ++i) {
    const double center = roi0 + (i + 0.5) * scale;
    // Clamp in double first: a far-away ROI must not overflow the int conversion.
    int xmin = int(std::clamp(center - support + 0.5, -1.0, in_size + 1.0));
    if (xmin < 0) xmin = 0;
    int xmax = int(std::clamp(center + support + 0.5, -1.0, in_size + 1.0));
    if (xmax > in_size) xmax = in_size;
    if (xmin >= in_size) xmin = in_size - 1;  // window entirely outside: use the nearest edge pixel
    xmax = std::max(xmax - xmin, 1);
    xmins[size_t(i)] = xmin;
    counts[size_t(i)] = xmax;
    taps = std::max(taps, xmax);
  }
  taps = std::min(taps, in_size);
  c->taps = taps;
  c->weights.assign(size_t(out_size) * size_t(taps), 0.0);
  c->first = in_size;
  c->last = 0;
  c->k.resize(size_t(taps));
  std::vector<double>& k = c->k;
  for (int i = 0; i < out_size; ++i) {
    const double center = roi0 + (i + 0.5) * scale;
    const int xmin = xmins[size_t(i)], n = counts[size_t(i)];
    double ww = 0.0;
    for (int x = 0; x < n; ++x) {
      k[size_t(x)] = fn((x + xmin - center + 0.5) * ss);
      ww += k[size_t(x)];
    }
    if (ww != 0.0) for (int x = 0; x < n; ++x) k[size_t(x)] /= ww;
    else { std::fill(k.begin(), k.begin() + n, 0.0); k[0] = 1.0; }  // no overlap: nearest edge pixel
    // Shift the window left so that start + taps <= in_size; leading taps get weight 0.
    const int start = std::min(xmin, in_size - taps), shift = xmin - start;
    const int oi = mirror ? out_size - 1 - i : i;
    c->start[size_t(oi)] = start;
    double* w = &c->weights[size_t(oi) * size_t(taps)];
    for (int x = 0; x < n; ++x) w[x + shift] = k[size_t(x)];
    c->first = std::min(c->first, start);
    c->last = std::max(c->last, start + taps);
  }
}

void ComputeNearest(int in_size, double roi0, double roi1, int out_size, int32_t* idx) {
  // Pillow's ImagingScaleAffine: the source position is *accumulated* (xo += scale), not
  // multiplied, and truncated; accumulating reproduces its choice at exact .0 boundaries.
  const double scale = (roi1 - roi0) / out_size;
  double xo = roi0 + scale * 0.5;
  for (int i = 0; i < out_size; ++i, xo += scale) {
    const int s = xo < 0.0 ? -1 : int(std::min(xo, double(in_size)));
    idx[i] = std::clamp(s, 0, in_size - 1);
  }
}

void ComputeNearestDali(int in_size, float roi0, float roi1, int out_size, ResizeAxis axis, int32_t* idx) {
  // dali/kernels/imgproc/resample/resampling_impl_cpu.h, ResampleNN: the row (and slice) position
  // is accumulated in float, the column position multiplied. volatile keeps each float operation
  // rounded on its own (no fused multiply-add), as DALI's build evaluates them.
  const float scale = (roi1 - roi0) / static_cast<float>(out_size);
  auto clamped = [in_size](float pos) { return std::clamp(static_cast<int>(std::floor(pos)), 0, in_size - 1); };
  if (axis == ResizeAxis::kHeightOrDepth) {
    volatile float pos = roi0 + 0.5f * scale;
    for (int i = 0; i < out_size; ++i, pos = pos + scale) idx[i] = clamped(pos);
  } else {
    for (int i = 0; i < out_size; ++i) {
      volatile float offset = (static_cast<float>(i) + 0.5f) * scale;
      idx[i] = clamped(roi0 + offset);
    }
  }
}

}  // namespace sluice::kernels::resize_detail
