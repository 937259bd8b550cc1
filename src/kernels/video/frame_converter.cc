// FrameConverter (kernels/video/video_decode.h): decoded frames to packed uint8 pixels, DALI's way
// (kernels/video/yuv_to_rgb.h, else libswscale with DALI's flags) or PyAV's (libswscale, PyAV's call).
#include <cstring>
#include <string>

#include <sluice/error.h>

#include "kernels/video/ffmpeg_library.h"
#include "kernels/video/video_decode.h"

namespace sluice::kernels {

FrameConverter::~FrameConverter() {
  if (sws_) Ffmpeg().sws_freeContext(sws_);
  if (scratch_) Ffmpeg().av_free(scratch_);
}

void FrameConverter::Convert(const AVFrame* f, int w, int h, int64_t frame_number, VideoColor color, uint8_t* out) {
  if (f->width != w || f->height != h)
    throw Error("frame " + std::to_string(frame_number) + " is " + std::to_string(f->width) + "x" +
                std::to_string(f->height) + ", the stream's frames are " + std::to_string(w) + "x" + std::to_string(h) +
                " (a size change within a stream is not supported)");
  if (conversion_ == VideoConversion::kPyav || color == VideoColor::kGray) {
    ConvertSws(f, w, h, color, SWS_BILINEAR, out);
    return;
  }
  YuvLayout layout;
  if (YuvLayout::For(f->format, &layout) && !(color == VideoColor::kYCbCr && layout.full_range)) {
    YuvFrame yuv;
    for (int p = 0; p < 3; ++p) {
      yuv.plane[p] = f->data[p];
      yuv.stride[p] = f->linesize[p];
    }
    yuv.width = w;
    yuv.height = h;
    dali_.Convert(yuv, layout, color == VideoColor::kYCbCr, out);
    return;
  }
  ConvertSws(f, w, h, color, SWS_BILINEAR | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND, out);
}

void FrameConverter::ConvertSws(const AVFrame* f, int w, int h, VideoColor color, int flags, uint8_t* out) {
  const FfmpegLibrary& ff = Ffmpeg();
  const AVPixelFormat dst_fmt =
      color == VideoColor::kRGB ? AV_PIX_FMT_RGB24 : color == VideoColor::kGray ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_YUV444P;
  sws_ = ff.sws_getCachedContext(sws_, w, h, static_cast<AVPixelFormat>(f->format), w, h, dst_fmt, flags, nullptr,
                                 nullptr, nullptr);
  if (!sws_)
    throw Error(std::string("cannot convert frames of pixel format ") +
                (ff.av_get_pix_fmt_name(static_cast<AVPixelFormat>(f->format)) ?: "?") + " (libswscale)");
  // PyAV's destination: av_image_alloc(..., align 16): rows of FFALIGN(c * FFALIGN(w, 8), 16) bytes
  // (packed RGB), or planes of FFALIGN(FFALIGN(w, 8), 16) bytes.
  const int pw = FFALIGN(w, 8);
  const bool packed = color == VideoColor::kRGB;
  const int planes = color == VideoColor::kYCbCr ? 3 : 1;
  const int line = packed ? FFALIGN(3 * pw, 16) : FFALIGN(pw, 16);
  const size_t need = static_cast<size_t>(line) * static_cast<size_t>(h) * static_cast<size_t>(planes) + 64;
  if (need > scratch_bytes_) {
    if (scratch_) ff.av_free(scratch_);
    scratch_ = static_cast<uint8_t*>(ff.av_malloc(need));
    scratch_bytes_ = scratch_ ? need : 0;
    if (!scratch_) throw Error("out of memory (frame conversion buffer)");
  }
  uint8_t* data[4] = {scratch_, nullptr, nullptr, nullptr};
  int lines[4] = {line, 0, 0, 0};
  for (int p = 1; p < planes; ++p) {
    data[p] = scratch_ + static_cast<size_t>(line) * static_cast<size_t>(h) * static_cast<size_t>(p);
    lines[p] = line;
  }
  ff.sws_scale(sws_, f->data, f->linesize, 0, h, data, lines);
  const size_t row = static_cast<size_t>(w) * static_cast<size_t>(VideoChannels(color));
  if (color != VideoColor::kYCbCr) {
    for (int y = 0; y < h; ++y) std::memcpy(out + row * static_cast<size_t>(y), data[0] + static_cast<size_t>(line) * y, row);
    return;
  }
  for (int y = 0; y < h; ++y) {
    const uint8_t* py = data[0] + static_cast<size_t>(line) * y;
    const uint8_t* pu = data[1] + static_cast<size_t>(line) * y;
    const uint8_t* pv = data[2] + static_cast<size_t>(line) * y;
    uint8_t* o = out + row * static_cast<size_t>(y);
    for (int x = 0; x < w; ++x) {
      o[3 * x] = py[x];
      o[3 * x + 1] = pu[x];
      o[3 * x + 2] = pv[x];
    }
  }
}

}  // namespace sluice::kernels
