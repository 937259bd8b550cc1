// Implementation of ConvertSaturate (included by cast.h).
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

namespace sluice::kernels {
namespace cast_detail {
template <typename T> inline constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, float16>;
template <typename T> using Widened = std::conditional_t<std::is_same_v<T, float16>, float, T>;
}  // namespace cast_detail

template <typename To, typename From>
To ConvertSaturate(From from) {
  using namespace cast_detail;
  using F = Widened<From>;
  const F v = static_cast<F>(from);
  if constexpr (std::is_same_v<To, bool>) {
    return v != F(0);
  } else if constexpr (kIsFloat<To>) {
    if constexpr (std::is_same_v<To, float16>) return float16(static_cast<float>(v));
    else return static_cast<To>(v);
  } else if constexpr (kIsFloat<From>) {
    const double d = static_cast<double>(v);
    if (std::isnan(d)) return To(0);
    const double r = std::nearbyint(d);
    // Compare in double: max() of 64-bit types is not exactly representable, hence >=.
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    if (r >= hi) return std::numeric_limits<To>::max();
    if (r <= lo) return std::numeric_limits<To>::min();
    return static_cast<To>(r);
  } else if constexpr (std::is_same_v<From, bool>) {
    return To(v ? 1 : 0);
  } else {
    // Integer -> integer: compare with the target's limits in the wider of the two signednesses.
    if constexpr (std::is_signed_v<F> && !std::is_signed_v<To>) {
      if (v < 0) return To(0);
      if (static_cast<std::make_unsigned_t<F>>(v) > std::numeric_limits<To>::max()) return std::numeric_limits<To>::max();
      return To(v);
    } else if constexpr (!std::is_signed_v<F> && std::is_signed_v<To>) {
      if (v > static_cast<std::make_unsigned_t<To>>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
      return To(v);
    } else {
      if (v > std::numeric_limits<To>::max()) return std::numeric_limits<To>::max();
      if (v < std::numeric_limits<To>::min()) return std::numeric_limits<To>::min();
      return To(v);
    }
  }
}

}  // namespace sluice::kernels
