// The saturating conversion of one arithmetic value, written once for the host and the device:
// cast.h's ConvertSaturate (host, with sluice::float16) and grid/host_device.h's ConvertSat (kernel
// bodies, host and device, with its Half) both come down to SaturateArithmetic, so the CPU and GPU
// `cast` cannot drift.
//   - integer targets saturate; from floating point they round to nearest, ties to even (the
//     kernels' rule), or ties away from zero with Rounding::kTiesAway (DALI's CPU `cast`, checked
//     against DALI 2.4: 0.5 -> 1, 2.5 -> 3, -2.5 -> -3); NaN -> 0;
//   - bool targets are (v != 0); bool sources are 0/1;
//   - floating-point targets take the value as C++ converts it.
// float16 is not an arithmetic type here: each side widens it to float (source) or narrows a float
// (target) with its own half type around this function. Reentrant, no allocation.
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define SLUICE_HOST_DEVICE __host__ __device__
#else
#define SLUICE_HOST_DEVICE
#endif

namespace sluice::kernels {

// How a floating-point value that lies halfway between two integers is rounded.
enum class Rounding { kTiesToEven, kTiesAway };

template <typename To, typename From, Rounding kRounding = Rounding::kTiesToEven>
SLUICE_HOST_DEVICE inline To SaturateArithmetic(From v) {
  static_assert(std::is_arithmetic_v<To> && std::is_arithmetic_v<From>, "widen float16 before, narrow after");
  using Lim = std::numeric_limits<To>;
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else if constexpr (std::is_same_v<From, float> && sizeof(To) <= 2) {
    // Every 8- and 16-bit limit is exact in float, so float arithmetic gives the double path's result
    // without double math (slow on most GPUs, and on the CPU's vectorized tails).
    if (v != v) return To(0);
    const float r = kRounding == Rounding::kTiesAway ? roundf(v) : rintf(v);
    constexpr float lo = static_cast<float>(Lim::min()), hi = static_cast<float>(Lim::max());
    return static_cast<To>(r < lo ? lo : r > hi ? hi : r);
  } else if constexpr (std::is_floating_point_v<From>) {
    const double d = static_cast<double>(v);
    if (d != d) return To(0);
    // rint: ties to even (the default rounding mode; unlike nearbyint, one instruction); round: away.
    const double r = kRounding == Rounding::kTiesAway ? round(d) : rint(d);
    // Compare in double: max() of 64-bit types is not exactly representable, hence >=.
    constexpr double hi = static_cast<double>(Lim::max());
    constexpr double lo = static_cast<double>(Lim::min());
    if (r >= hi) return Lim::max();
    if (r <= lo) return Lim::min();
    return static_cast<To>(r);
  } else if constexpr (std::is_same_v<From, bool>) {
    return To(v ? 1 : 0);
  } else if constexpr (std::is_signed_v<From> && !std::is_signed_v<To>) {
    // Integer -> integer: compare with the target's limits in the wider of the two signednesses.
    if (v < 0) return To(0);
    if (static_cast<std::make_unsigned_t<From>>(v) > Lim::max()) return Lim::max();
    return To(v);
  } else if constexpr (!std::is_signed_v<From> && std::is_signed_v<To>) {
    if (v > static_cast<std::make_unsigned_t<To>>(Lim::max())) return Lim::max();
    return To(v);
  } else {
    if (v > Lim::max()) return Lim::max();
    if constexpr (std::is_signed_v<From>) {
      if (v < Lim::min()) return Lim::min();
    }
    return To(v);
  }
}

}  // namespace sluice::kernels
