// Volumes (DHWC, CDHW) through flip (depthwise), crop (crop_d, crop_pos_z), resize (resize_z, size
// of 3; CDHW and CHW channel by channel), crop_mirror_normalize (channel-first input too),
// warp_affine (3x4 matrices) and rotate (about an axis), with the shared harness: the values against loops written
// here, determinism across thread counts, and bad arguments rejected at the call or at the run
// naming the argument. NumPy/SciPy comparisons are in python/tests/test_volume*.py.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;

// Two uint8 volumes of 2 channels, D x H x W = 3x4x5 and 4x3x6, values 0, 1, 2, ... in memory order.
HostBatch Volumes(const std::string& layout) {
  std::vector<std::vector<uint8_t>> data;
  std::vector<TensorShape> shapes;
  for (auto [d, h, w] : {std::array<int64_t, 3>{3, 4, 5}, std::array<int64_t, 3>{4, 3, 6}}) {
    std::vector<uint8_t> v(size_t(d * h * w * 2));
    std::iota(v.begin(), v.end(), uint8_t{0});
    data.push_back(v);
    shapes.push_back(layout == "CDHW" ? TensorShape{2, d, h, w} : TensorShape{d, h, w, 2});
  }
  return HostBatch::Of(data, shapes, layout);
}

uint8_t At(const HostBatch& b, int i, int64_t z, int64_t y, int64_t x, int64_t c) {
  const TensorShape& s = b.shapes[size_t(i)];
  const bool cf = b.layout == "CDHW";
  const int64_t D = cf ? s[1] : s[0], H = cf ? s[2] : s[1], W = cf ? s[3] : s[2];
  return b.bytes[size_t(i)][size_t(cf ? ((c * D + z) * H + y) * W + x : ((z * H + y) * W + x) * 2 + c)];
}

uint8_t OutAt(const Batch& b, int i, const std::string& layout, int64_t z, int64_t y, int64_t x, int64_t c) {
  const TensorShape& s = b.shape(i);
  const bool cf = layout == "CDHW";
  const int64_t D = cf ? s[1] : s[0], H = cf ? s[2] : s[1], W = cf ? s[3] : s[2];
  const auto* p = static_cast<const uint8_t*>(b.data(i));
  return p[size_t(cf ? ((c * D + z) * H + y) * W + x : ((z * H + y) * W + x) * 2 + c)];
}

TEST(VolumeOps, FlipDepthwisePerSampleBothLayouts) {
  for (const std::string layout : {"DHWC", "CDHW"}) {
    const HostBatch in = Volumes(layout);
    const OpCase c{OperatorDef("flip").Arg("horizontal", int64_t{0}).Arg("vertical", int64_t{1}), in,
                   {{"depthwise", HostBatch::Of<int32_t>({{1}, {0}}, {TensorShape{}, TensorShape{}})}}};
    const std::vector<Batch> out = RunOpCase(c);
    ASSERT_EQ(out[0].layout(), layout);
    for (int i = 0; i < 2; ++i) {
      const TensorShape& s = in.shapes[size_t(i)];
      const bool cf = layout == "CDHW";
      const int64_t D = cf ? s[1] : s[0], H = cf ? s[2] : s[1], W = cf ? s[3] : s[2];
      for (int64_t z = 0; z < D; ++z)
        for (int64_t y = 0; y < H; ++y)
          for (int64_t x = 0; x < W; ++x)
            for (int64_t ch = 0; ch < 2; ++ch)
              ASSERT_EQ(OutAt(out[0], i, layout, z, y, x, ch), At(in, i, i == 0 ? D - 1 - z : z, H - 1 - y, x, ch))
                  << layout << " sample " << i;
    }
    ExpectSameForAnyThreadCount(c);
  }
  ExpectCallError(OperatorDef("flip").Arg("depthwise", int64_t{3}), "depthwise", "");
}

TEST(VolumeOps, CropDepthWindowWithPadding) {
  const HostBatch in = Volumes("DHWC");
  const OpCase c{OperatorDef("crop")
                     .Arg("crop", std::vector<double>{5, 2, 3})
                     .Arg("crop_pos_z", 1.0)
                     .Arg("crop_pos_x", 0.0)
                     .Arg("out_of_bounds_policy", std::string("pad"))
                     .Arg("fill_values", std::vector<double>{200, 201}),
                 in};
  const std::vector<Batch> out = RunOpCase(c);
  for (int i = 0; i < 2; ++i) {
    const TensorShape& s = in.shapes[size_t(i)];
    ASSERT_EQ(out[0].shape(i), (TensorShape{5, 2, 3, 2}));
    const int64_t z0 = s[0] - 5, y0 = std::lround((s[1] - 2) * 0.5);  // pos 1: the window ends at the back
    for (int64_t z = 0; z < 5; ++z)
      for (int64_t y = 0; y < 2; ++y)
        for (int64_t x = 0; x < 3; ++x)
          for (int64_t ch = 0; ch < 2; ++ch) {
            const int64_t sz = z0 + z;
            const uint8_t want = sz < 0 ? uint8_t(200 + ch) : At(in, i, sz, y0 + y, x, ch);
            ASSERT_EQ(OutAt(out[0], i, "DHWC", z, y, x, ch), want) << i << " z " << z;
          }
  }
  ExpectSameForAnyThreadCount(c);
  ExpectCallError(OperatorDef("crop").Arg("crop", std::vector<double>{1, 1, 1}).Arg("crop_d", 2.0), "crop_d", "");
  ExpectCallError(OperatorDef("crop").Arg("crop", std::vector<double>{1, 1, 1, 1}), "crop", "");
  ExpectRunError(OpCase{OperatorDef("crop").Arg("crop_d", 9.0), in}, "depth");
}

TEST(VolumeOps, ResizeVolumesShapesAndDeterminism) {
  const HostBatch in = Volumes("DHWC");
  const OpCase c{OperatorDef("resize").Arg("resize_z", 7.0).Arg("resize_x", 4.0).Arg("resize_y", 9.0), in};
  const std::vector<Batch> out = RunOpCase(c);
  EXPECT_EQ(out[0].layout(), "DHWC");
  EXPECT_EQ(out[0].shape(0), (TensorShape{7, 9, 4, 2}));
  EXPECT_EQ(out[0].shape(1), (TensorShape{7, 9, 4, 2}));
  ExpectSameForAnyThreadCount(c);
  // size of 3 with a derived extent (default mode: the average scale of the given ones).
  const std::vector<Batch> derived =
      RunOpCase(OpCase{OperatorDef("resize").Arg("size", std::vector<double>{6, 8, 0}), Volumes("DHWC")});
  EXPECT_EQ(derived[0].shape(0), (TensorShape{6, 8, 10, 2}));  // scales 2 and 2: width 5 -> 10
  ExpectRunError(OpCase{OperatorDef("resize").Arg("size", std::vector<double>{6, 8}), in}, "size");
}

// Channel c of every sample of `b` (CDHW or CHW) as a 1-channel DHWC (HWC) batch.
HostBatch Channel(const HostBatch& b, int64_t c) {
  std::vector<std::vector<uint8_t>> data;
  std::vector<TensorShape> shapes;
  for (size_t i = 0; i < b.shapes.size(); ++i) {
    const TensorShape& s = b.shapes[i];
    const size_t plane = size_t(s.num_elements() / s[0]);
    data.emplace_back(b.bytes[i].begin() + std::ptrdiff_t(size_t(c) * plane),
                      b.bytes[i].begin() + std::ptrdiff_t(size_t(c + 1) * plane));
    std::vector<int64_t> dims(s.dims().begin() + 1, s.dims().end());
    dims.push_back(1);
    shapes.push_back(TensorShape(dims));
  }
  return HostBatch::Of(data, shapes, b.layout == "CDHW" ? "DHWC" : "HWC");
}

// CDHW volumes and CHW images are resized channel by channel: each output channel is exactly the
// 1-channel DHWC (HWC) resize of that input channel, for every filter and a mirrored axis.
TEST(VolumeOps, ResizeChannelFirstIsEachChannelResizedAlone) {
  HostBatch images = Volumes("CDHW");
  images.layout = "CHW";
  for (auto& s : images.shapes) s = TensorShape{s[0], s[1] * s[2], s[3]};  // 2 x 12 x 5, 2 x 12 x 6
  for (const HostBatch& in : {Volumes("CDHW"), images}) {
    const bool volume = in.layout == "CDHW";
    for (const std::string interp : {"LINEAR", "NN", "CUBIC"}) {
      OperatorDef rs = OperatorDef("resize").Arg("interp_type", interp).Arg("resize_x", -7.0).Arg("resize_y", 5.0);
      if (volume) rs.Arg("resize_z", 6.0);
      const OpCase c{rs, in};
      const std::vector<Batch> out = RunOpCase(c);
      ASSERT_EQ(out[0].layout(), in.layout);
      for (int64_t ch = 0; ch < 2; ++ch) {
        const std::vector<Batch> alone = RunOpCase(OpCase{rs, Channel(in, ch)});
        for (int i = 0; i < 2; ++i) {
          const TensorShape& a = alone[0].shape(i);
          ASSERT_EQ(out[0].shape(i), volume ? (TensorShape{2, a[0], a[1], a[2]}) : (TensorShape{2, a[0], a[1]}));
          EXPECT_EQ(a, volume ? (TensorShape{6, 5, 7, 1}) : (TensorShape{5, 7, 1}));
          const size_t n = size_t(a.num_elements());
          const auto* o = static_cast<const uint8_t*>(out[0].data(i)) + size_t(ch) * n;
          const auto* r = static_cast<const uint8_t*>(alone[0].data(i));
          EXPECT_EQ(std::vector<uint8_t>(o, o + n), std::vector<uint8_t>(r, r + n)) << in.layout << " " << interp;
        }
      }
      ExpectSameForAnyThreadCount(c);
    }
  }
  // More channels than the interleaved kernels take (1..4): planes have no such limit.
  std::vector<uint8_t> six(6 * 2 * 3 * 4);
  std::iota(six.begin(), six.end(), uint8_t{0});
  const HostBatch wide = HostBatch::Of(std::vector<std::vector<uint8_t>>{six}, {TensorShape{6, 2, 3, 4}}, "CDHW");
  EXPECT_EQ(RunOpCase(OpCase{OperatorDef("resize").Arg("size", std::vector<double>{3, 3, 3}), wide})[0].shape(0),
            (TensorShape{6, 3, 3, 3}));
  ExpectRunError(OpCase{OperatorDef("resize").Arg("size", std::vector<double>{6, 8}), Volumes("CDHW")}, "size");
}

// crop_mirror_normalize reads CDHW input channel by channel, each with its own mean, std and
// fill value, into a CDHW or DHWC output (pad_output's extra channel 0).
TEST(VolumeOps, CropMirrorNormalizeCdhwInput) {
  const HostBatch in = Volumes("CDHW");
  for (const std::string layout : {"CDHW", "DHWC"}) {
    const OpCase c{OperatorDef("crop_mirror_normalize")
                       .Arg("crop", std::vector<double>{2, 2, 3})
                       .Arg("crop_pos_z", 1.0)
                       .Arg("mirror", int64_t{1})
                       .Arg("mean", std::vector<double>{1.0, 3.0})
                       .Arg("std", std::vector<double>{2.0, 4.0})
                       .Arg("pad_output", true)
                       .Arg("output_layout", layout),
                   in};
    const std::vector<Batch> out = RunOpCase(c);
    ASSERT_EQ(out[0].layout(), layout);
    const bool cf = layout == "CDHW";
    for (int i = 0; i < 2; ++i) {
      const TensorShape& s = in.shapes[size_t(i)];
      ASSERT_EQ(out[0].shape(i), cf ? (TensorShape{3, 2, 2, 3}) : (TensorShape{2, 2, 3, 3}));
      const int64_t z0 = s[1] - 2, y0 = std::lround((s[2] - 2) * 0.5), x0 = std::lround((s[3] - 3) * 0.5);
      const auto* o = static_cast<const float*>(out[0].data(i));
      for (int64_t ch = 0; ch < 3; ++ch)
        for (int64_t z = 0; z < 2; ++z)
          for (int64_t y = 0; y < 2; ++y)
            for (int64_t x = 0; x < 3; ++x) {
              const float got = o[cf ? ((ch * 2 + z) * 2 + y) * 3 + x : ((z * 2 + y) * 3 + x) * 3 + ch];
              const float want = ch == 2 ? 0.0f
                                         : (At(in, i, z0 + z, y0 + y, x0 + 2 - x, ch) - (ch ? 3.0f : 1.0f)) /
                                               (ch ? 4.0f : 2.0f);
              ASSERT_FLOAT_EQ(got, want) << layout << " sample " << i;
            }
    }
    ExpectSameForAnyThreadCount(c);
  }
}

TEST(VolumeOps, WarpAffineIdentityAndTranslation) {
  const HostBatch in = Volumes("DHWC");
  // x' = x + 1 (output voxel x samples input x + 1), nearest, fill 9 beyond the volume.
  const OpCase c{OperatorDef("warp_affine")
                     .Arg("matrix", std::vector<double>{1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0})
                     .Arg("interp_type", std::string("NN"))
                     .Arg("fill_value", std::vector<double>{9}),
                 in};
  const std::vector<Batch> out = RunOpCase(c);
  for (int i = 0; i < 2; ++i) {
    const TensorShape& s = in.shapes[size_t(i)];
    ASSERT_EQ(out[0].shape(i), s);
    for (int64_t z = 0; z < s[0]; ++z)
      for (int64_t y = 0; y < s[1]; ++y)
        for (int64_t x = 0; x < s[2]; ++x)
          for (int64_t ch = 0; ch < 2; ++ch)
            ASSERT_EQ(OutAt(out[0], i, "DHWC", z, y, x, ch), x + 1 < s[2] ? At(in, i, z, y, x + 1, ch) : 9);
  }
  ExpectSameForAnyThreadCount(c);
  ExpectRunError(OpCase{OperatorDef("warp_affine").Arg("matrix", std::vector<double>{1, 0, 0, 0, 1, 0}), in}, "3x4");
  ExpectCallError(OperatorDef("warp_affine").Arg("matrix", std::vector<double>(9, 1.0)), "matrix", "");
}

// rotate by 90 degrees about z (right-handed, as DALI's 3-D rotate): the canvas swaps height and
// width, and output voxel (z, y, x) is input voxel (z, H - 1 - x, y), exactly (nearest, no ties).
TEST(VolumeOps, RotateVolumeAboutAnAxis) {
  const HostBatch in = Volumes("DHWC");
  const OpCase c{OperatorDef("rotate")
                     .Arg("angle", 90.0)
                     .Arg("axis", std::vector<double>{0, 0, 1})
                     .Arg("interp_type", std::string("NN")),
                 in};
  const std::vector<Batch> out = RunOpCase(c);
  ASSERT_EQ(out[0].layout(), "DHWC");
  for (int i = 0; i < 2; ++i) {
    const TensorShape& s = in.shapes[size_t(i)];
    ASSERT_EQ(out[0].shape(i), (TensorShape{s[0], s[2], s[1], 2}));
    for (int64_t z = 0; z < s[0]; ++z)
      for (int64_t y = 0; y < s[2]; ++y)
        for (int64_t x = 0; x < s[1]; ++x)
          for (int64_t ch = 0; ch < 2; ++ch)
            ASSERT_EQ(OutAt(out[0], i, "DHWC", z, y, x, ch), At(in, i, z, s[1] - 1 - x, y, ch));
  }
  ExpectSameForAnyThreadCount(c);
  ExpectRunError(OpCase{OperatorDef("rotate").Arg("angle", 10.0), in}, "axis");
  ExpectCallError(OperatorDef("rotate").Arg("angle", 10.0).Arg("axis", std::vector<double>{1, 0}), "axis", "");
}

TEST(VolumeOps, CropMirrorNormalizeVolumesToCdhw) {
  const HostBatch in = Volumes("DHWC");
  const OpCase c{OperatorDef("crop_mirror_normalize")
                     .Arg("crop", std::vector<double>{2, 2, 3})
                     .Arg("crop_pos_z", 1.0)
                     .Arg("mirror", int64_t{1})
                     .Arg("mean", std::vector<double>{1.0})
                     .Arg("std", std::vector<double>{2.0}),
                 in};
  const std::vector<Batch> out = RunOpCase(c);
  ASSERT_EQ(out[0].layout(), "CDHW");
  for (int i = 0; i < 2; ++i) {
    const TensorShape& s = in.shapes[size_t(i)];
    ASSERT_EQ(out[0].shape(i), (TensorShape{2, 2, 2, 3}));
    const int64_t z0 = s[0] - 2, y0 = std::lround((s[1] - 2) * 0.5), x0 = std::lround((s[2] - 3) * 0.5);
    const auto* o = static_cast<const float*>(out[0].data(i));
    for (int64_t ch = 0; ch < 2; ++ch)
      for (int64_t z = 0; z < 2; ++z)
        for (int64_t y = 0; y < 2; ++y)
          for (int64_t x = 0; x < 3; ++x)
            ASSERT_FLOAT_EQ(o[((ch * 2 + z) * 2 + y) * 3 + x], (At(in, i, z0 + z, y0 + y, x0 + 2 - x, ch) - 1.0f) / 2.0f);
  }
  ExpectSameForAnyThreadCount(c);
  ExpectCallError(OperatorDef("crop_mirror_normalize").Arg("output_layout", std::string("DCHW")), "output_layout", "");
}

}  // namespace
}  // namespace sluice
