// The frame header (SOF) of a JPEG stream, read by walking its markers: the coding process, sample
// precision, extents and each component's sampling factors. What a decoder choice needs (nvJPEG's
// hardware engine takes only some frames, see operators/decode/nvjpeg_route.h) without starting
// libjpeg. Pure and bounds-checked: any input is safe; a stream without a readable frame header
// gives nullopt.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sluice::kernels {

// Chroma subsampling of a 3-component frame (luma's sampling factors over chroma's), or kGray for
// one component. kOther: anything else (4 components, chroma sampled above luma, odd ratios).
enum class ChromaSubsampling : uint8_t { k444, k422, k420, k440, k411, k410, kGray, kOther };
const char* ToString(ChromaSubsampling s);

struct JpegFrame {
  uint8_t sof = 0;        // the SOF marker's second byte: 0xC0 baseline, 0xC1 extended, 0xC2 progressive, ...
  int precision = 0;      // bits per sample
  int width = 0, height = 0;
  struct Component {
    int id = 0, h = 1, v = 1;  // sampling factors, 1..4
  };
  std::vector<Component> components;

  bool huffman_sequential() const { return sof == 0xC0 || sof == 0xC1; }
  bool progressive() const { return sof == 0xC2; }
  ChromaSubsampling subsampling() const;
};

// Walks the markers from SOI to the first SOF. nullopt: not a JPEG, truncated before the frame
// header, or a malformed segment.
std::optional<JpegFrame> ParseJpegFrame(std::span<const uint8_t> data);

}  // namespace sluice::kernels
