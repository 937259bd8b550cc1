// PNG through libspng: always decoded to RGBA8 (palette, tRNS, 1..16-bit depths expanded or
// down-converted by libspng), then converted to the requested layout by the caller.
#include <cstring>
#include <memory>
#include <string>

#include <spng.h>

#include "kernels/decode/decoders.h"
#include "sluice/error.h"

namespace sluice::kernels::decode_detail {
namespace {

uint32_t BE32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

struct CtxFree {
  void operator()(spng_ctx* c) const { spng_ctx_free(c); }
};

[[noreturn]] void Fail(const char* what, int rc) {
  throw Error(std::string("corrupt PNG: ") + what + ": " + spng_strerror(rc));
}

}  // namespace

ImageInfo PeekPng(std::span<const uint8_t> d) {
  // Signature (8) + IHDR chunk (4 length, 4 type, 13 data, 4 crc).
  if (d.size() < 33 || std::memcmp(d.data() + 12, "IHDR", 4) != 0) throw Error("corrupt PNG: missing IHDR");
  ImageInfo info;
  info.format = ImageFormat::kPng;
  const uint32_t w = BE32(&d[16]), h = BE32(&d[20]);
  if (w == 0 || h == 0 || w > (1u << 30) || h > (1u << 30)) throw Error("corrupt PNG: invalid extents");
  info.width = int(w);
  info.height = int(h);
  const int color_type = d[25];
  // Walk chunks up to IDAT looking for tRNS: it turns gray/RGB/palette into "has alpha".
  bool trns = false;
  for (size_t pos = 8; pos + 8 <= d.size();) {
    const uint32_t len = BE32(&d[pos]);
    if (std::memcmp(&d[pos + 4], "tRNS", 4) == 0) trns = true;
    if (std::memcmp(&d[pos + 4], "IDAT", 4) == 0 || len > d.size() - pos - 8) break;
    pos += size_t(len) + 12;
  }
  switch (color_type) {
    case 0: info.channels = trns ? 2 : 1; break;
    case 2: case 3: info.channels = trns ? 4 : 3; break;
    case 4: info.channels = 2; break;
    case 6: info.channels = 4; break;
    default: throw Error("corrupt PNG: invalid color type " + std::to_string(color_type));
  }
  return info;
}

NativeImage DecodePng(std::span<const uint8_t> d, const ImageInfo& info) {
  std::unique_ptr<spng_ctx, CtxFree> ctx(spng_ctx_new(0));
  if (!ctx) throw Error("PNG: cannot create decoder context");
  spng_set_image_limits(ctx.get(), uint32_t(info.width), uint32_t(info.height));
  spng_set_chunk_limits(ctx.get(), uint32_t(1) << 26, uint32_t(1) << 28);
  int rc = spng_set_png_buffer(ctx.get(), d.data(), d.size());
  if (rc) Fail("set buffer", rc);
  size_t size = 0;
  rc = spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &size);
  if (rc) Fail("header", rc);
  if (size != size_t(info.width) * size_t(info.height) * 4) throw Error("corrupt PNG: inconsistent extents");
  uint8_t* buf = Scratch(0, size);
  rc = spng_decode_image(ctx.get(), buf, size, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
  if (rc) Fail("decode", rc);
  return {buf, info.width, info.height, Layout::kRGBA};
}

}  // namespace sluice::kernels::decode_detail
