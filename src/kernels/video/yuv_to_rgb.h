// Planar 8-bit YCbCr frames to packed RGB24 or packed YCbCr 4:4:4, exactly as DALI 2.4's CPU video
// decoder converts them (dali/operators/video/frames_decoder_cpu.cc: sws_getContext at the frame's
// own size with SWS_BILINEAR | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND, default colorspace details,
// run by the libswscale 10 that DALI bundles). Written from that algorithm, so that Sluice's output
// is bit-identical to DALI's whatever FFmpeg version Sluice itself loads (libswscale 6's result for
// the same call differs from libswscale 10's):
//   - luma is kept at full resolution (15-bit intermediates, y << 7);
//   - chroma is upsampled to full resolution by separable bilinear filters, sample centres aligned
//     (libswscale's default chroma position for sws_getContext: centred, MPEG-1/JPEG siting), the
//     filter taps computed as libswscale's initFilter computes them (14-bit horizontal, 12-bit
//     vertical, the step (chroma size << 16) / size rounded: for odd sizes the taps drift along the
//     row, not a fixed 1/4 : 3/4);
//   - RGB: BT.601 (libswscale's SWS_CS_DEFAULT), limited range for yuv* formats and full range for
//     the yuvj* ones (the stream's color_range and colorspace tags are not read, as DALI does not
//     read them), the fixed-point products of yuv2rgb_write_full -- including its 32-bit wrap-around,
//     which makes a few saturated pixels (Y and Cb near 255 at limited range) black in blue, as in DALI;
//   - YCbCr: limited-range yuv444p (DALI's YCbCr output), chroma rounded from the 15-bit filter sums.
// Formats: planar 8-bit YUV with chroma subsampled by 1, 2 or 4 in either direction (yuv420p,
// yuv422p, yuv444p, yuv440p, yuv411p, yuv410p and their yuvj variants). Others -- high bit depth,
// semi-planar, RGB-coded -- are not handled here (YuvLayout::For gives false); the caller converts
// them with libswscale and DALI's flags. YCbCr output of a full-range (yuvj) source needs
// libswscale's range conversion and is likewise left to it.
//
// Thread-safety: pure functions of their arguments; DaliYuvConverter caches its filter tables and is
// used by one thread at a time.
#pragma once
#include <cstdint>
#include <vector>

namespace sluice::kernels {

// One planar YCbCr frame: plane pointers and strides in bytes (libavutil's AVFrame data/linesize).
struct YuvFrame {
  const uint8_t* plane[3] = {nullptr, nullptr, nullptr};
  int stride[3] = {0, 0, 0};
  int width = 0, height = 0;
};

// The layout of a pixel format this converter takes.
struct YuvLayout {
  int log2_chroma_w = 0, log2_chroma_h = 0;  // 0, 1 or 2
  bool full_range = false;                   // yuvj*: JPEG range
  // The layout of FFmpeg pixel format `av_pix_fmt` (an AVPixelFormat value); false when it is not
  // one this converter takes.
  static bool For(int av_pix_fmt, YuvLayout* layout);
};

class DaliYuvConverter {
 public:
  // Converts `f` to height x width x 3 bytes at `out`, rows packed: RGB, or (ycbcr) Y, Cb, Cr.
  // ycbcr requires !layout.full_range.
  // The rows of the common two-tap vertical filter run in Highway vectors (yuv_to_rgb_hwy.h).
  void Convert(const YuvFrame& f, const YuvLayout& layout, bool ycbcr, uint8_t* out);
  // The same conversion in scalar code only: the reference the vector rows are tested against.
  void ConvertReference(const YuvFrame& f, const YuvLayout& layout, bool ycbcr, uint8_t* out);

 private:
  // One direction's chroma filter (libswscale's initFilter for SWS_BILINEAR): output position i
  // reads taps [pos[i], pos[i] + size) of the chroma line with coefficients coeff[i * size + j],
  // summing to `one`.
  struct Filter {
    int size = 0;
    std::vector<int> pos;
    std::vector<int> count;  // taps of position i inside the source (the others are zero)
    std::vector<int> coeff;
    // The same filter as two taps per position, when no position has more than two adjacent
    // non-zero taps (bilinear upsampling's case): out = src[p0] * c0 + src[p1] * c1.
    bool two_tap = false;
    std::vector<int> p0, p1, c0, c1;
    bool sorted = false;  // p0 and p1 non-decreasing, p0[i] <= p1[i] (the vector rows' shortcut)
  };
  static Filter Bilinear(int chroma_len, int len, int log2_sub, int one);
  void Prepare(const YuvFrame& f, const YuvLayout& layout);
  void Run(const YuvFrame& f, const YuvLayout& layout, bool ycbcr, uint8_t* out, bool vector);

  int width_ = -1, height_ = -1;
  YuvLayout layout_{-1, -1, false};  // the filters' layout (full_range not used)
  Filter horizontal_, vertical_;
  std::vector<int16_t> cb_, cr_;  // the chroma lines at full width, 15-bit (chroma height x width)
  std::vector<int32_t> wide_;     // one source chroma line widened, for the vector gathers
};

}  // namespace sluice::kernels
