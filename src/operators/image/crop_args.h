// DALI's crop arguments (crop / crop_h / crop_w, crop_pos_x / crop_pos_y), shared by crop,
// crop_mirror_normalize and decoders.image_crop.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/crop/crop_window.h"
#include "operators/schema.h"

namespace sluice {

class Operator;
class Workspace;

OpSchema& AddCropArgs(OpSchema& s);

// One batch's crop arguments, read once in Setup (each may be a per-sample input).
struct CropArgs {
  std::vector<std::vector<float>> crop;  // [h, w] per sample, or empty
  std::vector<float> crop_h, crop_w, pos_x, pos_y;
  bool any_crop = false;  // the user asked for a crop at all
  bool truncate = false;  // rounding="truncate": anchors toward zero (default: round half away from zero)
};

// Reads the batch's crop arguments (each may be a per-sample input).
CropArgs ReadCropArgs(const Operator& op, const Workspace& ws);

// The window of sample i for an image of in_h x in_w: anchor = round(pos * (in - crop)) (or trunc,
// with rounding="truncate"). One crop value is a square window.
// Without a crop the whole image. A zero crop extent keeps the input's extent.
kernels::CropWindow ResolveCrop(const CropArgs& a, int i, int in_h, int in_w, const std::string& op_name);

// The ROI-decode hook of crop and crop_mirror_normalize (OpSchema::InputRegion): the window they
// read, from constant crop arguments (nullptr when one is given per sample). The whole window is
// reported for any part of the output (mirroring needs no special case).
std::shared_ptr<const RegionMap> CropInputRegion(const OpSpec& spec);

// The operator's out_of_bounds_policy (the schema admits "error", "pad" and "trim_to_shape").
kernels::OutOfBoundsPolicy ReadOutOfBoundsPolicy(const Operator& op);

}  // namespace sluice
