// Graph pass: a decoder whose only consumer is a resize to a known size may decode JPEGs at a
// reduced DCT scale (1/2, 1/4, 1/8) that stays at or above that size; the resize then has less to
// do and the decoder skips most of the IDCT work. The pass knows no operator by name: it asks the
// schemas (OpSchema::AcceptsSizeHint on the producer, OpSchema::MinInputSize on the consumer).
#pragma once
#include <vector>

#include "operators/op_spec.h"

namespace sluice {

// Sets the size hint (decoders: `decode_size_hint`) on every eligible producer: its enable argument
// (`scaled_decode`) is true (as given, else its schema default), the user gave no hint, and its output 0 goes only to input 0 of one
// operator whose MinInputSize hook bounds both extents from below (resize with constant sizes). `outputs` are the pipeline's output edges (a decoder output that the
// pipeline returns is not eligible). Returns how many decoders it changed.
int ApplyScaledDecode(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs);

}  // namespace sluice
