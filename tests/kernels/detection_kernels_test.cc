// The detection kernels against their contracts: random_bbox_crop's window over 10,000 draws (every
// accepted window passes the threshold it was drawn for, kept boxes lie in it, the threshold choice
// is uniform by a chi-square test), COCO RLE strings, and polygon rasterisation on simple shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "core/random.h"
#include "kernels/detection/bbox_crop.h"
#include "kernels/detection/box_encoder.h"
#include "kernels/detection/coco_mask.h"

namespace sluice::kernels {
namespace {

std::vector<Box> RandomBoxes(RandomGenerator& rng, int n) {
  std::vector<Box> boxes;
  for (int i = 0; i < n; ++i) {
    const float l = static_cast<float>(rng.Uniform(0, 0.4)), t = static_cast<float>(rng.Uniform(0, 0.4));
    boxes.push_back({l, t, l + static_cast<float>(rng.Uniform(0.3, 0.6)), t + static_cast<float>(rng.Uniform(0.3, 0.6))});
  }
  return boxes;
}

TEST(RandomBBoxCrop, TenThousandDrawsPassTheirThresholdAndTheChoiceIsUniform) {
  BBoxCropParams p;
  p.thresholds = {0.0f, 0.1f, 0.3f, 0.5f};
  p.aspect_min = 0.5f;
  p.aspect_max = 2.f;
  p.scaling_min = 0.3f;
  p.scaling_max = 1.f;
  p.num_attempts = 1000;  // enough that every drawn option finds a window: the option is what was drawn
  RandomGenerator rng(123);
  std::vector<int> counts(p.thresholds.size() + 1, 0);
  const int draws = 10000;
  for (int d = 0; d < draws; ++d) {
    const std::vector<Box> boxes = RandomBoxes(rng, 1);  // one box: every threshold <= 0.5 is reachable
    const BBoxCropResult r = RandomBBoxCrop(boxes, p, rng);
    ASSERT_GE(r.option, 0) << "attempts ran out";
    ++counts[static_cast<size_t>(r.option)];
    const Box& w = r.window;
    ASSERT_GE(w.l, 0.f);
    ASSERT_GE(w.t, 0.f);
    ASSERT_LE(w.r, 1.f + 1e-6f);
    ASSERT_LE(w.b, 1.f + 1e-6f);
    if (r.option == static_cast<int>(p.thresholds.size())) {
      ASSERT_EQ(r.boxes.size(), boxes.size());
      continue;
    }
    for (const Box& b : boxes) ASSERT_GE(IoU(w, b), p.thresholds[static_cast<size_t>(r.option)]);
    const float ww = w.r - w.l, wh = w.b - w.t;
    ASSERT_GE(ww / wh, 0.5f - 1e-5f);
    ASSERT_LE(ww / wh, 2.f + 1e-5f);
    for (const Box& b : r.boxes) {
      ASSERT_GE(b.l, 0.f);
      ASSERT_GE(b.t, 0.f);
      ASSERT_LE(b.r, 1.f);
      ASSERT_LE(b.b, 1.f);
    }
  }
  // Chi-square against uniform over the 5 options: 4 degrees of freedom, p = 0.001 at 18.47.
  const double expected = static_cast<double>(draws) / counts.size();
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 18.47) << counts[0] << " " << counts[1] << " " << counts[2] << " " << counts[3] << " " << counts[4];
}

TEST(RandomBBoxCrop, ImpossibleRequestsEndWithTheWholeImage) {
  BBoxCropParams p;
  p.thresholds = {0.99f};
  p.allow_no_crop = false;
  p.scaling_min = p.scaling_max = 0.2f;
  RandomGenerator rng(1);
  const std::vector<Box> boxes = {{0.f, 0.f, 0.1f, 0.1f}, {0.8f, 0.8f, 0.9f, 0.9f}};
  const BBoxCropResult r = RandomBBoxCrop(boxes, p, rng);
  EXPECT_EQ(r.option, -1);
  EXPECT_EQ(r.window.r, 1.f);
  EXPECT_EQ(r.boxes.size(), 2u);
}

TEST(RandomBBoxCrop, OverlapThresholdAndPruneThreshold) {
  BBoxCropParams p;
  p.thresholds = {0.9f};
  p.allow_no_crop = false;
  p.overlap = true;
  p.scaling_min = 0.3f;
  p.scaling_max = 0.6f;
  p.aspect_min = 0.2f;
  p.aspect_max = 5.f;
  p.num_attempts = 100;
  p.prune_threshold = 0.5f;
  RandomGenerator rng(2);
  for (int d = 0; d < 1000; ++d) {
    const std::vector<Box> boxes = {{0.4f, 0.4f, 0.5f, 0.5f}};
    const BBoxCropResult r = RandomBBoxCrop(boxes, p, rng);
    ASSERT_EQ(r.option, 0);
    ASSERT_GE(IntersectionArea(r.window, boxes[0]) / boxes[0].area(), 0.9f);
    ASSERT_EQ(r.boxes.size(), 1u);
  }
}

TEST(CocoRle, CompressedStringsDecode) {
  std::vector<uint32_t> c;
  // pycocotools: encode of a 4x3 mask [[0,1,1],[0,1,0],[1,1,0],[0,0,0]] (column-major counts 2,4,1,5... )
  ASSERT_TRUE(DecodeCocoRleString("52", &c));
  EXPECT_EQ(c, (std::vector<uint32_t>{5, 2}));
  ASSERT_TRUE(DecodeCocoRleString("0;", &c));  // ';' = 11: the 2nd count, +(-5)? no: 11 < 16 positive
  EXPECT_EQ(c, (std::vector<uint32_t>{0, 11}));
  EXPECT_FALSE(DecodeCocoRleString("\x7f", &c));
  EXPECT_FALSE(DecodeCocoRleString("p", &c));  // 'p' - 48 = 64: out of range
  EXPECT_FALSE(DecodeCocoRleString("P", &c));  // a continuation group with nothing after it
}

TEST(CocoPolygon, AxisAlignedSquareCoversItsPixels) {
  const double xy[] = {2, 1, 6, 1, 6, 4, 2, 4};  // pixels x 2..5, y 1..3 (COCO's rule: [l, r) x [t, b))
  const CocoRle rle = RasterizeCocoPolygon(xy, 4, 6, 8);
  std::vector<int32_t> mask(48, 0);
  ASSERT_TRUE(PaintRle(rle, 7, mask.data()));
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) EXPECT_EQ(mask[y * 8 + x], (x >= 2 && x < 6 && y >= 1 && y < 4) ? 7 : 0) << x << "," << y;
  CocoRle bad = rle;
  bad.counts.push_back(5);
  EXPECT_FALSE(PaintRle(bad, 1, mask.data()));
}

TEST(BoxEncoder, UnmatchedAnchorsKeepThemselvesAndEveryBoxMatches) {
  const std::vector<Box> anchors = {{0, 0, 0.5f, 0.5f}, {0.5f, 0, 1, 0.5f}, {0, 0.5f, 0.5f, 1}, {0.5f, 0.5f, 1, 1}};
  const Box boxes[] = {{0.05f, 0.05f, 0.2f, 0.2f}};  // IoU 0.09 with anchor 0: below criteria, forced anyway
  const int32_t labels[] = {3};
  float out[16];
  int32_t out_labels[4];
  std::vector<float> scratch;
  EncodeBoxes(boxes, labels, 1, anchors, BoxEncoderParams{}, out, out_labels, scratch);
  EXPECT_EQ(out_labels[0], 3);
  EXPECT_FLOAT_EQ(out[0], 0.125f);
  EXPECT_FLOAT_EQ(out[2], 0.15f);
  for (int a = 1; a < 4; ++a) {
    EXPECT_EQ(out_labels[a], 0);
    EXPECT_FLOAT_EQ(out[4 * a + 2], 0.5f);
  }
}

}  // namespace
}  // namespace sluice::kernels
