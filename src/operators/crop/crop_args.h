// DALI's crop arguments (crop / crop_h / crop_w, crop_pos_x / crop_pos_y), shared by crop,
// crop_mirror_normalize and decoders.image_crop; crop_d / crop_pos_z for the volumes of crop.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/crop/crop_window.h"
#include "operators/schema.h"

namespace sluice {

class Operator;
class Workspace;

// volumetric: also crop_d and crop_pos_z, and `crop` takes (crop_D, crop_H, crop_W).
OpSchema& AddCropArgs(OpSchema& s, bool volumetric = false);

// One batch's crop arguments, read once in Setup (each may be a per-sample input).
struct CropArgs {
  std::vector<std::vector<float>> crop;  // [h, w] per sample, or empty
  std::vector<float> crop_h, crop_w, pos_x, pos_y;
  std::vector<float> crop_d, pos_z;  // volumetric operators only (else empty)
  bool any_crop = false;  // the user asked for a crop at all
  bool truncate = false;  // rounding="truncate": anchors toward zero (default: round half away from zero)
};

// Reads the batch's crop arguments (each may be a per-sample input).
CropArgs ReadCropArgs(const Operator& op, const Workspace& ws, bool volumetric = false);

// The window of sample i for an image of in_h x in_w: anchor = round(pos * (in - crop)) (or trunc,
// with rounding="truncate"). One crop value is a square window.
// Without a crop the whole image. A zero crop extent keeps the input's extent.
kernels::CropWindow ResolveCrop(const CropArgs& a, int i, int in_h, int in_w, const std::string& op_name);

// The window of sample i for a volume of in_d x in_h x in_w (ReadCropArgs with volumetric): `crop`
// is (d, h, w), (h, w) (keeps the depth) or one value for a cube; crop_d with crop_h / crop_w; a zero
// extent keeps the input's.
struct CropWindow3 {
  kernels::CropWindow hw;  // height and width
  int z = 0, d = 0;        // depth anchor and extent
};
CropWindow3 ResolveCrop3(const CropArgs& a, int i, int in_d, int in_h, int in_w, const std::string& op_name);

// The ROI-decode hook of crop and crop_mirror_normalize (OpSchema::InputRegion): the window they
// read, from constant crop arguments (nullptr when one is given per sample). The whole window is
// reported for any part of the output (mirroring needs no special case).
std::shared_ptr<const RegionMap> CropInputRegion(const OpSpec& spec);

// The operator's out_of_bounds_policy (the schema admits "error", "pad" and "trim_to_shape").
kernels::OutOfBoundsPolicy ReadOutOfBoundsPolicy(const Operator& op);

}  // namespace sluice
