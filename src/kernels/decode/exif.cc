// Minimal, bounds-checked EXIF reader: only IFD0's Orientation tag (0x0112) of a JPEG's APP1.
#include <cstring>

#include "kernels/decode/pixel_convert.h"

namespace sluice::kernels::decode_detail {
namespace {

int ParseTiffOrientation(const uint8_t* t, size_t n) {
  if (n < 8) return 1;
  bool le;
  if (t[0] == 'I' && t[1] == 'I') le = true;
  else if (t[0] == 'M' && t[1] == 'M') le = false;
  else return 1;
  auto u16 = [&](size_t off) -> uint32_t {
    return le ? uint32_t(t[off] | (t[off + 1] << 8)) : uint32_t((t[off] << 8) | t[off + 1]);
  };
  auto u32 = [&](size_t off) -> uint32_t {
    return le ? (uint32_t(t[off]) | uint32_t(t[off + 1]) << 8 | uint32_t(t[off + 2]) << 16 | uint32_t(t[off + 3]) << 24)
              : (uint32_t(t[off]) << 24 | uint32_t(t[off + 1]) << 16 | uint32_t(t[off + 2]) << 8 | uint32_t(t[off + 3]));
  };
  if (u16(2) != 42) return 1;
  size_t ifd = u32(4);
  if (ifd > n || n - ifd < 2) return 1;
  uint32_t count = u16(ifd);
  size_t entries = ifd + 2;
  for (uint32_t i = 0; i < count; ++i) {
    size_t e = entries + size_t(i) * 12;
    if (e > n || n - e < 12) return 1;
    if (u16(e) == 0x0112) {
      // Type SHORT (3), count 1: the value sits in the first 2 bytes of the value field.
      uint32_t type = u16(e + 2);
      uint32_t v = type == 3 ? u16(e + 8) : type == 4 ? u32(e + 8) : 1;
      return (v >= 1 && v <= 8) ? int(v) : 1;
    }
  }
  return 1;
}

}  // namespace

int ParseJpegExifOrientation(const uint8_t* d, size_t n) {
  if (n < 4 || d[0] != 0xFF || d[1] != 0xD8) return 1;
  size_t pos = 2;
  while (pos + 4 <= n) {
    if (d[pos] != 0xFF) return 1;
    uint8_t marker = d[pos + 1];
    if (marker == 0xFF) { ++pos; continue; }  // fill byte
    if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) { pos += 2; continue; }
    if (marker == 0xDA || marker == 0xD9) return 1;  // start of scan / end: no EXIF before the data
    size_t len = size_t(d[pos + 2]) << 8 | d[pos + 3];
    if (len < 2 || pos + 2 + len > n) return 1;
    const uint8_t* seg = d + pos + 4;
    size_t seg_len = len - 2;
    if (marker == 0xE1 && seg_len >= 6 && std::memcmp(seg, "Exif\0\0", 6) == 0)
      return ParseTiffOrientation(seg + 6, seg_len - 6);
    pos += 2 + len;
  }
  return 1;
}

}  // namespace sluice::kernels::decode_detail
