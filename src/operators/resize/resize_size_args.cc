#include "operators/resize/resize_size_args.h"

#include <string>
#include <vector>

namespace sluice {
namespace {

// One of resize_x/resize_y, size, resize_shorter or resize_longer; mode only with the first two.
void CheckSizeArgs(const ArgView& a) {
  const bool xy = a.Given("resize_x") || a.Given("resize_y") || a.Given("resize_z");
  const int ways = (xy ? 1 : 0) + a.Given("size") + a.Given("resize_shorter") + a.Given("resize_longer");
  if (ways > 1) throw ArgCheckError{"size", "give one of resize_x/resize_y/resize_z, size, resize_shorter or resize_longer"};
  if (ways == 0) throw ArgCheckError{"size", "no output size: give resize_x/resize_y/resize_z, size, resize_shorter or resize_longer"};
  if ((a.Given("resize_shorter") || a.Given("resize_longer")) && a.Given("mode"))
    throw ArgCheckError{"mode", "cannot be combined with resize_shorter or resize_longer (they imply a mode)"};
}

}  // namespace

OpSchema& AddResizeSizeArgs(OpSchema& s) {
  return s.Arg("resize_x", ArgType::kFloat, 0.0, "Output width; 0 derives it from resize_y. Negative flips.", true)
      .Arg("resize_y", ArgType::kFloat, 0.0, "Output height; 0 derives it from resize_x. Negative flips.", true)
      .Arg("resize_z", ArgType::kFloat, 0.0, "Output depth of volumes; 0 derives it from resize_x/resize_y. Negative "
           "flips.", true)
      .Arg("size", ArgType::kFloatList, std::vector<double>{},
           "Output size (height, width), (depth, height, width) for volumes, or one value for every extent; 0 "
           "extents are derived (see mode).", true)
      .Count({0, 1, 2, 3})
      .Min(0)
      .Arg("resize_shorter", ArgType::kFloat, 0.0, "Length of the shorter side, keeping the aspect ratio (mode not_smaller).", true)
      .Min(0)
      .Arg("resize_longer", ArgType::kFloat, 0.0, "Length of the longer side, keeping the aspect ratio (mode not_larger).", true)
      .Min(0)
      .Arg("max_size", ArgType::kFloatList, std::vector<double>{},
           "Limit of the output size: one value, (height, width), or (depth, height, width) for volumes.")
      .Count({0, 1, 2, 3})
      .Min(0)
      .Arg("mode", ArgType::kString, std::string("default"), "How missing or conflicting extents are resolved.")
      .Enum({"default", "stretch", "not_larger", "not_smaller"})
      .Arg("roi_start", ArgType::kFloatList, std::vector<double>{},
           "Start (y, x) of the input region to resize, (z, y, x) for volumes (one value: every axis).", true)
      .Count({0, 1, 2, 3})
      .Arg("roi_end", ArgType::kFloatList, std::vector<double>{},
           "End (y, x) of the input region, (z, y, x) for volumes; below start mirrors (one value: every axis).", true)
      .Count({0, 1, 2, 3})
      .Arg("roi_relative", ArgType::kBool, false, "roi_start/roi_end are fractions of the input size.")
      .Arg("subpixel_scale", ArgType::kBool, true,
           "A fractional output extent keeps its scale: the region of interest is adjusted about its centre to the "
           "rounded extent. False stretches the whole region to the rounded extent (Pillow's result).")
      .Check(CheckSizeArgs);
}

}  // namespace sluice
