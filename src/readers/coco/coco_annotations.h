// The COCO annotation file (instances_*.json) as readers.coco reads it: one pass over the JSON
// with simdjson's On-Demand parser (no DOM: the memory is the file, simdjson's structural index
// and the compact arrays below), then the samples in DALI's order with DALI's filters
// (dali/operators/reader/loader/coco_loader.cc):
//
// - samples: the images sorted by id, or the `images` list (file names as in the file, in the
//   list's order, duplicates repeated); with skip_empty, images without a kept object are dropped;
// - objects of an image: its annotations in the file's order, without those with iscrowd != 0
//   (unless include_iscrowd) and those whose box width or height is below size_threshold; boxes are
//   not clipped to the image (as DALI: a box partly or wholly outside its image is kept as it is);
// - labels: the category's position in "categories" + 1 (file order), or its id with
//   avoid_class_remapping; boxes [x, y, w, h] or [l, t, r, b] (ltrb), divided by the image's width
//   and height with ratio;
// - polygons and RLE masks kept only when asked for.
//
// Unlike DALI, which reads such files without complaint, every inconsistency is an Error naming the
// file and the annotation (or image) id: malformed or truncated JSON, an annotation whose image id
// or category id is not listed, a bbox that is not 4 finite numbers or has a negative width or
// height (DALI drops it by size_threshold without a word), a polygon with fewer than 3
// points or an odd number of coordinates, an RLE whose size is not the image's, a duplicate image
// or category id, an `images` entry not in the file.
//
// Thread-safety: the functions are pure; a CocoDataset is immutable once built.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/detection/coco_mask.h"

namespace sluice {

struct CocoReadOptions {
  float size_threshold = 0.1f;
  bool ltrb = false;
  bool ratio = false;
  bool skip_empty = false;
  bool include_iscrowd = true;
  bool avoid_class_remapping = false;
  bool polygons = false;  // keep polygon vertices (polygon_masks or pixelwise_masks)
  bool rles = false;      // keep RLE masks (pixelwise_masks)
  bool has_images = false;
  std::vector<std::string> images;
};

// Compact per-sample arrays: sample s owns the range [x_begin[s], x_begin[s + 1]) of each.
struct CocoDataset {
  bool ratio = false;  // boxes are relative, and vertices are output relative
  std::vector<std::string> files;  // file_name as in the annotations
  std::vector<int64_t> image_ids;
  std::vector<int32_t> heights, widths;
  std::vector<int64_t> obj_begin;    // into labels, and boxes (4 floats per object)
  std::vector<float> boxes;          // as output (ltrb / ratio applied)
  std::vector<int32_t> labels;
  std::vector<int64_t> poly_begin;   // into polygons (3 int32 per polygon)
  std::vector<int32_t> polygons;     // object index in its sample, first vertex, end vertex (sample's)
  std::vector<int64_t> vert_begin;   // into vertices (2 floats per vertex)
  std::vector<double> vertices;      // pixel coordinates as in the file (ratio is applied on output;
                                     // double: masks are rasterised from the file's values, as pycocotools)
  std::vector<int64_t> rle_begin;    // into rle_objects / rles
  std::vector<int32_t> rle_objects;  // object index in its sample
  std::vector<kernels::CocoRle> rles;

  int64_t size() const { return static_cast<int64_t>(files.size()); }
  int64_t num_objects(int64_t s) const { return obj_begin[s + 1] - obj_begin[s]; }
};

// Parses `text` (a whole annotation file; `name` names it in messages).
CocoDataset ParseCocoAnnotations(std::string_view text, const std::string& name, const CocoReadOptions& opt);
// Reads and parses the file at `path`.
CocoDataset ReadCocoAnnotations(const std::string& path, const CocoReadOptions& opt);

// readers.coco's preprocessed annotations: the dataset as built (options applied) in binary files
// of a folder (Sluice's own layout, see coco_preprocessed.cc). Save creates the folder if needed.
void SaveCocoDataset(const CocoDataset& d, const std::string& dir);
CocoDataset LoadCocoDataset(const std::string& dir);

}  // namespace sluice
