#include "kernels/decode/jpeg_frame.h"

namespace sluice::kernels {

const char* ToString(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::k444: return "4:4:4";
    case ChromaSubsampling::k422: return "4:2:2";
    case ChromaSubsampling::k420: return "4:2:0";
    case ChromaSubsampling::k440: return "4:4:0";
    case ChromaSubsampling::k411: return "4:1:1";
    case ChromaSubsampling::k410: return "4:1:0";
    case ChromaSubsampling::kGray: return "gray";
    case ChromaSubsampling::kOther: return "other";
  }
  return "other";
}

ChromaSubsampling JpegFrame::subsampling() const {
  if (components.size() == 1) return ChromaSubsampling::kGray;
  if (components.size() != 3) return ChromaSubsampling::kOther;
  const Component& y = components[0];
  const Component& cb = components[1];
  const Component& cr = components[2];
  // Both chroma planes must be sampled alike and divide luma's factors exactly.
  if (cb.h != cr.h || cb.v != cr.v || y.h % cb.h != 0 || y.v % cb.v != 0) return ChromaSubsampling::kOther;
  const int rh = y.h / cb.h, rv = y.v / cb.v;
  if (rh == 1 && rv == 1) return ChromaSubsampling::k444;
  if (rh == 2 && rv == 1) return ChromaSubsampling::k422;
  if (rh == 2 && rv == 2) return ChromaSubsampling::k420;
  if (rh == 1 && rv == 2) return ChromaSubsampling::k440;
  if (rh == 4 && rv == 1) return ChromaSubsampling::k411;
  if (rh == 4 && rv == 2) return ChromaSubsampling::k410;
  return ChromaSubsampling::kOther;
}

std::optional<JpegFrame> ParseJpegFrame(std::span<const uint8_t> data) {
  const uint8_t* d = data.data();
  const size_t n = data.size();
  if (n < 4 || d[0] != 0xFF || d[1] != 0xD8) return std::nullopt;
  size_t pos = 2;
  while (pos + 4 <= n) {
    if (d[pos] != 0xFF) return std::nullopt;
    const uint8_t marker = d[pos + 1];
    if (marker == 0xFF) {  // fill byte
      ++pos;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {  // segments without a length
      pos += 2;
      continue;
    }
    if (marker == 0xDA || marker == 0xD9) return std::nullopt;  // scan or end before any frame header
    const size_t len = size_t{d[pos + 2]} << 8 | d[pos + 3];
    if (len < 2 || len > n - pos - 2) return std::nullopt;
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      const uint8_t* s = d + pos + 4;
      const size_t sl = len - 2;
      if (sl < 6) return std::nullopt;
      JpegFrame f;
      f.sof = marker;
      f.precision = s[0];
      f.height = s[1] << 8 | s[2];
      f.width = s[3] << 8 | s[4];
      const int nc = s[5];
      if (nc < 1 || sl < 6 + size_t(nc) * 3) return std::nullopt;
      for (int c = 0; c < nc; ++c) {
        const uint8_t* cs = s + 6 + c * 3;
        JpegFrame::Component comp{cs[0], cs[1] >> 4, cs[1] & 15};
        if (comp.h < 1 || comp.h > 4 || comp.v < 1 || comp.v > 4) return std::nullopt;
        f.components.push_back(comp);
      }
      return f;
    }
    pos += 2 + len;
  }
  return std::nullopt;
}

}  // namespace sluice::kernels
