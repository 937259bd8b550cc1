// resize's graph-pass hook: how small its input may be made (e.g. by a scaled JPEG decode) without
// changing the output's size or losing resolution.
#pragma once
#include <array>
#include <cstdint>
#include <optional>

#include "operators/op_spec.h"

namespace sluice {

// The (height, width) that resize's output is at least, for every image, when its constant
// arguments say so (resize_x and resize_y, size, or resize_shorter; not with per-sample sizes,
// resize_longer, mode not_larger or a region of interest); nullopt otherwise.
std::optional<std::array<int64_t, 2>> ResizeMinInputSize(const OpSpec& resize);

}  // namespace sluice
