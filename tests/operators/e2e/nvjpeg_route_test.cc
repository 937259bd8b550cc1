// The mixed decoder's routing rules (operators/image/nvjpeg_route.h) on real files: which images
// may go to the JPEG engines, which to nvJPEG's hybrid backends and which stay on the host, and
// hw_decoder_load's split of a batch. Host logic only: runs on any machine.
#include <gtest/gtest.h>
#include <turbojpeg.h>

#include "op_test_util.h"
#include "operators/decode/nvjpeg_route.h"

namespace sluice {
namespace {

using kernels::DecodeParams;
using kernels::OutputColor;

struct Routed {
  JpegRoute route;
  int64_t pixels;
};

Routed Route(const std::vector<uint8_t>& bytes, const NvjpegRouteOptions& o, DecodeParams p = {}) {
  const kernels::ImageInfo info = kernels::PeekImage(bytes);
  p.output_type = o.output_type;
  return {RouteJpeg(bytes, info, kernels::PlanDecode(info, p), o), int64_t{info.width} * info.height};
}

JpegRoute RouteFile(const std::string& name, const NvjpegRouteOptions& o, DecodeParams p = {}) {
  return Route(testing::ReadBytes(testing::ImagePath(name)), o, p).route;
}

std::vector<uint8_t> Encode411() {
  std::vector<uint8_t> rgb(64 * 48 * 3, 128);
  tjhandle c = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  EXPECT_EQ(tjCompress2(c, rgb.data(), 64, 0, 48, TJPF_RGB, &buf, &size, TJSAMP_411, 90, 0), 0);
  std::vector<uint8_t> out(buf, buf + size);
  tjFree(buf);
  tjDestroy(c);
  return out;
}

TEST(NvjpegRoute, BaselineFramesGoToTheEnginesWhenThereAreAny) {
  NvjpegRouteOptions hw;
  hw.hardware_available = true;
  for (const char* f : {"photo_500x375.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "gray.jpg", "orient_1.jpg"}) {
    const JpegRoute r = RouteFile(f, hw);
    EXPECT_EQ(r.backend, JpegBackend::kHardware) << f << ": " << r.reason;
    EXPECT_TRUE(r.hardware_eligible) << f;
  }
  NvjpegRouteOptions none;  // no JPEG engines (e.g. a GPU before Ampere A100, or an L4 without them)
  const JpegRoute r = RouteFile("photo_500x375.jpg", none);
  EXPECT_EQ(r.backend, JpegBackend::kHybrid) << r.reason;
  EXPECT_TRUE(r.hardware_eligible);
}

TEST(NvjpegRoute, HybridHuffmanThresholdPicksGpuHuffmanForLargeSequentialFrames) {
  NvjpegRouteOptions o;
  o.hybrid_huffman_threshold = 500 * 375 - 1;
  EXPECT_EQ(RouteFile("photo_500x375.jpg", o).backend, JpegBackend::kGpuHybrid);
  o.hybrid_huffman_threshold = 500 * 375;  // "above" the threshold, not at it
  EXPECT_EQ(RouteFile("photo_500x375.jpg", o).backend, JpegBackend::kHybrid);
  // Progressive frames never take GPU Huffman, nor the engines.
  o.hybrid_huffman_threshold = 0;
  o.hardware_available = true;
  const JpegRoute p = RouteFile("progressive.jpg", o);
  EXPECT_EQ(p.backend, JpegBackend::kHybrid) << p.reason;
  EXPECT_FALSE(p.hardware_eligible);
}

TEST(NvjpegRoute, WhatNvjpegDoesNotTakeStaysOnTheHost) {
  NvjpegRouteOptions hw;
  hw.hardware_available = true;
  for (const char* f : {"cmyk.jpg", "gray.png", "palette8.bmp", "gray.pgm"}) {
    const JpegRoute r = RouteFile(f, hw);
    EXPECT_EQ(r.backend, JpegBackend::kHost) << f;
    EXPECT_NE(std::string(r.reason), "") << f;
  }
  // EXIF orientation is applied by the host decoder; without adjust_orientation nothing to apply.
  EXPECT_EQ(RouteFile("orient_6.jpg", hw).backend, JpegBackend::kHost);
  DecodeParams keep;
  keep.adjust_orientation = false;
  EXPECT_EQ(RouteFile("orient_6.jpg", hw, keep).backend, JpegBackend::kHardware);
  // YCbCr output: nvJPEG's YUV output is planar and subsampled.
  NvjpegRouteOptions ycc = hw;
  ycc.output_type = OutputColor::kYCbCr;
  EXPECT_EQ(RouteFile("photo_500x375.jpg", ycc).backend, JpegBackend::kHost);
  // A reduced-scale decode is the host's (nvJPEG decodes at full resolution).
  DecodeParams scaled;
  scaled.target_width = 100;
  scaled.target_height = 80;
  EXPECT_EQ(RouteFile("photo_500x375.jpg", hw, scaled).backend, JpegBackend::kHost);
  // A crop window is fine: nvJPEG decodes ROIs.
  DecodeParams roi;
  roi.roi = kernels::CropWindow{10, 20, 200, 100};
  EXPECT_EQ(RouteFile("photo_500x375.jpg", hw, roi).backend, JpegBackend::kHardware);
}

TEST(NvjpegRoute, FourOneOneIsHybridOnly) {
  NvjpegRouteOptions hw;
  hw.hardware_available = true;
  const Routed r = Route(Encode411(), hw);
  EXPECT_EQ(r.route.backend, JpegBackend::kHybrid) << r.route.reason;
  EXPECT_FALSE(r.route.hardware_eligible);
}

TEST(NvjpegRoute, CorruptFrameHeaderStaysOnTheHost) {
  std::vector<uint8_t> bytes = testing::ReadBytes(testing::ImagePath("photo_500x375.jpg"));
  const kernels::ImageInfo info = kernels::PeekImage(bytes);
  const kernels::DecodePlan plan = kernels::PlanDecode(info, {});
  bytes.resize(40);  // past PeekImage's point of view, before the frame header
  NvjpegRouteOptions hw;
  hw.hardware_available = true;
  EXPECT_EQ(RouteJpeg(bytes, info, plan, hw).backend, JpegBackend::kHost);
}

std::vector<JpegRoute> Hardware(int n) {
  return std::vector<JpegRoute>(static_cast<size_t>(n), JpegRoute{JpegBackend::kHardware, "", true});
}

TEST(NvjpegRoute, HwDecoderLoadSplitsTheBatchInOrder) {
  auto routes = Hardware(10);
  std::vector<int64_t> pixels(10, 100);
  pixels[9] = 5000;
  SplitHardwareLoad(routes, 0.65, pixels, 1000);
  int hw = 0;
  for (int i = 0; i < 10; ++i) {
    const JpegBackend expected = i < 7 ? JpegBackend::kHardware : (i == 9 ? JpegBackend::kGpuHybrid : JpegBackend::kHybrid);
    EXPECT_EQ(routes[static_cast<size_t>(i)].backend, expected) << i;  // round(6.5) = 7, the first seven
    hw += routes[static_cast<size_t>(i)].backend == JpegBackend::kHardware;
  }
  EXPECT_EQ(hw, 7);

  routes = Hardware(10);
  SplitHardwareLoad(routes, 0.0, pixels, 1000);
  for (const auto& r : routes) EXPECT_NE(r.backend, JpegBackend::kHardware);
  routes = Hardware(10);
  SplitHardwareLoad(routes, 1.0, pixels, 1000);
  for (const auto& r : routes) EXPECT_EQ(r.backend, JpegBackend::kHardware);

  // The share is of the whole batch: four eligible images of ten with load 0.5 all go to the engines.
  routes = Hardware(10);
  for (int i = 4; i < 10; ++i) routes[static_cast<size_t>(i)] = JpegRoute{JpegBackend::kHost, "png", false};
  SplitHardwareLoad(routes, 0.5, pixels, 1000);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(routes[static_cast<size_t>(i)].backend, JpegBackend::kHardware);
  for (int i = 4; i < 10; ++i) EXPECT_EQ(routes[static_cast<size_t>(i)].backend, JpegBackend::kHost);
}

}  // namespace
}  // namespace sluice
