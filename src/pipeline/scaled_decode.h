// Graph pass: a decoder whose only consumer is a resize to a known size may decode JPEGs at a
// reduced DCT scale (1/2, 1/4, 1/8) that stays at or above that size; the resize then has less to
// do and the decoder skips most of the IDCT work.
#pragma once
#include <vector>

#include "operators/op_spec.h"

namespace sluice {

// Sets `decode_size_hint` on eligible decoders (scaled_decode=True, no hint given by the user, the
// decoded images used only by one resize whose size arguments are constants that bound both
// extents from below). `outputs` are the pipeline's output edges (a decoder output that the
// pipeline returns is not eligible). Returns how many decoders it changed.
int ApplyScaledDecode(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs);

}  // namespace sluice
