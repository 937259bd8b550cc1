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

// Builds a plan. `axes` may be negative (from the back); empty `axes` reduces every axis. Throws
// std::invalid_argument naming the bad axis (out of range, or repeated).
ReducePlan MakeReducePlan(std::span<const int64_t> dims, std::span<const int64_t> axes);

// Calls fn(in_index, out_index) for every input element, in input order.
template <typename Fn>
void ForEachReduced(const ReducePlan& plan, Fn&& fn) {
  const int nd = static_cast<int>(plan.dims.size());
  int64_t total = 1;
  for (int64_t d : plan.dims) total *= d;
  if (total == 0) return;
  // Output strides: 0 for reduced axes.
  std::vector<int64_t> ostride(static_cast<size_t>(nd), 0);
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d)
    if (!plan.reduced[static_cast<size_t>(d)]) { ostride[static_cast<size_t>(d)] = s; s *= plan.dims[static_cast<size_t>(d)]; }
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t out = 0;
  for (int64_t i = 0; i < total; ++i) {
    fn(i, out);
    for (int d = nd - 1; d >= 0; --d) {
      const size_t k = static_cast<size_t>(d);
      if (++idx[k] < plan.dims[k]) { out += ostride[k]; break; }
      out -= ostride[k] * (plan.dims[k] - 1);
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

// out[o] = min (or max) of the group; empty groups give T's max (min), as an identity.
template <typename T>
void ReduceMinMax(const ReducePlan& plan, std::span<const T> in, std::span<T> out, bool is_max) {
  std::fill(out.begin(), out.end(), is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
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
