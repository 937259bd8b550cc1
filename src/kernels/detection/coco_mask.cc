#include "kernels/detection/coco_mask.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <sluice/error.h>

namespace sluice::kernels {

bool DecodeCocoRleString(std::string_view s, std::vector<uint32_t>* counts) {
  counts->clear();
  size_t p = 0;
  while (p < s.size()) {
    int64_t value = 0;
    int groups = 0;
    bool more = true;
    while (more) {
      if (p >= s.size() || groups >= 12) return false;
      const int c = static_cast<unsigned char>(s[p]) - 48;
      if (c < 0 || c >= 64) return false;
      value |= static_cast<int64_t>(c & 0x1f) << (5 * groups);
      more = (c & 0x20) != 0;
      ++p;
      ++groups;
      if (!more && (c & 0x10)) value |= static_cast<int64_t>(-1) * (int64_t{1} << (5 * groups));  // sign-extend
    }
    if (counts->size() > 2) value += (*counts)[counts->size() - 2];
    if (value < 0 || value > int64_t{UINT32_MAX}) return false;
    counts->push_back(static_cast<uint32_t>(value));
  }
  return true;
}

CocoRle RasterizeCocoPolygon(const double* xy, int n, int height, int width) {
  constexpr double kScale = 5;
  CocoRle rle;
  rle.height = height;
  rle.width = width;
  // Vertices on the fine grid, the polygon closed.
  std::vector<int> gx(static_cast<size_t>(n) + 1), gy(static_cast<size_t>(n) + 1);
  for (int k = 0; k < n; ++k) {
    const double x = kScale * xy[2 * k] + 0.5, y = kScale * xy[2 * k + 1] + 0.5;
    if (!(std::abs(x) < 1e9 && std::abs(y) < 1e9)) throw Error("a polygon vertex is not finite or too far out");
    gx[k] = static_cast<int>(x);
    gy[k] = static_cast<int>(y);
  }
  gx[n] = gx[0];
  gy[n] = gy[0];
  int64_t outline = 0;
  for (int j = 0; j < n; ++j)
    outline += std::max(std::abs(static_cast<int64_t>(gx[j + 1]) - gx[j]), std::abs(static_cast<int64_t>(gy[j + 1]) - gy[j])) + 1;
  if (outline > kMaxCocoPolygonOutline)
    throw Error("a polygon's outline is " + std::to_string(outline) + " points at 1/5 pixel, more than " +
                std::to_string(kMaxCocoPolygonOutline) + " (coordinates far outside the image?)");
  // The outline, edge by edge, one point per fine-grid step along the edge's longer axis.
  std::vector<int> ox, oy;
  for (int j = 0; j < n; ++j) {
    int x0 = gx[j], x1 = gx[j + 1], y0 = gy[j], y1 = gy[j + 1];
    const int dx = std::abs(x1 - x0), dy = std::abs(y1 - y0);
    const bool along_x = dx >= dy;
    // Walk from the lower end of the longer axis, emitting the points in the edge's direction.
    const bool reversed = along_x ? x0 > x1 : y0 > y1;
    if (reversed) {
      std::swap(x0, x1);
      std::swap(y0, y1);
    }
    const int steps = along_x ? dx : dy;
    const double slope = steps == 0 ? 0.0 : (along_x ? static_cast<double>(y1 - y0) : static_cast<double>(x1 - x0)) / steps;
    for (int d = 0; d <= steps; ++d) {
      const int t = reversed ? steps - d : d;
      if (along_x) {
        ox.push_back(x0 + t);
        oy.push_back(static_cast<int>(y0 + slope * t + 0.5));
      } else {
        oy.push_back(y0 + t);
        ox.push_back(static_cast<int>(x0 + slope * t + 0.5));
      }
    }
  }
  // Where the outline crosses a pixel column's centre line: the column-major index of the first
  // pixel of that column below the crossing.
  const int64_t h = height, w = width;
  std::vector<int64_t> cuts;
  for (size_t j = 1; j < ox.size(); ++j) {
    if (ox[j] == ox[j - 1]) continue;
    const bool leftward = ox[j] < ox[j - 1];
    double col = leftward ? ox[j] : ox[j] - 1;
    col = (col + 0.5) / kScale - 0.5;
    if (std::floor(col) != col || col < 0 || col > static_cast<double>(w - 1)) continue;
    double row = std::min(oy[j], oy[j - 1]);  // the upper end of the step
    row = (row + 0.5) / kScale - 0.5;
    row = std::ceil(std::clamp(row, 0.0, static_cast<double>(h)));
    cuts.push_back(static_cast<int64_t>(col) * h + static_cast<int64_t>(row));
  }
  cuts.push_back(h * w);
  std::sort(cuts.begin(), cuts.end());
  // Runs between consecutive cuts; two cuts at the same place cancel (their empty run merges the
  // runs on either side).
  int64_t prev = 0;
  for (int64_t& c : cuts) {
    const int64_t next = c;
    c -= prev;
    prev = next;
  }
  size_t j = 0;
  rle.counts.push_back(static_cast<uint32_t>(cuts[j++]));
  while (j < cuts.size()) {
    if (cuts[j] > 0) {
      rle.counts.push_back(static_cast<uint32_t>(cuts[j++]));
    } else {
      ++j;
      if (j < cuts.size()) rle.counts.back() += static_cast<uint32_t>(cuts[j++]);
    }
  }
  return rle;
}

bool PaintRle(const CocoRle& rle, int32_t value, int32_t* mask) {
  const int64_t h = rle.height, w = rle.width, total = h * w;
  int64_t pos = 0;
  bool on = false;
  for (uint32_t c : rle.counts) {
    if (c > total - pos) return false;
    if (on) {
      for (int64_t idx = pos; idx < pos + c; ++idx) mask[(idx % h) * w + idx / h] = value;
    }
    pos += c;
    on = !on;
  }
  return pos == total;
}

}  // namespace sluice::kernels
