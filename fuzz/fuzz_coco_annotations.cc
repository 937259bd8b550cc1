// libFuzzer target: the COCO annotation parser (readers/coco/coco_annotations.h) on arbitrary bytes, with
// the options picked by the first byte, and the polygon rasteriser on every polygon it returns.
// Must never crash; malformed input may only throw sluice::Error. What it returns must be
// consistent: per-sample ranges that start at 0, never decrease and cover the arrays, polygons
// that point at objects and vertices of their own sample, RLEs that fit their image.
// Seed corpus: fuzz/coco_seeds/ (annotation files written by Python's json: polygons, crowd RLEs
// as count lists and compressed strings, non-contiguous category ids, an empty image).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <sluice/error.h>

#include "kernels/detection/coco_mask.h"
#include "readers/coco/coco_annotations.h"

namespace {

bool Ranges(const std::vector<int64_t>& b, int64_t n, int64_t total) {
  if (static_cast<int64_t>(b.size()) != n + 1 || b.front() != 0 || b.back() != total) return false;
  for (size_t i = 1; i < b.size(); ++i)
    if (b[i] < b[i - 1]) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  sluice::CocoReadOptions opt;
  opt.ltrb = data[0] & 1;
  opt.ratio = data[0] & 2;
  opt.skip_empty = data[0] & 4;
  opt.include_iscrowd = data[0] & 8;
  opt.avoid_class_remapping = data[0] & 16;
  opt.polygons = data[0] & 32;
  opt.rles = data[0] & 64;
  opt.polygons = opt.polygons || opt.rles;
  if (data[0] & 128) opt.size_threshold = 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const sluice::CocoDataset d = sluice::ParseCocoAnnotations(text, "fuzz.json", opt);
    const int64_t n = d.size();
    if (!Ranges(d.obj_begin, n, static_cast<int64_t>(d.labels.size())) || d.boxes.size() != 4 * d.labels.size() ||
        !Ranges(d.poly_begin, n, static_cast<int64_t>(d.polygons.size() / 3)) ||
        !Ranges(d.vert_begin, n, static_cast<int64_t>(d.vertices.size() / 2)) ||
        !Ranges(d.rle_begin, n, static_cast<int64_t>(d.rles.size())))
      __builtin_trap();
    for (int64_t s = 0; s < n; ++s) {
      const int64_t verts = d.vert_begin[s + 1] - d.vert_begin[s];
      const int h = d.heights[s] > 0 && d.heights[s] < 512 ? d.heights[s] : 16;
      const int w = d.widths[s] > 0 && d.widths[s] < 512 ? d.widths[s] : 16;
      for (int64_t p = d.poly_begin[s]; p < d.poly_begin[s + 1]; ++p) {
        const int32_t* q = &d.polygons[3 * p];
        if (q[0] < 0 || q[0] >= d.num_objects(s) || q[1] < 0 || q[2] < q[1] + 3 || q[2] > verts) __builtin_trap();
        const double* v = d.vertices.data() + 2 * (d.vert_begin[s] + q[1]);
        bool small = true;  // keep the outline walk short: the rasteriser's cost grows with the coordinates
        for (int k = 0; k < 2 * (q[2] - q[1]); ++k) small = small && v[k] > -1e4 && v[k] < 1e4;
        if (!small) continue;
        const sluice::kernels::CocoRle rle = sluice::kernels::RasterizeCocoPolygon(v, q[2] - q[1], h, w);
        std::vector<int32_t> mask(static_cast<size_t>(h) * w, 0);
        if (!sluice::kernels::PaintRle(rle, 1, mask.data())) __builtin_trap();
      }
      for (int64_t k = d.rle_begin[s]; k < d.rle_begin[s + 1]; ++k) {
        const sluice::kernels::CocoRle& r = d.rles[k];
        if (d.rle_objects[k] < 0 || d.rle_objects[k] >= d.num_objects(s)) __builtin_trap();
        if (r.height != d.heights[s] || r.width != d.widths[s]) __builtin_trap();
        if (static_cast<int64_t>(r.height) * r.width <= (int64_t{1} << 20)) {
          std::vector<int32_t> mask(static_cast<size_t>(r.height) * r.width, 0);
          if (!sluice::kernels::PaintRle(r, 1, mask.data())) __builtin_trap();
        }
      }
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
