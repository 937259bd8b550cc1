// Format detection, planning and dispatch to the per-format decoders.
#include "kernels/decode/image_decoder.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/decode/decoders.h"
#include "sluice/error.h"

namespace sluice::kernels {
using namespace decode_detail;

const char* ToString(ImageFormat f) {
  switch (f) {
    case ImageFormat::kJpeg: return "JPEG";
    case ImageFormat::kPng: return "PNG";
    case ImageFormat::kWebP: return "WebP";
    case ImageFormat::kBmp: return "BMP";
    case ImageFormat::kPnm: return "PNM";
    case ImageFormat::kTiff: return "TIFF";
    case ImageFormat::kJpeg2000: return "JPEG 2000";
    case ImageFormat::kGif: return "GIF";
    case ImageFormat::kUnknown: break;
  }
  return "unknown";
}

ImageFormat DetectFormat(std::span<const uint8_t> d) {
  const size_t n = d.size();
  auto starts = [&](const char* magic, size_t len, size_t at = 0) {
    return n >= at + len && std::memcmp(d.data() + at, magic, len) == 0;
  };
  if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return ImageFormat::kJpeg;
  if (starts("\x89PNG\r\n\x1a\n", 8)) return ImageFormat::kPng;
  if (starts("RIFF", 4) && starts("WEBP", 4, 8)) return ImageFormat::kWebP;
  if (starts("BM", 2) && n >= 18) return ImageFormat::kBmp;
  if (n >= 3 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6' &&
      (d[2] == ' ' || d[2] == '\n' || d[2] == '\r' || d[2] == '\t' || d[2] == '#'))
    return ImageFormat::kPnm;
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return ImageFormat::kTiff;
  if (starts("\0\0\0\x0cjP  \r\n\x87\n", 12) || starts("\xff\x4f\xff\x51", 4)) return ImageFormat::kJpeg2000;
  if (starts("GIF87a", 6) || starts("GIF89a", 6)) return ImageFormat::kGif;
  return ImageFormat::kUnknown;
}

ImageInfo PeekImage(std::span<const uint8_t> data) {
  if (data.empty()) throw Error("cannot decode an empty (0-byte) image");
  const ImageFormat f = DetectFormat(data);
  ImageInfo info;
  switch (f) {
    case ImageFormat::kJpeg: info = PeekJpeg(data); break;
    case ImageFormat::kPng: info = PeekPng(data); break;
    case ImageFormat::kWebP: info = PeekWebP(data); break;
    case ImageFormat::kBmp: info = PeekBmp(data); break;
    case ImageFormat::kPnm: info = PeekPnm(data); break;
    case ImageFormat::kUnknown: throw Error("unknown image format (unrecognised magic bytes)");
    default: throw Error(std::string("unsupported format ") + ToString(f));
  }
  if (info.width <= 0 || info.height <= 0)
    throw Error(std::string("invalid ") + ToString(f) + " image extents " + std::to_string(info.width) + "x" +
                std::to_string(info.height));
  return info;
}

DecodePlan PlanDecode(const ImageInfo& info, const DecodeParams& p) {
  const int64_t pixels = int64_t(info.width) * int64_t(info.height);
  if (pixels > p.max_pixels)
    throw Error("image too large: " + std::to_string(info.width) + "x" + std::to_string(info.height) + " = " +
                std::to_string(pixels) + " pixels exceeds max_pixels = " + std::to_string(p.max_pixels));
  DecodePlan plan;
  plan.orientation = p.adjust_orientation ? info.orientation : 1;
  const bool swap = plan.orientation >= 5;
  const int ow = swap ? info.height : info.width, oh = swap ? info.width : info.height;
  CropWindow roi{0, 0, ow, oh};
  if (p.roi) {
    roi = *p.roi;
    if (roi.w <= 0 || roi.h <= 0 || roi.x < 0 || roi.y < 0 || roi.x > ow - roi.w || roi.y > oh - roi.h)
      throw Error("crop window (x=" + std::to_string(roi.x) + ", y=" + std::to_string(roi.y) + ", w=" +
                  std::to_string(roi.w) + ", h=" + std::to_string(roi.h) + ") is outside the " +
                  std::to_string(ow) + "x" + std::to_string(oh) + " image");
  }
  if (p.roi && p.scaled_roi) throw Error("internal: roi and scaled_roi are exclusive");
  const CropWindow s = OrientedToStored(roi, info.width, info.height, plan.orientation);
  // 64-bit intermediates: extents up to 2^30 times the numerator would overflow int.
  auto scaled_ceil = [](int v, int n) { return int((int64_t(v) * n + 7) / 8); };
  // A ROI at scale n/8: the window's edges scaled and rounded to the nearest whole scaled pixel
  // (half up), so that the decoded pixels cover the ROI's region of the image to within half a
  // scaled pixel on each side (ScaledRoiEdges in image_decoder.h). Without a ROI, the whole scaled
  // image (libjpeg's extents: rounded up).
  auto scaled_window = [&](int n) {
    if (!p.roi) return CropWindow{0, 0, scaled_ceil(info.width, n), scaled_ceil(info.height, n)};
    const auto [x0, x1] = ScaledRoiEdges(s.x, s.w, info.width, n);
    const auto [y0, y1] = ScaledRoiEdges(s.y, s.h, info.height, n);
    return CropWindow{x0, y0, x1 - x0, y1 - y0};
  };
  int n = 8;
  if (info.format == ImageFormat::kJpeg && (p.target_width > 0 || p.target_height > 0)) {
    const int tw = swap ? p.target_height : p.target_width, th = swap ? p.target_width : p.target_height;
    // Only 1/8, 2/8 and 4/8: libjpeg-turbo has SIMD IDCTs for those; 5/8 to 7/8 decode slower than
    // the full image (500x375: 762-1060 us against 687 us) and 3/8 slower than 4/8
    // (bench_kernels_decode, BM_DecodeScale_TjDecompress2). The smallest whose window stays at or
    // above the target in both extents: 1/2 only for a window at least about twice the target.
    for (int cand : {1, 2, 4}) {
      const CropWindow c = scaled_window(cand);
      if (c.w >= tw && c.h >= th) {
        n = cand;
        break;
      }
    }
  }
  plan.scale_num = n;
  const int sw = scaled_ceil(info.width, n), sh = scaled_ceil(info.height, n);
  if (p.scaled_roi) {
    const CropWindow& r = *p.scaled_roi;
    const int sow = swap ? sh : sw, soh = swap ? sw : sh;
    if (r.w <= 0 || r.h <= 0 || r.x < 0 || r.y < 0 || r.x > sow - r.w || r.y > soh - r.h)
      throw Error("internal: scaled window (x=" + std::to_string(r.x) + ", y=" + std::to_string(r.y) + ", w=" +
                  std::to_string(r.w) + ", h=" + std::to_string(r.h) + ") is outside the " + std::to_string(sow) + "x" +
                  std::to_string(soh) + " scaled image");
    const CropWindow st = OrientedToStored(r, sw, sh, plan.orientation);
    plan.raw_x = st.x;
    plan.raw_y = st.y;
    plan.raw_w = st.w;
    plan.raw_h = st.h;
  } else {
    const CropWindow c = scaled_window(n);
    plan.raw_x = c.x;
    plan.raw_y = c.y;
    plan.raw_w = c.w;
    plan.raw_h = c.h;
  }
  plan.width = swap ? plan.raw_h : plan.raw_w;
  plan.height = swap ? plan.raw_w : plan.raw_h;
  plan.channels = Channels(OutputLayout(p.output_type, info.channels));
  return plan;
}

DecodePlan DecodeImage(std::span<const uint8_t> data, const DecodeParams& params, uint8_t* out, size_t out_size) {
  return DecodeImage(data, PeekImage(data), params, out, out_size);
}

DecodePlan DecodeImage(std::span<const uint8_t> data, const ImageInfo& info, const DecodeParams& params,
                       uint8_t* out, size_t out_size) {
  const DecodePlan plan = PlanDecode(info, params);
  if (out_size < plan.size_bytes())
    throw Error("decode output buffer too small: " + std::to_string(out_size) + " bytes, need " +
                std::to_string(plan.size_bytes()));
  if (info.format == ImageFormat::kJpeg) {
    DecodeJpeg(data, info, plan, params, out);
    return plan;
  }
  NativeImage img;
  switch (info.format) {
    case ImageFormat::kPng: img = DecodePng(data, info); break;
    case ImageFormat::kWebP: img = DecodeWebP(data, info); break;
    case ImageFormat::kBmp: img = DecodeBmp(data, info); break;
    case ImageFormat::kPnm: img = DecodePnm(data, info); break;
    default: throw Error(std::string("unsupported format ") + ToString(info.format));
  }
  // Non-JPEG formats decode whole; the ROI is a crop of the converted rows (orientation is 1).
  const Layout dst = OutputLayout(params.output_type, info.channels);
  const size_t sc = size_t(Channels(img.layout)), dc = size_t(Channels(dst));
  for (int y = 0; y < plan.raw_h; ++y) {
    const uint8_t* src = img.data + (size_t(plan.raw_y + y) * size_t(img.width) + size_t(plan.raw_x)) * sc;
    ConvertPixels(src, img.layout, out + size_t(y) * size_t(plan.raw_w) * dc, dst, size_t(plan.raw_w));
  }
  return plan;
}

}  // namespace sluice::kernels
