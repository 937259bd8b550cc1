// PNM reader (own code, bounds-checked): P5/P6 binary (8- and 16-bit) and P2/P3 ASCII.
// Samples are rescaled to 0..255 when maxval != 255. PBM bitmaps (P1/P4) are rejected.
#include <algorithm>
#include <string>

#include "kernels/decode/decoders.h"
#include "sluice/error.h"

namespace sluice::kernels::decode_detail {
namespace {

struct PnmHeader {
  char kind;  // '2', '3', '5', '6'
  int width, height, maxval, channels;
  size_t data_offset;
};

// Reads a decimal number after skipping whitespace and '#' comments. Throws on malformed input.
int64_t ReadNumber(std::span<const uint8_t> d, size_t& pos) {
  while (pos < d.size()) {
    const uint8_t c = d[pos];
    if (c == '#') {
      while (pos < d.size() && d[pos] != '\n' && d[pos] != '\r') ++pos;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      ++pos;
    } else {
      break;
    }
  }
  if (pos >= d.size() || d[pos] < '0' || d[pos] > '9') throw Error("corrupt PNM: expected a number");
  int64_t v = 0;
  while (pos < d.size() && d[pos] >= '0' && d[pos] <= '9') {
    v = v * 10 + (d[pos++] - '0');
    if (v > (int64_t(1) << 31)) throw Error("corrupt PNM: number too large");
  }
  return v;
}

PnmHeader ParsePnm(std::span<const uint8_t> d) {
  PnmHeader h{};
  h.kind = char(d[1]);
  if (h.kind == '1' || h.kind == '4') throw Error("unsupported format PNM bitmap (P1/P4)");
  size_t pos = 2;
  const int64_t w = ReadNumber(d, pos), hh = ReadNumber(d, pos), maxval = ReadNumber(d, pos);
  if (w <= 0 || hh <= 0 || w > (1 << 30) || hh > (1 << 30)) throw Error("corrupt PNM: invalid extents");
  if (maxval <= 0 || maxval > 65535) throw Error("corrupt PNM: invalid maxval " + std::to_string(maxval));
  if (pos >= d.size()) throw Error("truncated PNM: no pixel data");
  h.width = int(w);
  h.height = int(hh);
  h.maxval = int(maxval);
  h.channels = (h.kind == '3' || h.kind == '6') ? 3 : 1;
  h.data_offset = pos + 1;  // exactly one whitespace byte after maxval
  return h;
}

}  // namespace

ImageInfo PeekPnm(std::span<const uint8_t> d) {
  const PnmHeader h = ParsePnm(d);
  ImageInfo info;
  info.format = ImageFormat::kPnm;
  info.width = h.width;
  info.height = h.height;
  info.channels = h.channels;
  return info;
}

NativeImage DecodePnm(std::span<const uint8_t> d, const ImageInfo& info) {
  const PnmHeader h = ParsePnm(d);
  const size_t n = size_t(h.width) * size_t(h.height) * size_t(h.channels);
  // Every sample takes at least one byte of input: reject impossible sizes before allocating.
  if (h.data_offset > d.size() + 1 || d.size() + 1 - h.data_offset < n) throw Error("truncated PNM: pixel data too short");
  uint8_t* buf = Scratch(0, n);
  const uint32_t maxval = uint32_t(h.maxval);
  auto scale = [maxval](uint32_t v) -> uint8_t {
    if (v > maxval) throw Error("corrupt PNM: sample exceeds maxval");
    return maxval == 255 ? uint8_t(v) : uint8_t((v * 255 + maxval / 2) / maxval);
  };
  if (h.kind == '5' || h.kind == '6') {
    const size_t bps = maxval < 256 ? 1 : 2;
    if (h.data_offset > d.size() || (d.size() - h.data_offset) / bps < n) throw Error("truncated PNM: pixel data too short");
    const uint8_t* p = d.data() + h.data_offset;
    if (bps == 1 && maxval == 255) std::copy(p, p + n, buf);
    else if (bps == 1) for (size_t i = 0; i < n; ++i) buf[i] = scale(p[i]);
    else for (size_t i = 0; i < n; ++i) buf[i] = scale(uint32_t(p[2 * i]) << 8 | p[2 * i + 1]);
  } else {
    size_t pos = h.data_offset - 1;
    for (size_t i = 0; i < n; ++i) {
      if (pos >= d.size()) throw Error("truncated PNM: fewer ASCII samples than width*height*channels");
      buf[i] = scale(uint32_t(ReadNumber(d, pos)));
    }
  }
  return {buf, h.width, h.height, h.channels == 1 ? Layout::kGray : Layout::kRGB};
}

}  // namespace sluice::kernels::decode_detail
