// Graph pass: ROI decode. A decoder whose output goes only to an operator that can take a window of
// its input as if it had the whole image (resize: OpSchema::AcceptsInputWindow), whose output goes
// only to operators that read a fixed part of their input (a crop: OpSchema::InputRegion), decodes
// per sample only the part of the image that reaches the last of them. The decoder gets the chain
// (its WindowedOutput rule argument) and evaluates it per sample from the image header: for
// validation's resize_shorter + center crop that is the crop's source rows and columns plus the
// resize filter's reach. It hands each sample's window [y, x, full_height, full_width] to the
// resize through a second output, so that the resize computes the very same pixels. The pass knows
// no operator by name; it follows the schemas' hooks. It only touches CPU operators, and never a
// decoder or resize output that the pipeline returns or that another operator also reads.
#pragma once
#include <string>
#include <vector>

#include "operators/op_spec.h"

namespace sluice {

// Applies the pass to every eligible decoder (its enable argument is true and the user did not set
// its rule argument). `outputs` are the pipeline's output edges. Returns how many decoders changed.
int ApplyRoiDecode(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs);

}  // namespace sluice
