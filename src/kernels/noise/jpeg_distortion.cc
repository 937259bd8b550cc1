// libjpeg reports errors through error_exit, which must not return: we longjmp back into C-style
// functions whose frames hold only trivially destructible state (as kernels/decode/jpeg_decoder.cc).
#include "kernels/noise/jpeg_distortion.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <jpeglib.h>

#include "sluice/error.h"

namespace sluice::kernels {
namespace {

struct ErrMgr {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char msg[JMSG_LENGTH_MAX];
};

[[noreturn]] void ErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrMgr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->msg);
  longjmp(err->jump, 1);
}

void Silent(j_common_ptr, int) {}

// Returns false with err->msg set. *buf is malloc'ed by libjpeg (free it even on failure).
bool Encode(const uint8_t* in, int h, int w, int c, int quality, unsigned char** buf, unsigned long* size,
            ErrMgr* err) {
  jpeg_compress_struct cinfo;
  std::memset(&cinfo, 0, sizeof(cinfo));
  cinfo.err = jpeg_std_error(&err->pub);
  err->pub.error_exit = ErrorExit;
  err->pub.emit_message = Silent;
  if (setjmp(err->jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, buf, size);
  cinfo.image_width = static_cast<JDIMENSION>(w);
  cinfo.image_height = static_cast<JDIMENSION>(h);
  cinfo.input_components = c;
  cinfo.in_color_space = c == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(in + static_cast<size_t>(cinfo.next_scanline) * w * c);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

bool Decode(const unsigned char* buf, unsigned long size, int h, int w, int c, uint8_t* out, ErrMgr* err) {
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof(cinfo));
  cinfo.err = jpeg_std_error(&err->pub);
  err->pub.error_exit = ErrorExit;
  err->pub.emit_message = Silent;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, buf, size);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = c == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_start_decompress(&cinfo);
  if (static_cast<int>(cinfo.output_width) != w || static_cast<int>(cinfo.output_height) != h ||
      cinfo.output_components != c) {
    std::snprintf(err->msg, sizeof(err->msg), "decoded size differs from the encoded image");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out + static_cast<size_t>(cinfo.output_scanline) * w * c;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

}  // namespace

void JpegDistort(const uint8_t* in, int height, int width, int channels, int quality, uint8_t* out) {
  if (channels != 1 && channels != 3)
    throw Error("JPEG distortion needs 1 or 3 channels, got " + std::to_string(channels));
  if (height <= 0 || width <= 0) return;  // nothing to distort
  if (height > JPEG_MAX_DIMENSION || width > JPEG_MAX_DIMENSION)
    throw Error("image too large for JPEG (" + std::to_string(height) + "x" + std::to_string(width) + ")");
  quality = std::clamp(quality, 1, 100);
  ErrMgr err{};
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  const bool ok = Encode(in, height, width, channels, quality, &buf, &size, &err) &&
                  Decode(buf, size, height, width, channels, out, &err);
  std::free(buf);
  if (!ok) throw Error(std::string("JPEG round trip failed: ") + err.msg);
}

}  // namespace sluice::kernels
