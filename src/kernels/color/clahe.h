// Contrast Limited Adaptive Histogram Equalization of uint8 planes, as OpenCV's cv::CLAHE (which
// DALI's CPU clahe calls): the plane is cut into tiles_x x tiles_y tiles (padded at the right and
// bottom by reflection, BORDER_REFLECT_101, when an extent is not a multiple of its tile count: both
// extents then grow by `tiles - extent % tiles`, as OpenCV does);
// each tile's histogram is clipped at max(int(clip_limit * tile_area / 256), 1) with the excess
// spread over the bins (the residual one bin every 256/residual), its cumulative sum scaled by
// 255 / tile_area into a table (float32, rounded half to even); every pixel maps through the four
// nearest tiles' tables, bilinearly weighted by its position (float32, OpenCV's order of operations,
// so results are bit-exact with cv2.createCLAHE's on baseline x86-64, where nothing is fused).
// Thread-safety: reentrant; each call allocates the tables and a row of weights.
#pragma once
#include <cstdint>

namespace sluice::kernels {

struct ClaheParams {
  int tiles_x = 8, tiles_y = 8;  // >= 1
  double clip_limit = 40.0;      // <= 0: no clipping
};

// One plane of h x w values read at in[(y * w + x) * stride], written at out[(y * w + x) * stride]
// (stride 1: a gray plane; 3 with an offset: one channel of an HWC image). in == out is allowed.
void ClahePlane(const uint8_t* in, uint8_t* out, int64_t h, int64_t w, int64_t stride, const ClaheParams& p);

// An RGB image (HWC, 3 channels): CLAHE on the lightness of its 8-bit CIE L*a*b* form, then back to
// RGB, as DALI's CPU operator (OpenCV's 8-bit COLOR_RGB2Lab / COLOR_Lab2RGB, reproduced bit for bit
// by kernels/color/lab8.h): bit-exact with DALI and OpenCV. in == out is allowed; no allocation
// beyond ClahePlane's.
void ClaheRgbLuma(const uint8_t* in, uint8_t* out, int64_t h, int64_t w, const ClaheParams& p);

}  // namespace sluice::kernels
