// WebP through libwebp's simple decoding API (RGB or RGBA, decoded straight into scratch).
#include <string>

#include <webp/decode.h>

#include "kernels/decode/decoders.h"
#include "sluice/error.h"

namespace sluice::kernels::decode_detail {

ImageInfo PeekWebP(std::span<const uint8_t> d) {
  WebPBitstreamFeatures f;
  const VP8StatusCode st = WebPGetFeatures(d.data(), d.size(), &f);
  if (st != VP8_STATUS_OK) throw Error("corrupt WebP: cannot parse header (status " + std::to_string(int(st)) + ")");
  ImageInfo info;
  info.format = ImageFormat::kWebP;
  info.width = f.width;
  info.height = f.height;
  info.channels = f.has_alpha ? 4 : 3;
  return info;
}

NativeImage DecodeWebP(std::span<const uint8_t> d, const ImageInfo& info) {
  const int c = info.channels;
  const size_t stride = size_t(info.width) * size_t(c), size = stride * size_t(info.height);
  uint8_t* buf = Scratch(0, size);
  const uint8_t* r = c == 4 ? WebPDecodeRGBAInto(d.data(), d.size(), buf, size, int(stride))
                            : WebPDecodeRGBInto(d.data(), d.size(), buf, size, int(stride));
  if (!r) throw Error("truncated or corrupt WebP");
  return {buf, info.width, info.height, c == 4 ? Layout::kRGBA : Layout::kRGB};
}

}  // namespace sluice::kernels::decode_detail
