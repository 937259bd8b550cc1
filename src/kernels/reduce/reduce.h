// Reductions of one N-D tensor over a set of axes (sum, min, max, sum of squares, sum of squared
// deviations from given means): pure functions on spans, the building blocks of
// reductions.{sum,mean,mean_square,rms,min,max,std_dev,variance}.
// Thread-safety: reentrant, no shared state. The output holds one value per combination of the kept
// axes, in row-major order of the kept axes (the same order with or without keep_dims).
#pragma once
#include <algorithm>
#include <limits>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <sluice/dtype.h>

namespace sluice::kernels {

// A reduction plan: which axes of `dims` are reduced.
struct ReducePlan {
  std::vector<int64_t> dims;   // the input's extents
  std::vector<bool> reduced;   // per axis
  // The output's extents: reduced axes removed, or kept with extent 1.
  std::vector<int64_t> OutputDims(bool keep_dims) const;
  int64_t OutputSize() const;  // number of output values
  int64_t GroupSize() const;   // input elements per output value
};

// Builds a plan. `axes` may be negative (from the back); empty `axes` reduces every axis, or none
// when !empty_means_all (DALI's axes=() given explicitly). Throws std::invalid_argument naming the
// bad axis (out of range, or repeated).
ReducePlan MakeReducePlan(std::span<const int64_t> dims, std::span<const int64_t> axes, bool empty_means_all = true);

// The axes of a plan with adjacent axes reduced alike merged and extent-1 axes dropped: an HWC image
// reduced over H and W is {H * W (reduced), C (kept)}.
struct MergedAxes {
  std::vector<int64_t> dims;
  std::vector<bool> red;
};
inline MergedAxes MergeAxes(const ReducePlan& plan) {
  MergedAxes m;
  for (size_t d = 0; d < plan.dims.size(); ++d) {
    if (plan.dims[d] == 1) continue;
    if (!m.dims.empty() && m.red.back() == plan.reduced[d]) m.dims.back() *= plan.dims[d];
    else {
      m.dims.push_back(plan.dims[d]);
      m.red.push_back(plan.reduced[d]);
    }
  }
  return m;
}

// Calls fn(in_index, out_index) for every input element, in input order. Adjacent axes reduced
// alike are merged first (MergeAxes), so the loops are as few and as long as the layout allows: an
// HWC image reduced over H and W is one loop over pixels and one over channels.
template <typename Fn>
void ForEachReduced(const ReducePlan& plan, Fn&& fn) {
  int64_t total = 1;
  for (int64_t d : plan.dims) total *= d;
  if (total == 0) return;
  auto [dims, red] = MergeAxes(plan);
  if (dims.empty()) {  // a single element
    fn(int64_t{0}, int64_t{0});
    return;
  }
  const int nd = static_cast<int>(dims.size());
  if (nd == 1) {
    if (red[0]) for (int64_t i = 0; i < total; ++i) fn(i, int64_t{0});
    else for (int64_t i = 0; i < total; ++i) fn(i, i);
    return;
  }
  if (nd == 2) {  // merged axes alternate: one of the two is reduced
    const int64_t n0 = dims[0], n1 = dims[1];
    if (red[0]) {
      for (int64_t a = 0; a < n0; ++a)
        for (int64_t b = 0; b < n1; ++b) fn(a * n1 + b, b);
    } else {
      for (int64_t a = 0; a < n0; ++a)
        for (int64_t b = 0; b < n1; ++b) fn(a * n1 + b, a);
    }
    return;
  }
  // Output strides of the merged axes: 0 for reduced ones.
  std::vector<int64_t> ostride(static_cast<size_t>(nd), 0);
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d)
    if (!red[static_cast<size_t>(d)]) {
      ostride[static_cast<size_t>(d)] = s;
      s *= dims[static_cast<size_t>(d)];
    }
  const int64_t inner = dims.back();
  const bool inner_kept = !red.back();
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t out = 0;
  for (int64_t i = 0; i < total; i += inner) {
    if (inner_kept) for (int64_t k = 0; k < inner; ++k) fn(i + k, out + k);
    else for (int64_t k = 0; k < inner; ++k) fn(i + k, out);
    for (int d = nd - 2; d >= 0; --d) {  // the odometer over the outer axes
      const size_t k = static_cast<size_t>(d);
      if (++idx[k] < dims[k]) {
        out += ostride[k];
        break;
      }
      out -= ostride[k] * (dims[k] - 1);
      idx[k] = 0;
    }
  }
}

template <typename T>
inline double ToDouble(T v) {
  if constexpr (std::is_same_v<T, float16>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}

// out[o] = sum of the group, accumulated in Acc (wraps like Acc for integers).
template <typename In, typename Acc>
void ReduceSum(const ReducePlan& plan, std::span<const In> in, std::span<Acc> out) {
  std::fill(out.begin(), out.end(), Acc{});
  ForEachReduced(plan, [&](int64_t i, int64_t o) {
    if constexpr (std::is_integral_v<Acc>) out[static_cast<size_t>(o)] = static_cast<Acc>(out[static_cast<size_t>(o)] + static_cast<Acc>(in[static_cast<size_t>(i)]));
    else out[static_cast<size_t>(o)] += static_cast<Acc>(ToDouble(in[static_cast<size_t>(i)]));
  });
}

// Integer min/max over {n pixels (reduced), c channels (kept)}: a block of kPixels pixels'
// worth of running values, updated element-wise (the compiler vectorizes it), folded per channel at
// the end. Order does not matter for integers.
template <typename T, bool kMax>
void MinMaxInterleaved(const T* in, int64_t n, int64_t c, T* out) {
  constexpr int64_t kPixels = 16;
  T acc[kPixels * 16];
  const int64_t block = kPixels * c;
  std::fill(acc, acc + block, kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
  int64_t p = 0;
  for (; p + kPixels <= n; p += kPixels) {
    const T* x = in + p * c;
    for (int64_t k = 0; k < block; ++k) acc[k] = kMax ? (x[k] > acc[k] ? x[k] : acc[k]) : (x[k] < acc[k] ? x[k] : acc[k]);
  }
  for (int64_t k = 0; k < block; ++k) {
    T& r = out[k % c];
    r = kMax ? std::max(r, acc[k]) : std::min(r, acc[k]);
  }
  for (; p < n; ++p)
    for (int64_t ch = 0; ch < c; ++ch) {
      T& r = out[ch];
      r = kMax ? std::max(r, in[p * c + ch]) : std::min(r, in[p * c + ch]);
    }
}

// out[o] = min (or max) of the group; empty groups give T's max (min), as an identity.
template <typename T>
void ReduceMinMax(const ReducePlan& plan, std::span<const T> in, std::span<T> out, bool is_max) {
  std::fill(out.begin(), out.end(), is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
  if constexpr (std::is_integral_v<T>) {
    // Every element, or an image's pixels per channel: the block loop.
    const MergedAxes m = MergeAxes(plan);
    const bool all = m.dims.size() == 1 && m.red[0];
    const bool per_channel = m.dims.size() == 2 && m.red[0] && !m.red[1] && m.dims[1] <= 16;
    if (all || per_channel) {
      const int64_t n = m.dims[0], c = all ? 1 : m.dims[1];
      if (is_max) MinMaxInterleaved<T, true>(in.data(), n, c, out.data());
      else MinMaxInterleaved<T, false>(in.data(), n, c, out.data());
      return;
    }
  }
  ForEachReduced(plan, [&](int64_t i, int64_t o) {
    T& r = out[static_cast<size_t>(o)];
    const T v = in[static_cast<size_t>(i)];
    r = is_max ? std::max(r, v) : std::min(r, v);
  });
}

// out[o] = sum of squares of the group (in double).
template <typename In>
void ReduceSumSquares(const ReducePlan& plan, std::span<const In> in, std::span<double> out) {
  std::fill(out.begin(), out.end(), 0.0);
  ForEachReduced(plan, [&](int64_t i, int64_t o) {
    const double v = ToDouble(in[static_cast<size_t>(i)]);
    out[static_cast<size_t>(o)] += v * v;
  });
}

// out[o] = sum over the group of (x - mean[o])^2 (in double); `mean` holds one value per output, or
// one value for all.
template <typename In>
void ReduceSumSquaredDeviations(const ReducePlan& plan, std::span<const In> in, std::span<const double> mean,
                                std::span<double> out) {
  std::fill(out.begin(), out.end(), 0.0);
  const bool scalar = mean.size() == 1;
  ForEachReduced(plan, [&](int64_t i, int64_t o) {
    const double d = ToDouble(in[static_cast<size_t>(i)]) - mean[scalar ? 0 : static_cast<size_t>(o)];
    out[static_cast<size_t>(o)] += d * d;
  });
}

}  // namespace sluice::kernels
