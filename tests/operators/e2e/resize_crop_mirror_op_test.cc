// resize_crop_mirror and fast_resize_crop_mirror with the shared harness: against the resize
// kernel's whole output cropped and flipped by loops written here (bit-exact where the crop's
// source region is exact in float: power-of-two scales), per-sample mirror masks, volumes, the
// legacy name's antialias default, determinism across thread counts and bad arguments rejected
// at the call or the run, naming the argument. Photographs: python/tests/test_resize_crop_mirror.py.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <vector>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;

std::vector<uint8_t> Pattern(int h, int w, int c, int seed) {
  std::vector<uint8_t> v(size_t(h) * w * c);
  for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t((i * 37 + size_t(seed) * 11 + (i / 7) * (i % 13)) & 0xff);
  return v;
}

// The kernel's whole resize of `img` (h x w x c to oh x ow), then the window (y, x, ch, cw), then flips.
std::vector<uint8_t> Reference(const std::vector<uint8_t>& img, int h, int w, int c, int oh, int ow, int y, int x,
                               int ch, int cw, int mirror, bool antialias = true) {
  kernels::ResizeParams p;
  p.antialias = antialias;
  std::vector<uint8_t> full(size_t(oh) * ow * c);
  kernels::Resize(img.data(), h, w, c, full.data(), oh, ow, p);
  std::vector<uint8_t> out(size_t(ch) * cw * c);
  for (int i = 0; i < ch; ++i)
    for (int j = 0; j < cw; ++j) {
      const int si = y + ((mirror & 2) ? ch - 1 - i : i), sj = x + ((mirror & 1) ? cw - 1 - j : j);
      for (int k = 0; k < c; ++k) out[(size_t(i) * cw + j) * c + k] = full[(size_t(si) * ow + sj) * c + k];
    }
  return out;
}

std::vector<uint8_t> Bytes(const Batch& b, int i) {
  const auto* p = static_cast<const uint8_t*>(b.data(i));
  return std::vector<uint8_t>(p, p + b.nbytes(i));
}

TEST(ResizeCropMirror, EqualsResizeThenCropThenFlipPerSampleMirror) {
  // 64x48 -> 32x24 (scale 2, exact in float), crop 16x10 at crop_pos (0.25, 0.75).
  std::vector<std::vector<uint8_t>> imgs;
  for (int s = 0; s < 4; ++s) imgs.push_back(Pattern(48, 64, 3, s));
  const HostBatch in = HostBatch::Of(imgs, std::vector<TensorShape>(4, TensorShape{48, 64, 3}), "HWC");
  const OpCase c{OperatorDef("resize_crop_mirror")
                     .Arg("resize_x", 32.0)
                     .Arg("resize_y", 24.0)
                     .Arg("crop", std::vector<double>{10, 16})
                     .Arg("crop_pos_x", 0.25)
                     .Arg("crop_pos_y", 0.75),
                 in,
                 {{"mirror", HostBatch::Of<int32_t>({{0}, {1}, {2}, {3}}, std::vector<TensorShape>(4, TensorShape{}))}}};
  const std::vector<Batch> out = RunOpCase(c);
  ASSERT_EQ(out[0].layout(), "HWC");
  // anchor x = round(0.25 * (32 - 16)) = 4, y = round(0.75 * (24 - 10)) = round(10.5) = 11.
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(out[0].shape(s), (TensorShape{10, 16, 3}));
    EXPECT_EQ(Bytes(out[0], s), Reference(imgs[size_t(s)], 48, 64, 3, 24, 32, 11, 4, 10, 16, s)) << "mirror " << s;
  }
  ExpectSameForAnyThreadCount(c);
}

TEST(ResizeCropMirror, ResizeShorterWithoutCropIsResizeAndFlip) {
  const std::vector<uint8_t> img = Pattern(40, 60, 1, 3);
  const HostBatch in = HostBatch::Of<uint8_t>({img}, {TensorShape{40, 60, 1}}, "HWC");
  const std::vector<Batch> out =
      RunOpCase(OpCase{OperatorDef("resize_crop_mirror").Arg("resize_shorter", 20.0).Arg("mirror", int64_t{1}), in});
  EXPECT_EQ(out[0].shape(0), (TensorShape{20, 30, 1}));
  EXPECT_EQ(Bytes(out[0], 0), Reference(img, 40, 60, 1, 20, 30, 0, 0, 20, 30, 1));
}

TEST(ResizeCropMirror, LegacyNameHasAntialiasOff) {
  const std::vector<uint8_t> img = Pattern(48, 64, 3, 1);
  const HostBatch in = HostBatch::Of<uint8_t>({img}, {TensorShape{48, 64, 3}}, "HWC");
  auto run = [&](OperatorDef d) {
    return Bytes(RunOpCase(OpCase{d.Arg("resize_x", 16.0).Arg("resize_y", 12.0).Arg("crop", 8.0), in})[0], 0);
  };
  const auto fast = run(OperatorDef("fast_resize_crop_mirror"));
  EXPECT_EQ(fast, run(OperatorDef("resize_crop_mirror").Arg("antialias", false)));
  EXPECT_NE(fast, run(OperatorDef("resize_crop_mirror")));
  EXPECT_EQ(fast, Reference(img, 48, 64, 3, 12, 16, 2, 4, 8, 8, 0, /*antialias=*/false));
}

TEST(ResizeCropMirror, WindowPastTheResizedImageReadsItsEdge) {
  const std::vector<uint8_t> img(size_t(10) * 10 * 3, 77);
  const HostBatch in = HostBatch::Of<uint8_t>({img}, {TensorShape{10, 10, 3}}, "HWC");
  const std::vector<Batch> out = RunOpCase(
      OpCase{OperatorDef("resize_crop_mirror").Arg("size", std::vector<double>{20, 20}).Arg("crop", 30.0), in});
  ASSERT_EQ(out[0].shape(0), (TensorShape{30, 30, 3}));
  for (uint8_t v : Bytes(out[0], 0)) ASSERT_EQ(v, 77);
}

TEST(ResizeCropMirror, VolumesCropAndMirrorDepthwise) {
  // 8x8x8 (1 channel) -> 4x4x4, crop (2, 2, 2) at the front-top-left, mirror 4 (depth) + 1 (width).
  std::vector<uint8_t> vol(512);
  for (size_t i = 0; i < vol.size(); ++i) vol[i] = uint8_t((i * 29) & 0xff);
  const HostBatch in = HostBatch::Of<uint8_t>({vol}, {TensorShape{8, 8, 8, 1}}, "DHWC");
  const std::vector<Batch> out = RunOpCase(OpCase{OperatorDef("resize_crop_mirror")
                                                      .Arg("size", std::vector<double>{4, 4, 4})
                                                      .Arg("crop", std::vector<double>{2, 2, 2})
                                                      .Arg("crop_pos_x", 0.0)
                                                      .Arg("crop_pos_y", 0.0)
                                                      .Arg("crop_pos_z", 0.0)
                                                      .Arg("mirror", int64_t{5}),
                                                  in});
  ASSERT_EQ(out[0].layout(), "DHWC");
  ASSERT_EQ(out[0].shape(0), (TensorShape{2, 2, 2, 1}));
  std::vector<uint8_t> full(64);
  kernels::ResizeParams p;
  p.roi = kernels::ResizeRoi{0, 0, 8, 8};
  kernels::ResizeVolume(vol.data(), 8, 8, 8, 1, full.data(), 4, 4, 4, p, kernels::ResizeDepthRoi{0, 8});
  const auto got = Bytes(out[0], 0);
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        EXPECT_EQ(got[size_t((z * 2 + y) * 2 + x)], full[size_t(((1 - z) * 4 + y) * 4 + (1 - x))]) << z << y << x;
}

TEST(ResizeCropMirror, BadArgumentsNameTheArgument) {
  const OperatorDef base = OperatorDef("resize_crop_mirror").Arg("resize_x", 8.0);
  ExpectCallError(OperatorDef(base).Arg("mirror", int64_t{8}), "mirror", "");
  ExpectCallError(OperatorDef("resize_crop_mirror").Arg("crop", 4.0), "size", "no output size");
  ExpectCallError(OperatorDef(base).Arg("crop", 4.0).Arg("crop_h", 2.0), "crop", "");
  ExpectCallError(OperatorDef(base).Arg("rounding", std::string("up")), "rounding", "");
  ExpectCallError(OperatorDef(base).Arg("size", 8.0), "size", "");
  const HostBatch img = HostBatch::Of<uint8_t>({Pattern(8, 8, 3, 0)}, {TensorShape{8, 8, 3}}, "HWC");
  ExpectRunError(OpCase{OperatorDef(base).Arg("crop_d", 2.0), img}, "crop_d");
  ExpectRunError(OpCase{OperatorDef(base).Arg("crop", std::vector<double>{2, 2, 2}), img}, "crop");
  ExpectRunError(OpCase{OperatorDef(base).Arg("resize_z", 3.0), img}, "resize_z");
}

}  // namespace
}  // namespace sluice
