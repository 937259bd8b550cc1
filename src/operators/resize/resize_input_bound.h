// resize's graph-pass hook: how small its input may be made (e.g. by a scaled JPEG decode) without
// changing the output's size or losing resolution.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "operators/op_spec.h"
#include "operators/schema.h"

namespace sluice {

// The (height, width) that resize's output is at least, for every image, when its constant
// arguments say so (resize_x and resize_y, size, or resize_shorter; not with per-sample sizes,
// resize_longer, mode not_larger or a region of interest); nullopt otherwise.
std::optional<std::array<int64_t, 2>> ResizeMinInputSize(const OpSpec& resize);

// The ROI-decode hook (OpSchema::InputRegion): the output size for any input and, for a window of
// the output, the source window that its filter taps read (resize_window.h), from constant
// arguments. nullptr with per-sample arguments, and for a float output: the float passes round
// differently in their SIMD body and scalar tail, so a window could differ in the last bit.
std::shared_ptr<const RegionMap> ResizeInputRegion(const OpSpec& resize);

}  // namespace sluice
