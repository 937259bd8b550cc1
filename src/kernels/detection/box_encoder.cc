#include "kernels/detection/box_encoder.h"

#include <cmath>

namespace sluice::kernels {

void EncodeBoxes(const Box* boxes, const int32_t* labels, int64_t num_boxes, const std::vector<Box>& anchors,
                 const BoxEncoderParams& p, float* out_boxes, int32_t* out_labels, std::vector<float>& ious) {
  const size_t na = anchors.size();
  for (size_t a = 0; a < na; ++a) {  // no match yet
    const Box& an = anchors[a];
    float* o = out_boxes + 4 * a;
    if (p.offset) {
      o[0] = o[1] = o[2] = o[3] = 0.f;
    } else {
      o[0] = 0.5f * (an.l + an.r), o[1] = 0.5f * (an.t + an.b), o[2] = an.r - an.l, o[3] = an.b - an.t;
    }
    out_labels[a] = 0;
  }
  if (num_boxes == 0 || na == 0) return;
  ious.resize(static_cast<size_t>(num_boxes) * na);
  for (int64_t b = 0; b < num_boxes; ++b) {
    float* row = ious.data() + static_cast<size_t>(b) * na;
    size_t best = 0;
    for (size_t a = 0; a < na; ++a) {
      row[a] = IoU(boxes[b], anchors[a]);
      if (row[a] >= row[best]) best = a;
    }
    row[best] = 2.f;
  }
  const float s = p.scale;
  for (size_t a = 0; a < na; ++a) {
    int64_t best = 0;
    for (int64_t b = 1; b < num_boxes; ++b)
      if (ious[static_cast<size_t>(b) * na + a] >= ious[static_cast<size_t>(best) * na + a]) best = b;
    if (!(ious[static_cast<size_t>(best) * na + a] > p.criteria)) continue;
    const Box& m = boxes[best];
    const Box& an = anchors[a];
    float* o = out_boxes + 4 * a;
    const float cx = 0.5f * (m.l + m.r), cy = 0.5f * (m.t + m.b), w = m.r - m.l, h = m.b - m.t;
    if (p.offset) {
      const float acx = 0.5f * (an.l + an.r), acy = 0.5f * (an.t + an.b), aw = an.r - an.l, ah = an.b - an.t;
      o[0] = ((cx * s - acx * s) / (aw * s) - p.means[0]) / p.stds[0];
      o[1] = ((cy * s - acy * s) / (ah * s) - p.means[1]) / p.stds[1];
      o[2] = (std::log((w * s) / (aw * s)) - p.means[2]) / p.stds[2];
      o[3] = (std::log((h * s) / (ah * s)) - p.means[3]) / p.stds[3];
    } else {
      o[0] = cx, o[1] = cy, o[2] = w, o[3] = h;
    }
    out_labels[a] = labels[best];
  }
}

}  // namespace sluice::kernels
