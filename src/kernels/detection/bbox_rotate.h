// bbox_rotate (DALI's BBoxRotate): the boxes of an image rotated by `degrees` counter-clockwise
// about its centre (as rotate / warp_affine rotate it: x' = x cos + y sin, y' = -x sin + y cos with
// y down, about the centres of the input and of the out_w x out_h canvas):
// - the four corners of each box are rotated; "expand" takes their bounding box, "fixed" shrinks it
//   back to the box's original width and height (swapped when the rotation swapped the box's longer
//   side), "halfway" half-way between the two;
// - the box is clipped to the canvas and dropped when less than remove_threshold of its area stays
//   (a box of zero area is dropped).
// Boxes are ltrb or xywh, relative to their image (normalized) or in pixels; the output is in the
// same format relative to (or in pixels of) the canvas.
//
// Thread-safety: pure. Allocation: the returned indices.
#pragma once
#include <cstdint>
#include <vector>

namespace sluice::kernels {

enum class BoxRotateMode { kExpand, kHalfway, kFixed };

struct BoxRotateParams {
  float degrees = 0;
  bool ltrb = true;
  bool normalized = true;
  BoxRotateMode mode = BoxRotateMode::kExpand;
  float remove_threshold = 0.1f;
  float in_w = 1, in_h = 1;    // the image's size (pixels)
  float out_w = 1, out_h = 1;  // the canvas's size (pixels)
};

// Writes the kept boxes to out (room for n boxes) in order; returns their input indices.
std::vector<int32_t> RotateBoxes(const float* in, int64_t n, const BoxRotateParams& p, float* out);

}  // namespace sluice::kernels
