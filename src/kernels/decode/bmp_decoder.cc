// BMP reader (own code, bounds-checked): uncompressed 24/32-bit and 8-bit paletted, bottom-up or
// top-down. 32-bit BI_RGB's fourth byte is "reserved" and ignored (as Windows and Pillow do), so
// those decode as 3 channels. RLE, 1/4/16-bit and other bitfield layouts are rejected with an Error.
#include <algorithm>
#include <string>

#include "kernels/decode/decoders.h"
#include "sluice/error.h"

namespace sluice::kernels::decode_detail {
namespace {

uint32_t LE32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint16_t LE16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

struct BmpHeader {
  int width, height;
  bool top_down;
  int bpp;
  size_t data_offset, stride;
  const uint8_t* palette;  // BGRX entries
  int palette_entries;
  int palette_entry_size;
  bool gray_palette;
};

BmpHeader ParseBmp(std::span<const uint8_t> d) {
  if (d.size() < 26) throw Error("corrupt BMP: truncated header");
  BmpHeader h{};
  h.data_offset = LE32(&d[10]);
  const uint32_t hsize = LE32(&d[14]);
  uint32_t compression = 0, colors_used = 0;
  int64_t w, hh;
  if (hsize == 12) {  // BITMAPCOREHEADER
    w = LE16(&d[18]);
    hh = LE16(&d[20]);
    h.bpp = LE16(&d[24]);
    h.palette_entry_size = 3;
  } else if (hsize >= 40 && d.size() >= 14 + size_t(hsize) && d.size() >= 54) {
    w = int32_t(LE32(&d[18]));
    hh = int32_t(LE32(&d[22]));
    h.bpp = LE16(&d[28]);
    compression = LE32(&d[30]);
    colors_used = LE32(&d[46]);
    h.palette_entry_size = 4;
  } else {
    throw Error("corrupt BMP: unsupported header size " + std::to_string(hsize));
  }
  h.top_down = hh < 0;
  if (hh < 0) hh = -hh;
  if (w <= 0 || hh <= 0 || w > (1 << 30) || hh > (1 << 30)) throw Error("corrupt BMP: invalid extents");
  h.width = int(w);
  h.height = int(hh);
  if (h.bpp != 8 && h.bpp != 24 && h.bpp != 32)
    throw Error("unsupported BMP: " + std::to_string(h.bpp) + "-bit pixels");
  bool ok = compression == 0;
  if (compression == 3 && h.bpp == 32) {  // BI_BITFIELDS: accept only the standard BGRX masks
    const size_t m = hsize >= 52 ? 54 : 14 + hsize;
    ok = d.size() >= m + 12 && LE32(&d[m]) == 0xFF0000u && LE32(&d[m + 4]) == 0xFF00u && LE32(&d[m + 8]) == 0xFFu;
  }
  if (!ok) throw Error("unsupported BMP: compression " + std::to_string(compression));
  h.stride = ((size_t(h.width) * size_t(h.bpp) + 31) / 32) * 4;
  if (h.data_offset > d.size() || (d.size() - h.data_offset) / h.stride < size_t(h.height))
    throw Error("truncated BMP: pixel data shorter than " + std::to_string(h.height) + " rows");
  if (h.bpp == 8) {
    h.palette_entries = colors_used ? int(std::min<uint32_t>(colors_used, 256)) : 256;
    const size_t pal = 14 + hsize;
    if (pal > h.data_offset || (h.data_offset - pal) / size_t(h.palette_entry_size) < size_t(h.palette_entries)) {
      // Some writers declare 256 entries but store fewer; accept what fits before the pixels.
      h.palette_entries = pal > h.data_offset ? 0 : int((h.data_offset - pal) / size_t(h.palette_entry_size));
      if (h.palette_entries == 0) throw Error("corrupt BMP: missing palette");
    }
    h.palette = d.data() + pal;
    h.gray_palette = true;
    for (int i = 0; i < h.palette_entries; ++i) {
      const uint8_t* e = h.palette + size_t(i) * size_t(h.palette_entry_size);
      if (e[0] != e[1] || e[1] != e[2]) h.gray_palette = false;
    }
  }
  return h;
}

}  // namespace

ImageInfo PeekBmp(std::span<const uint8_t> d) {
  const BmpHeader h = ParseBmp(d);
  ImageInfo info;
  info.format = ImageFormat::kBmp;
  info.width = h.width;
  info.height = h.height;
  info.channels = (h.bpp == 8 && h.gray_palette) ? 1 : 3;
  return info;
}

NativeImage DecodeBmp(std::span<const uint8_t> d, const ImageInfo& info) {
  const BmpHeader h = ParseBmp(d);
  const bool gray = info.channels == 1;
  const size_t oc = gray ? 1 : 3, row_bytes = size_t(h.width) * oc;
  uint8_t* buf = Scratch(0, row_bytes * size_t(h.height));
  for (int y = 0; y < h.height; ++y) {
    const uint8_t* src = d.data() + h.data_offset + size_t(h.top_down ? y : h.height - 1 - y) * h.stride;
    uint8_t* dst = buf + size_t(y) * row_bytes;
    if (h.bpp == 8) {
      for (int x = 0; x < h.width; ++x) {
        const int idx = src[x] < h.palette_entries ? src[x] : 0;  // out-of-range index: entry 0
        const uint8_t* e = h.palette + size_t(idx) * size_t(h.palette_entry_size);
        if (gray) {
          dst[x] = e[0];
        } else {
          dst[3 * x] = e[2]; dst[3 * x + 1] = e[1]; dst[3 * x + 2] = e[0];
        }
      }
    } else {
      const int sc = h.bpp / 8;
      for (int x = 0; x < h.width; ++x, src += sc, dst += 3) {
        dst[0] = src[2]; dst[1] = src[1]; dst[2] = src[0];
      }
    }
  }
  return {buf, h.width, h.height, gray ? Layout::kGray : Layout::kRGB};
}

}  // namespace sluice::kernels::decode_detail
