#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <utility>

#include "kernels/decode/image_decoder.h"
#include "kernels/decode/pixel_convert.h"
#include "kernels_test_util.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {
using namespace testing;

const char* kJpegs[] = {"s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "gray.jpg", "photo_500x375.jpg"};

TEST(JpegDecode, PeekReportsHeader) {
  auto info = PeekImage(ReadImage("s420.jpg"));
  EXPECT_EQ(info.format, ImageFormat::kJpeg);
  EXPECT_EQ(info.width, 157);
  EXPECT_EQ(info.height, 113);
  EXPECT_EQ(info.channels, 3);
  EXPECT_FALSE(info.progressive);
  EXPECT_TRUE(PeekImage(ReadImage("progressive.jpg")).progressive);
  EXPECT_EQ(PeekImage(ReadImage("gray.jpg")).channels, 1);
  auto cmyk = PeekImage(ReadImage("cmyk.jpg"));
  EXPECT_TRUE(cmyk.cmyk);
  EXPECT_EQ(cmyk.channels, 3);
}

TEST(JpegDecode, BitExactVsTurboJpeg) {
  struct Case { OutputColor out; int pf; };
  for (const char* name : kJpegs) {
    auto bytes = ReadImage(name);
    for (Case c : {Case{OutputColor::kRGB, TJPF_RGB}, Case{OutputColor::kBGR, TJPF_BGR}, Case{OutputColor::kGray, TJPF_GRAY}}) {
      DecodeParams p;
      p.output_type = c.out;
      Image ours = Decode(bytes, p);
      Image ref = TjDecode(bytes, c.pf);
      ASSERT_EQ(ours.h, ref.h) << name;
      ASSERT_EQ(ours.w, ref.w) << name;
      ASSERT_EQ(ours.c, ref.c) << name;
      EXPECT_EQ(ours.data, ref.data) << name << " output " << int(c.out);
    }
  }
}

TEST(JpegDecode, AnyDataKeepsNativeChannels) {
  DecodeParams p;
  p.output_type = OutputColor::kAnyData;
  EXPECT_EQ(Decode(ReadImage("gray.jpg"), p).c, 1);
  EXPECT_EQ(Decode(ReadImage("gray.jpg"), p).data, TjDecode(ReadImage("gray.jpg"), TJPF_GRAY).data);
  EXPECT_EQ(Decode(ReadImage("s420.jpg"), p).c, 3);
}

TEST(JpegDecode, YCbCrNativeMatchesTurboJpegPlanes) {
  // 4:4:4: the YUV planes are the un-upsampled components, so they equal the YCbCr output.
  auto bytes = ReadImage("s444.jpg");
  DecodeParams p;
  p.output_type = OutputColor::kYCbCr;
  Image ours = Decode(bytes, p);
  tjhandle h = tjInitDecompress();
  std::vector<uint8_t> yuv(size_t(ours.w) * ours.h * 3);
  ASSERT_EQ(tjDecompressToYUV2(h, bytes.data(), bytes.size(), yuv.data(), ours.w, 1, ours.h, 0), 0);
  tjDestroy(h);
  const size_t plane = size_t(ours.w) * ours.h;
  for (size_t i = 0; i < plane; ++i)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(ours.data[i * 3 + c], yuv[c * plane + i]) << i;
  // Gray JPEG as YCbCr: Y = gray, chroma = 128.
  Image g = Decode(ReadImage("gray.jpg"), p);
  Image gref = TjDecode(ReadImage("gray.jpg"), TJPF_GRAY);
  for (size_t i = 0; i < gref.data.size(); ++i) {
    ASSERT_EQ(g.data[i * 3], gref.data[i]);
    ASSERT_EQ(g.data[i * 3 + 1], 128);
    ASSERT_EQ(g.data[i * 3 + 2], 128);
  }
}

TEST(JpegDecode, CmykMatchesTurboJpegCmykPlusConversion) {
  auto bytes = ReadImage("cmyk.jpg");
  Image ours = Decode(bytes);
  Image cmyk = TjDecode(bytes, TJPF_CMYK);
  ASSERT_EQ(ours.c, 3);
  // Pillow writes Adobe-inverted CMYK: stored values are 255 - ink, so R = C*K/255.
  std::vector<uint8_t> ref(size_t(ours.h) * ours.w * 3);
  for (size_t i = 0; i < size_t(ours.h) * ours.w; ++i)
    for (int c = 0; c < 3; ++c)
      ref[i * 3 + c] = uint8_t(std::lround(cmyk.data[i * 4 + c] * cmyk.data[i * 4 + 3] / 255.0));
  EXPECT_LE(MaxAbsDiff(ours.data, ref), 0);
  // And it looks like the original picture.
  Image orig = Decode(ReadImage("small.png"));
  EXPECT_LT(MeanAbsDiff(ours.data, orig.data), 6.0);
}

// ROI decode vs the same window of the full decode. libjpeg-turbo decodes the iMCU-aligned columns
// containing the window and skips rows with jpeg_skip_scanlines; fancy upsampling uses the same
// neighbouring samples, so we expect (and require) bit-exact windows.
TEST(JpegDecode, RoiEqualsCropOfFullDecode) {
  const CropWindow windows[] = {{0, 0, 157, 113}, {16, 16, 64, 48}, {3, 5, 100, 70}, {37, 41, 1, 1},
                                {120, 90, 37, 23}, {0, 57, 157, 1}, {155, 0, 2, 113}};
  for (const char* name : {"s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "gray.jpg", "cmyk.jpg"}) {
    auto bytes = ReadImage(name);
    for (OutputColor out : {OutputColor::kRGB, OutputColor::kGray, OutputColor::kYCbCr}) {
      DecodeParams p;
      p.output_type = out;
      Image full = Decode(bytes, p);
      for (const CropWindow& w : windows) {
        p.roi = w;
        Image roi = Decode(bytes, p);
        ASSERT_EQ(roi.w, w.w);
        ASSERT_EQ(roi.h, w.h);
        Image ref = Crop(full, w.x, w.y, w.w, w.h);
        EXPECT_EQ(MaxAbsDiff(roi.data, ref.data), 0) << name << " roi " << w.x << "," << w.y << " " << w.w << "x" << w.h;
      }
      p.roi.reset();
    }
  }
}

TEST(JpegDecode, ScaledDecodeMatchesTurboJpegScaling) {
  for (const char* name : {"photo_500x375.jpg", "s420.jpg", "progressive.jpg", "gray.jpg"}) {
    auto bytes = ReadImage(name);
    auto info = PeekImage(bytes);
    for (int num : {1, 2, 4, 8}) {
      DecodeParams p;
      p.target_width = (info.width * num + 7) / 8;
      p.target_height = (info.height * num + 7) / 8;
      auto plan = PlanDecode(info, p);
      EXPECT_EQ(plan.scale_num, num) << name;
      Image ours = Decode(bytes, p);
      Image ref = TjDecode(bytes, TJPF_RGB, num);
      ASSERT_EQ(ours.w, ref.w);
      ASSERT_EQ(ours.h, ref.h);
      EXPECT_EQ(ours.data, ref.data) << name << " scale " << num << "/8";
    }
  }
}

TEST(JpegDecode, ScaledRoiIsWindowOfScaledDecode) {
  auto bytes = ReadImage("photo_500x375.jpg");
  DecodeParams p;
  p.roi = CropWindow{100, 60, 300, 240};
  p.target_width = 70;
  p.target_height = 60;  // 300/4 = 75 >= 70, 240/4 = 60 >= 60 -> 1/4
  auto plan = PlanDecode(PeekImage(bytes), p);
  EXPECT_EQ(plan.scale_num, 2);
  Image roi = Decode(bytes, p);
  Image full = TjDecode(bytes, TJPF_RGB, 2);
  EXPECT_EQ(roi.w, 75);
  EXPECT_EQ(roi.h, 60);
  EXPECT_EQ(MaxAbsDiff(roi.data, Crop(full, 25, 15, 75, 60).data), 0);
}

TEST(JpegDecode, ScaledRoiEdgesRoundToNearestScaledPixel) {
  // Full scale: the ROI itself.
  EXPECT_EQ(ScaledRoiEdges(13, 101, 500, 8), std::make_pair(13, 114));
  // 1/2: [13, 114) -> [6.5, 57) -> [7, 57) (halves up).
  EXPECT_EQ(ScaledRoiEdges(13, 101, 500, 4), std::make_pair(7, 57));
  // 1/8: [13, 114) -> [1.625, 14.25) -> [2, 14).
  EXPECT_EQ(ScaledRoiEdges(13, 101, 500, 1), std::make_pair(2, 14));
  // The last edge stays inside the scaled axis (ceil(499 / 8) = 63), a window keeps one pixel.
  EXPECT_EQ(ScaledRoiEdges(490, 9, 499, 1), std::make_pair(61, 62));
  EXPECT_EQ(ScaledRoiEdges(498, 1, 499, 1), std::make_pair(62, 63));
  EXPECT_EQ(ScaledRoiEdges(0, 2, 16, 1), std::make_pair(0, 1));
  // Every edge within half a scaled pixel of the exact one, on every window of a small axis.
  for (int n : {1, 2, 4})
    for (int full = 1; full <= 40; ++full)
      for (int x = 0; x < full; ++x)
        for (int w = 1; x + w <= full; ++w) {
          const auto [a, b] = ScaledRoiEdges(x, w, full, n);
          ASSERT_LT(a, b);
          ASSERT_LE(b, (full * n + 7) / 8);
          if (w * n >= 16) {  // at least two scaled pixels: no clamping to one
            EXPECT_LE(std::abs(2 * (8 * a - x * n)), 8) << n << " " << full << " " << x << " " << w;
            EXPECT_LE(std::abs(2 * (8 * b - (x + w) * n)), 8) << n << " " << full << " " << x << " " << w;
          }
        }
}

TEST(JpegDecode, ScaledRoiIsNearestWindowOfScaledDecode) {
  // An unaligned window: the decoded pixels are those of the whole image decoded at the chosen
  // scale, at the window's edges rounded to the nearest scaled pixel (not rounded outward).
  auto bytes = ReadImage("photo_500x375.jpg");
  const auto info = PeekImage(bytes);
  DecodeParams p;
  p.roi = CropWindow{13, 7, 301, 243};  // x, y, w, h
  for (int target : {0, 120, 60, 30}) {
    p.target_width = p.target_height = target;
    const int n = PlanDecode(info, p).scale_num;
    const auto [x0, x1] = ScaledRoiEdges(13, 301, 500, n);
    const auto [y0, y1] = ScaledRoiEdges(7, 243, 375, n);
    EXPECT_GE(x1 - x0, target);
    EXPECT_GE(y1 - y0, target);
    if (target == 0) EXPECT_EQ(n, 8);
    if (target == 120) EXPECT_EQ(n, 4);  // 1/2: 150 x 121
    if (target == 30) EXPECT_EQ(n, 1);   // 1/8: 37 x 30
    Image roi = Decode(bytes, p);
    Image full = TjDecode(bytes, TJPF_RGB, n);
    ASSERT_EQ(roi.w, x1 - x0);
    ASSERT_EQ(roi.h, y1 - y0);
    EXPECT_EQ(MaxAbsDiff(roi.data, Crop(full, x0, y0, x1 - x0, y1 - y0).data), 0) << "scale " << n << "/8";
  }
}

TEST(JpegDecode, ScaledRoiSameErrorsAsExact) {
  // Truncated and corrupt data through the scaled ROI path fail as through the exact one.
  auto good = ReadImage("photo_500x375.jpg");
  std::vector<uint8_t> trunc(good.begin(), good.begin() + good.size() / 2);
  for (int target : {0, 60}) {
    DecodeParams p;
    p.roi = CropWindow{13, 200, 301, 170};  // rows in the missing half
    p.target_width = p.target_height = target;
    try {
      Decode(trunc, p);
      FAIL() << "no error for a truncated JPEG, target " << target;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("truncated or corrupt JPEG"), std::string::npos) << e.what();
    }
  }
}

TEST(JpegDecode, ErrorsAreSluiceErrors) {
  auto good = ReadImage("photo_500x375.jpg");
  // Truncated: header intact, entropy-coded data cut.
  std::vector<uint8_t> trunc(good.begin(), good.begin() + good.size() / 2);
  try {
    Decode(trunc);
    FAIL() << "no error for truncated JPEG";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated or corrupt JPEG"), std::string::npos) << e.what();
  }
  std::vector<uint8_t> header_only(good.begin(), good.begin() + 300);
  EXPECT_THROW(Decode(header_only), Error);
  auto prog = ReadImage("progressive.jpg");
  EXPECT_THROW(Decode(std::vector<uint8_t>(prog.begin(), prog.begin() + prog.size() * 2 / 3)), Error);
  EXPECT_THROW(Decode(std::vector<uint8_t>{}), Error);
  EXPECT_THROW(Decode(std::vector<uint8_t>{0xFF, 0xD8, 0xFF}), Error);
  std::vector<uint8_t> garbage = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x03, 0x12, 0x34, 0x56, 0x78};
  EXPECT_THROW(Decode(garbage), Error);
  std::string text = "this is not an image at all";
  EXPECT_THROW(Decode(std::vector<uint8_t>(text.begin(), text.end())), Error);
  DecodeParams small;
  small.max_pixels = 1000;
  try {
    Decode(good, small);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("max_pixels"), std::string::npos);
  }
  DecodeParams bad_roi;
  bad_roi.roi = CropWindow{400, 0, 200, 10};
  EXPECT_THROW(Decode(good, bad_roi), Error);
  std::vector<uint8_t> tiny_out(10);
  EXPECT_THROW(DecodeImage(good, {}, tiny_out.data(), tiny_out.size()), Error);
  // Corrupt bytes in the middle of the scan must never crash (may or may not be detected).
  for (size_t at = 700; at < good.size(); at += 997) {
    auto bad = good;
    for (size_t k = 0; k < 64 && at + k < bad.size(); ++k) bad[at + k] = uint8_t(0xA5 ^ k);
    try { Decode(bad); } catch (const Error&) {}
  }
}

TEST(JpegDecode, ExifOrientation) {
  Image expected = Decode(ReadImage("orient_expected.png"));
  ASSERT_EQ(expected.w, 48);
  ASSERT_EQ(expected.h, 32);
  for (int k = 1; k <= 8; ++k) {
    auto bytes = ReadImage("orient_" + std::to_string(k) + ".jpg");
    auto info = PeekImage(bytes);
    EXPECT_EQ(info.orientation, k);
    Image oriented = Decode(bytes);
    ASSERT_EQ(oriented.w, 48) << k;
    ASSERT_EQ(oriented.h, 32) << k;
    EXPECT_LT(MeanAbsDiff(oriented.data, expected.data), 4.0) << "orientation " << k;
    DecodeParams raw;
    raw.adjust_orientation = false;
    Image stored = Decode(bytes, raw);
    EXPECT_EQ(stored.w, k >= 5 ? 32 : 48);
    std::vector<uint8_t> manual(oriented.data.size());
    decode_detail::ApplyOrientation(stored.data.data(), stored.h, stored.w, 3, k, manual.data());
    EXPECT_EQ(manual, oriented.data);
    // ROI in oriented coordinates == crop of the oriented image.
    DecodeParams rp;
    rp.roi = CropWindow{5, 3, 30, 20};
    Image roi = Decode(bytes, rp);
    ASSERT_EQ(roi.w, 30);
    ASSERT_EQ(roi.h, 20);
    EXPECT_EQ(MaxAbsDiff(roi.data, Crop(oriented, 5, 3, 30, 20).data), 0) << k;
  }
}

TEST(JpegDecode, ConcurrentDecodesAreIndependent) {
  // Per-call decoder state + per-thread scratch: threads decoding different images, windows and
  // orientations at the same time get the same bytes as a sequential decode.
  const char* names[] = {"s420.jpg", "progressive.jpg", "orient_6.jpg", "cmyk.jpg", "rgba.png", "rgb24.bmp"};
  std::vector<std::vector<uint8_t>> files;
  std::vector<Image> expected;
  for (const char* n : names) {
    files.push_back(ReadImage(n));
    DecodeParams p;
    p.roi = CropWindow{1, 2, 20, 15};
    expected.push_back(Decode(files.back(), p));
  }
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int it = 0; it < 50; ++it) {
        const size_t i = size_t(t + it) % files.size();
        DecodeParams p;
        p.roi = CropWindow{1, 2, 20, 15};
        const ImageInfo info = PeekImage(files[i]);
        std::vector<uint8_t> out(PlanDecode(info, p).size_bytes());
        DecodeImage(files[i], info, p, out.data(), out.size());
        if (out != expected[i].data) ++mismatches[size_t(t)];
      }
    });
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
  ReleaseDecodeScratch();  // buffers are re-created on demand
  DecodeParams p;
  p.roi = CropWindow{1, 2, 20, 15};
  EXPECT_EQ(Decode(files[2], p).data, expected[2].data);
}

}  // namespace
}  // namespace sluice::kernels
