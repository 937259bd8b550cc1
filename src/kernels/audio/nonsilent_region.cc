#include "kernels/audio/nonsilent_region.h"

#include <algorithm>
#include <cmath>
#include <type_traits>


namespace sluice::kernels {
namespace {

// The accumulator of the squares: exact for 8/16-bit integers, else floating point (see the header).
template <typename T>
using SumOfSquares = std::conditional_t<std::is_integral_v<T> && sizeof(T) <= 2, int64_t,
                                        double>;

template <typename T>
SumOfSquares<T> Square(T v) {
  const auto a = static_cast<SumOfSquares<T>>(v);
  return a * a;
}

template <typename T>
void MovingMeanSquareTyped(const T* x, int64_t n, int64_t window, int64_t reset_interval, float* out) {
  using Acc = SumOfSquares<T>;
  const float mean_factor = 1.0f / static_cast<float>(window);
  // Exact sums never drift: one running sum over the whole signal.
  const int64_t interval = std::is_same_v<Acc, int64_t> || reset_interval == -1 ? n : reset_interval;
  for (int64_t i = 0; i <= n - window;) {
    Acc sum = 0;
    for (int64_t t = i; t < i + window; ++t) sum += Square(x[t]);
    out[i] = static_cast<float>(sum) * mean_factor;
    const int64_t interval_end = std::min(i + interval, n) - window + 1;
    for (++i; i < interval_end; ++i) {
      sum += Square(x[i + window - 1]) - Square(x[i - 1]);
      out[i] = static_cast<float>(sum) * mean_factor;
    }
  }
}

}  // namespace

void MovingMeanSquare(const void* in, DType type, int64_t n, int64_t window, int64_t reset_interval, float* out) {
  VisitDType(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
      MovingMeanSquareTyped(static_cast<const T*>(in), n, window, reset_interval, out);
  });
}

NonsilentRegion FindNonsilentRegion(const void* signal, DType type, int64_t n, const NonsilentRegionArgs& args,
                                    float* scratch) {
  if (n <= 0) return {};
  const int64_t window = std::min(args.window_length, n);
  MovingMeanSquare(signal, type, n, window, args.reset_interval, scratch);
  const int64_t count = n - window + 1;
  const float reference = args.reference_max ? *std::max_element(scratch, scratch + count) : args.reference_power;
  const float threshold = reference * std::pow(10.0f, args.cutoff_db / 10.0f);
  int64_t first = 0;
  while (first < count && !(scratch[first] >= threshold)) ++first;
  if (first == count) return {};
  int64_t last = count - 1;
  while (!(scratch[last] >= threshold)) --last;
  return {first, last - first + window};
}

}  // namespace sluice::kernels
