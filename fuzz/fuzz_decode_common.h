// Shared body of the decode fuzz targets: peek, plan and decode with a small pixel limit, also
// exercising ROI, scaled decode, scaled ROI decode, EXIF orientation and every output colour. Only sluice::Error may
// escape the kernels; anything else (crash, sanitizer report, other exception) is a bug.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/decode/image_decoder.h"
#include "sluice/error.h"

namespace sluice::fuzz {

inline void DecodeAllWays(std::span<const uint8_t> bytes) {
  using namespace sluice::kernels;
  ImageInfo info;
  try {
    info = PeekImage(bytes);
  } catch (const sluice::Error&) {
    return;
  }
  // Parameters derived from the input so the fuzzer can steer them.
  const uint32_t h = uint32_t(bytes.size()) * 2654435761u;
  for (int variant = 0; variant < 4; ++variant) {
    DecodeParams p;
    p.max_pixels = int64_t{1} << 22;
    p.output_type = static_cast<OutputColor>((h >> (variant * 3)) % 5);
    p.adjust_orientation = (h >> 9) & 1;
    if (variant >= 1) {
      const bool swap = p.adjust_orientation && info.orientation >= 5;
      const int ow = swap ? info.height : info.width, oh = swap ? info.width : info.height;
      if (ow > 0 && oh > 0) {
        CropWindow w;
        w.x = int((h >> 3) % uint32_t(ow));
        w.y = int((h >> 11) % uint32_t(oh));
        w.w = 1 + int((h >> 7) % uint32_t(ow - w.x));
        w.h = 1 + int((h >> 13) % uint32_t(oh - w.y));
        p.roi = w;
      }
    }
    if (variant == 2) {
      p.target_width = int((h >> 17) % 64);
      p.target_height = int((h >> 23) % 64);
      p.use_fast_idct = true;
    }
    if (variant == 3 && p.roi) {
      // Scaled ROI decode as decoders.image_random_crop(scaled_decode=True) does it: a target of
      // 1/2, 1/4 or 1/8 of the (unaligned) window, so each DCT scale meets windows whose scaled
      // edges round to the nearest scaled pixel (ScaledRoiEdges) at the image's borders too.
      const int shift = 1 + int((h >> 27) % 3);
      p.target_width = std::max(1, p.roi->w >> shift);
      p.target_height = std::max(1, p.roi->h >> shift);
    }
    try {
      const DecodePlan plan = PlanDecode(info, p);
      std::vector<uint8_t> out(plan.size_bytes());
      DecodeImage(bytes, p, out.data(), out.size());
    } catch (const sluice::Error&) {
    }
  }
}

}  // namespace sluice::fuzz
