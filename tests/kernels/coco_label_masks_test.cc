// kernels::ComposeCocoLabelMasks and UnionCocoRles against DALI 2.4's COCOReader pixelwise masks on
// 6 x 5 images (the values readers.coco gives in DALI, also recorded as goldens through the reader):
// the higher label wins an overlap except on the run reaching the last pixel, and a label without
// a mask is skipped (DALI zeroes the whole mask when it is the lowest: a documented difference).
#include <gtest/gtest.h>

#include <vector>

#include "kernels/detection/coco_label_masks.h"

namespace sluice::kernels {
namespace {

constexpr int kH = 6, kW = 5;

// The column-major RLE of the rectangle [x0, x1) x [y0, y1).
CocoRle Rect(int x0, int y0, int x1, int y1) {
  std::vector<uint8_t> on(kH * kW, 0);
  for (int x = x0; x < x1; ++x)
    for (int y = y0; y < y1; ++y) on[x * kH + y] = 1;
  CocoRle r;
  r.height = kH;
  r.width = kW;
  uint8_t cur = 0;
  uint32_t run = 0;
  for (uint8_t v : on) {
    if (v != cur) r.counts.push_back(run), run = 0, cur = v;
    ++run;
  }
  r.counts.push_back(run);
  return r;
}

std::vector<int32_t> Compose(const std::vector<LabelMask>& labels) {
  std::vector<int32_t> mask(kH * kW, -1);
  ComposeCocoLabelMasks(labels, kH, kW, mask.data());
  return mask;
}

TEST(CocoLabelMasks, FullOverlapKeepsTheLowerLabelOnTheLastRun) {
  const CocoRle all = Rect(0, 0, 5, 6);
  EXPECT_EQ(Compose({{1, &all}, {2, &all}}), std::vector<int32_t>(kH * kW, 1));  // DALI: all 1
}

TEST(CocoLabelMasks, TheHigherLabelWinsElsewhere) {
  const CocoRle all = Rect(0, 0, 5, 6), inner = Rect(1, 1, 4, 4);
  const std::vector<int32_t> m = Compose({{1, &all}, {2, &inner}});
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) EXPECT_EQ(m[y * kW + x], (x >= 1 && x < 4 && y >= 1 && y < 4) ? 2 : 1) << y << "," << x;
}

TEST(CocoLabelMasks, LowerLabelCoveringTheEndKeepsThatRun) {
  // DALI: label 1 covers x = 4, y >= 2 (the runs reaching the last pixel) under label 2's full mask.
  const CocoRle all = Rect(0, 0, 5, 6), corner = Rect(2, 2, 5, 6);
  const std::vector<int32_t> m = Compose({{1, &corner}, {2, &all}});
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) EXPECT_EQ(m[y * kW + x], (x == 4 && y >= 2) ? 1 : 2) << y << "," << x;
}

TEST(CocoLabelMasks, LabelsWithoutMaskAreSkipped) {
  const CocoRle inner = Rect(1, 1, 4, 4);
  const std::vector<int32_t> m = Compose({{1, nullptr}, {2, &inner}});
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) EXPECT_EQ(m[y * kW + x], (x >= 1 && x < 4 && y >= 1 && y < 4) ? 2 : 0);
}

TEST(CocoLabelMasks, UnionIsCanonical) {
  const CocoRle u = UnionCocoRles({Rect(0, 0, 2, 2), Rect(1, 1, 3, 3), Rect(4, 5, 5, 6)});
  const std::vector<uint32_t> want = {0, 2, 4, 3, 4, 2, 14, 1};
  EXPECT_EQ(u.counts, want);
  EXPECT_EQ(UnionCocoRles({Rect(0, 0, 0, 0)}).counts, std::vector<uint32_t>{30});
}

}  // namespace
}  // namespace sluice::kernels
