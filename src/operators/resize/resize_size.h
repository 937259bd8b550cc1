// DALI's rules for resize's output size, as a pure function so they can be tested on their own.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

enum class ResizeMode { kDefault, kStretch, kNotLarger, kNotSmaller };
// "default", "stretch", "not_larger", "not_smaller"; nullopt for anything else.
std::optional<ResizeMode> ParseResizeMode(const std::string& s);

struct ResizeRequest {
  // Requested output extents in (height, width) order; 0 = not given (derived from the others).
  std::array<double, 2> size{0, 0};
  ResizeMode mode = ResizeMode::kDefault;
  std::array<double, 2> max_size{0, 0};  // 0 = no limit
};

// Output (height, width) for an input (ROI) of in_h x in_w:
//   default     missing extents scale like the given ones (the geometric mean of their scales, as DALI);
//   stretch     missing extents keep the input's size;
//   not_larger  one scale for both, the smallest of the given ones (no extent exceeds the request);
//   not_smaller one scale for both, the largest of the given ones (no extent is below the request);
//   max_size    not_larger/not_smaller: lowers the common scale until no axis exceeds its limit;
//               default/stretch: caps each axis on its own (a derived extent too), leaving the
//               others as computed; with no extent given it does nothing (DALI's AdjustOutputSize);
// each extent is max(1, round(in * scale)).
std::array<int, 2> ResizeOutputSize(double in_h, double in_w, const ResizeRequest& r);
// The same extents before rounding (in * scale): what subpixel_scale keeps the scale of.
std::array<double, 2> ResizeOutputExtents(double in_h, double in_w, const ResizeRequest& r);

// The same rules over any number of axes (volumes: depth, height, width): `size` and `max_size`
// hold one value per axis of `in` (0 = not given / no limit).
std::vector<double> ResizeOutputExtentsN(const std::vector<double>& in, const std::vector<double>& size, ResizeMode mode,
                                         const std::vector<double>& max_size);

// DALI's subpixel_scale: an axis whose exact output extent `exact` was rounded to `rounded` keeps
// its scale (exact / (hi - lo)) by resizing the region [lo, hi] to rounded / exact of its length
// about the point (1 - alignment) * lo + alignment * hi (0.5: its centre, as resize does; a
// flipped region, hi < lo, stays flipped). Unchanged when the extent was exact or below half a
// pixel (rounded up to 1).
void KeepSubpixelScale(double& lo, double& hi, double exact, int rounded, double alignment = 0.5);

}  // namespace sluice
