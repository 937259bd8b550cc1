// Image decoding kernels: format detection, header peek, and decode into a caller-owned buffer.
//
// Two-phase use (the operator computes shapes for the whole batch before running):
//   ImageInfo info = PeekImage(bytes);               // cheap: parses headers only
//   DecodePlan plan = PlanDecode(info, params);      // output HWC shape + bytes, no decoding
//   std::vector<uint8_t> out(plan.size_bytes());
//   DecodeImage(bytes, params, out.data(), out.size());
//
// Thread-safety: every function is reentrant. No decoder handle outlives a call (libjpeg, libspng
// and libwebp state is created per call). DecodeImage keeps per-thread scratch buffers
// (thread_local, they only grow) for rows and un-oriented intermediates, so steady-state decoding
// does not allocate except inside libjpeg/libspng/libwebp themselves.
// Errors: every failure (unsupported format, corrupt or truncated data, too many pixels, buffer too
// small) throws sluice::Error; nothing calls exit() or aborts.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "kernels/crop/crop_window.h"

namespace sluice::kernels {

enum class ImageFormat : uint8_t { kUnknown, kJpeg, kPng, kWebP, kBmp, kPnm, kTiff, kJpeg2000, kGif };
const char* ToString(ImageFormat f);

// Identifies the container from its magic bytes only (does not validate the rest).
ImageFormat DetectFormat(std::span<const uint8_t> data);

// Colour/channel layout of the decoded output (DALI's output_type).
enum class OutputColor : uint8_t {
  kRGB,     // 3 channels
  kBGR,     // 3 channels
  kGray,    // 1 channel, BT.601 luma (JPEG: the Y component)
  kYCbCr,   // 3 channels, JPEG's native YCbCr or BT.601 full-range (JFIF) conversion
  kAnyData  // native channels: gray 1, gray+alpha 2, colour 3, colour+alpha 4 (CMYK JPEG -> RGB, 3)
};

struct ImageInfo {
  int width = 0;        // stored (un-oriented) extents
  int height = 0;
  int channels = 0;     // native channel count (what OutputColor::kAnyData produces)
  ImageFormat format = ImageFormat::kUnknown;
  int orientation = 1;  // EXIF orientation 1..8 (JPEG APP1 only; 1 for other formats)
  bool cmyk = false;    // JPEG stored as CMYK or YCCK
  bool progressive = false;
};

// Parses headers; throws sluice::Error for unknown/unsupported formats ("unsupported format TIFF")
// and for headers that are truncated or invalid.
ImageInfo PeekImage(std::span<const uint8_t> data);

// DecodeParams::roi is a CropWindow in pixel coordinates of the *oriented* (as displayed),
// full-resolution image.

struct DecodeParams {
  OutputColor output_type = OutputColor::kRGB;
  bool adjust_orientation = true;  // apply EXIF orientation (output extents swap for 5..8)
  std::optional<CropWindow> roi;   // must lie inside the oriented image; JPEG decodes only it
  // A window of the image at the scale chosen for the *whole* image (target_width/height below), in
  // oriented coordinates; excludes roi. The pixels are those of that scaled full decode, cropped:
  // what ROI decode (pipeline/roi_decode.h) needs so that scaled decode keeps its choice.
  std::optional<CropWindow> scaled_roi;
  // Scaled decode (JPEG only, others ignore it): the smallest scale in {1/8, 1/4, 1/2, 1} whose
  // output (of the ROI, or the whole image) is >= target in both extents. 0 = full resolution.
  // A ROI's window at that scale is ScaledRoiEdges' in each axis.
  int target_width = 0, target_height = 0;  // in oriented coordinates
  bool use_fast_idct = false;               // JDCT_IFAST instead of libjpeg's default JDCT_ISLOW
  int64_t max_pixels = int64_t{1} << 28;    // limit on stored width*height, checked before decoding
};

// One axis of a ROI decoded at scale n/8 (n in 1..8): the ROI [start, start + extent) of a stored
// axis of `full` pixels maps to the scaled pixels [first, last), each edge scaled and rounded to
// the nearest whole scaled pixel (halves up), kept inside the scaled axis (ceil(full * n / 8)
// pixels) and at least one pixel wide. The decoded pixels then cover the ROI's part of the image to
// within half a scaled pixel (4 / n source pixels) on each side; n = 8 gives the ROI itself. (The
// decoder reads whole iMCUs around it and keeps this sub-window: jpeg_decoder.cc.)
inline std::pair<int, int> ScaledRoiEdges(int start, int extent, int full, int n) {
  const int64_t scaled_full = (int64_t(full) * n + 7) / 8;
  auto nearest = [n](int64_t v) { return (2 * v * n + 8) / 16; };  // floor(v * n / 8 + 1/2), v >= 0
  int64_t first = std::min(nearest(start), scaled_full - 1);
  int64_t last = std::min(nearest(int64_t(start) + extent), scaled_full);
  if (last <= first) last = first + 1;
  return {int(first), int(last)};
}

// What DecodeImage will produce for given bytes' info and params.
struct DecodePlan {
  int height = 0, width = 0, channels = 0;  // output, HWC uint8
  int scale_num = 8;                        // scale = scale_num / 8 (JPEG scaled decode)
  // The decoded window in stored (un-oriented) coordinates at the chosen scale.
  int raw_x = 0, raw_y = 0, raw_w = 0, raw_h = 0;
  int orientation = 1;                      // orientation that will be applied (1 = none)
  size_t size_bytes() const { return size_t(height) * size_t(width) * size_t(channels); }
};

// Validates params against info (ROI inside the image, max_pixels) and computes the output shape.
DecodePlan PlanDecode(const ImageInfo& info, const DecodeParams& params);

// Decodes into `out` (HWC uint8, rows packed: pitch = width*channels). `out_size` must be at least
// PlanDecode(PeekImage(data), params).size_bytes(); returns that plan.
DecodePlan DecodeImage(std::span<const uint8_t> data, const DecodeParams& params, uint8_t* out,
                       size_t out_size);

// Same, reusing the ImageInfo the caller already got from PeekImage(data) during setup (saves
// re-parsing the headers). `info` must come from these very bytes.
DecodePlan DecodeImage(std::span<const uint8_t> data, const ImageInfo& info, const DecodeParams& params,
                       uint8_t* out, size_t out_size);

// Frees this thread's decode scratch buffers (they otherwise keep the size of the largest image
// decoded on the thread until it exits). Cheap to call between epochs or after an outlier image.
void ReleaseDecodeScratch();

}  // namespace sluice::kernels
