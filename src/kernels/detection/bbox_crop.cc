#include "kernels/detection/bbox_crop.h"

#include <algorithm>

namespace sluice::kernels {
namespace {

float Overlap(const Box& window, const Box& box, bool overlap) {
  if (!overlap) return IoU(window, box);
  const float a = box.area();
  return a > 0 ? IntersectionArea(window, box) / a : 0.f;
}

bool Keep(const Box& window, const Box& box, float prune) {
  if (prune < 0) {
    const float cx = 0.5f * (box.l + box.r), cy = 0.5f * (box.t + box.b);
    return cx >= window.l && cx <= window.r && cy >= window.t && cy <= window.b;
  }
  const float a = box.area();
  return a > 0 ? IntersectionArea(window, box) >= prune * a : false;
}

void Keepers(const std::vector<Box>& boxes, const Box& window, float prune, BBoxCropResult& r) {
  r.boxes.clear();
  r.indices.clear();
  const float w = window.r - window.l, h = window.b - window.t;
  for (size_t i = 0; i < boxes.size(); ++i) {
    if (!Keep(window, boxes[i], prune)) continue;
    const Box& b = boxes[i];
    Box c{(std::clamp(b.l, window.l, window.r) - window.l) / w, (std::clamp(b.t, window.t, window.b) - window.t) / h,
          (std::clamp(b.r, window.l, window.r) - window.l) / w, (std::clamp(b.b, window.t, window.b) - window.t) / h};
    r.boxes.push_back(c);
    r.indices.push_back(static_cast<int32_t>(i));
  }
}

}  // namespace

BBoxCropResult RandomBBoxCrop(const std::vector<Box>& boxes, const BBoxCropParams& p, RandomGenerator& rng) {
  BBoxCropResult r;
  const int options = static_cast<int>(p.thresholds.size()) + (p.allow_no_crop ? 1 : 0);
  const int64_t budget = p.total_num_attempts > 0 ? p.total_num_attempts : 10000;
  auto whole = [&](int option) {
    r.window = Box{0, 0, 1, 1};
    r.option = option;
    r.boxes.assign(boxes.begin(), boxes.end());
    r.indices.resize(boxes.size());
    for (size_t i = 0; i < boxes.size(); ++i) r.indices[i] = static_cast<int32_t>(i);
    return r;
  };
  int64_t used = 0;
  while (used < budget) {
    const int option = static_cast<int>(rng.UniformInt(0, options - 1));
    if (option == static_cast<int>(p.thresholds.size())) return whole(option);
    const float threshold = p.thresholds[static_cast<size_t>(option)];
    for (int a = 0; a < p.num_attempts && used < budget; ++a, ++used) {
      float w, h;
      if (p.fixed_w > 0) {
        w = p.fixed_w;
        h = p.fixed_h;
      } else {
        w = static_cast<float>(rng.Uniform(p.scaling_min, p.scaling_max));
        h = static_cast<float>(rng.Uniform(p.scaling_min, p.scaling_max));
        if (h <= 0 || w / h < p.aspect_min || w / h > p.aspect_max) continue;
      }
      w = std::min(w, 1.f);
      h = std::min(h, 1.f);
      const float x = static_cast<float>(rng.Uniform(0, 1.0 - w)), y = static_cast<float>(rng.Uniform(0, 1.0 - h));
      const Box window{x, y, x + w, y + h};
      bool ok = !p.all_boxes_above_threshold && !boxes.empty() ? false : true;
      for (const Box& b : boxes) {
        const bool pass = Overlap(window, b, p.overlap) >= threshold;
        if (p.all_boxes_above_threshold && !pass) {
          ok = false;
          break;
        }
        if (!p.all_boxes_above_threshold && pass) ok = true;
      }
      if (!ok) continue;
      Keepers(boxes, window, p.prune_threshold, r);
      if (!boxes.empty() && r.boxes.empty()) continue;
      r.window = window;
      r.option = option;
      return r;
    }
  }
  return whole(-1);  // the attempts ran out
}

}  // namespace sluice::kernels
