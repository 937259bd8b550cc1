// The rule by which a decoder finds, per sample, the window of the image that its consumers' output
// depends on (ROI decode, pipeline/roi_decode.h). The graph pass hands the decoder its consumer
// chain (e.g. resize -> crop) as encoded specs in a string-list argument; the decoder rebuilds each
// consumer's RegionMap through its schema hook (OpSchema::InputRegion) and, once it knows the image
// extents from the header, walks the chain: sizes forward, needed windows backward.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/crop/crop_window.h"
#include "operators/operator.h"

namespace sluice {

class RoiRule {
 public:
  // From the encoded consumer chain, first consumer first; throws sluice::Error naming `op_name`
  // and `arg` if an entry cannot be decoded or its operator has no region map for these arguments.
  RoiRule(const std::vector<std::string>& chain, const std::string& op_name, const std::string& arg);
  // The window of a full_h x full_w image that the chain's last output depends on; the whole image
  // when the chain reads nothing of it or cannot be evaluated for these extents (the operators then
  // report the problem exactly as without the pass).
  kernels::CropWindow Window(int full_h, int full_w) const;

 private:
  std::vector<std::shared_ptr<const RegionMap>> maps_;
};

}  // namespace sluice
