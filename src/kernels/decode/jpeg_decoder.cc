// JPEG decoding through the libjpeg API of libjpeg-turbo (not TurboJPEG), because only it offers
// jpeg_crop_scanline / jpeg_skip_scanlines for region-of-interest decoding.
//
// Error handling: libjpeg reports errors through error_exit, which must not return. We longjmp back
// into a C-style function (RunJpeg) whose frame holds only trivially destructible state, so no C++
// destructor is skipped; the C++ wrapper turns the saved message into sluice::Error. Warnings that
// mean the data is truncated or corrupt are promoted to errors (libjpeg would otherwise fill the
// rest of the image with grey and succeed).
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>

#include <jerror.h>
#include <jpeglib.h>

#include "kernels/decode/decoders.h"
#include "sluice/error.h"

namespace sluice::kernels::decode_detail {
namespace {

struct JpegErr {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char msg[JMSG_LENGTH_MAX];
};

[[noreturn]] void ErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->msg);
  longjmp(err->jump, 1);
}

void EmitMessage(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  int code = cinfo->err->msg_code;
  // Missing or damaged entropy-coded data: libjpeg would pad with grey and "succeed".
  if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC) ErrorExit(cinfo);
  // Recoverable oddities (extraneous bytes before a marker, unusual progression, ...) are
  // ignored as TurboJPEG does by default: real-world files carry them and decode fine.
  cinfo->err->num_warnings++;
}

void InitErr(jpeg_decompress_struct* cinfo, JpegErr* err) {
  std::memset(cinfo, 0, sizeof(*cinfo));
  cinfo->err = jpeg_std_error(&err->pub);
  err->pub.error_exit = ErrorExit;
  err->pub.emit_message = EmitMessage;
  err->msg[0] = 0;
}

struct Header {
  int width, height, components;
  J_COLOR_SPACE color_space;
  bool progressive;
};

// Returns false with err->msg set on failure.
bool ReadHeader(const uint8_t* data, size_t size, Header* h, JpegErr* err) {
  jpeg_decompress_struct cinfo;
  InitErr(&cinfo, err);
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  h->width = int(cinfo.image_width);
  h->height = int(cinfo.image_height);
  h->components = cinfo.num_components;
  h->color_space = cinfo.jpeg_color_space;
  h->progressive = cinfo.progressive_mode != 0;
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// Everything RunJpeg needs; plain data so that longjmp skips no destructor.
struct JpegJob {
  const uint8_t* data;
  size_t size;
  OutputColor output;
  int scale_num;
  bool fast_idct;
  int x0, y0, w, h;   // window in stored coordinates at the chosen scale
  uint8_t* dst;       // w*h*dst_channels
  Layout dst_layout;
  uint8_t* rows;      // kRowBatch rows of (scaled full width * 4) bytes
  size_t row_pitch;
};
constexpr int kRowBatch = 16;

bool RunJpeg(JpegJob* job, JpegErr* err) {
  jpeg_decompress_struct cinfo;
  InitErr(&cinfo, err);
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, job->data, static_cast<unsigned long>(job->size));
  jpeg_read_header(&cinfo, TRUE);

  // Pick what libjpeg produces (row_layout); anything libjpeg cannot do is converted per row.
  Layout row_layout;
  const J_COLOR_SPACE cs = cinfo.jpeg_color_space;
  if (cs == JCS_CMYK || cs == JCS_YCCK) {
    cinfo.out_color_space = JCS_CMYK;  // libjpeg converts YCCK -> CMYK
    row_layout = cinfo.saw_Adobe_marker ? Layout::kCMYKInverted : Layout::kCMYK;
  } else {
    switch (job->dst_layout) {
      case Layout::kBGR: cinfo.out_color_space = JCS_EXT_BGR; row_layout = Layout::kBGR; break;
      case Layout::kGray: cinfo.out_color_space = JCS_GRAYSCALE; row_layout = Layout::kGray; break;
      case Layout::kYCbCr:
        if (cs == JCS_YCbCr) { cinfo.out_color_space = JCS_YCbCr; row_layout = Layout::kYCbCr; }
        else if (cs == JCS_GRAYSCALE) { cinfo.out_color_space = JCS_GRAYSCALE; row_layout = Layout::kGray; }
        else { cinfo.out_color_space = JCS_EXT_RGB; row_layout = Layout::kRGB; }
        break;
      default: cinfo.out_color_space = JCS_EXT_RGB; row_layout = Layout::kRGB; break;
    }
  }
  cinfo.dct_method = job->fast_idct ? JDCT_IFAST : JDCT_ISLOW;
  cinfo.scale_num = unsigned(job->scale_num);
  cinfo.scale_denom = 8;
  jpeg_start_decompress(&cinfo);
  if (cinfo.output_width < JDIMENSION(job->x0 + job->w) || cinfo.output_height < JDIMENSION(job->y0 + job->h) ||
      size_t(cinfo.output_width) * size_t(cinfo.output_components) > job->row_pitch) {
    std::snprintf(err->msg, sizeof(err->msg), "internal: unexpected scaled size %ux%u",
                  cinfo.output_width, cinfo.output_height);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }

  // Horizontal crop. The decoded columns are widened by kCropMargin on both sides before
  // jpeg_crop_scanline aligns the start down to an iMCU boundary: fancy (triangle) chroma
  // upsampling treats the crop edges as image edges, so without real neighbours the outermost
  // requested columns would differ from a full decode by a few levels. With the margin the
  // window is bit-exact (tested against full decodes).
  constexpr int kCropMargin = 2;
  const int xa = std::max(0, job->x0 - kCropMargin);
  const int xb = std::min(int(cinfo.output_width), job->x0 + job->w + kCropMargin);
  JDIMENSION xoff = JDIMENSION(xa), cw = JDIMENSION(xb - xa);
  if (xoff != 0 || cw != cinfo.output_width) jpeg_crop_scanline(&cinfo, &xoff, &cw);  // aligns to iMCU
  const int trim = job->x0 - int(xoff);
  // Rows above the window: jpeg_skip_scanlines still entropy-decodes them (Huffman data cannot be
  // skipped) but neither transforms nor upsamples them, and it rebuilds the context rows that fancy
  // upsampling needs, so the rows after it equal a full decode's (no vertical margin is needed;
  // tests/pipeline/roi_decode_test.cc checks windows against full decodes at every DCT scale).
  // Rows below the window are never read: the loop stops at job->h and aborts the decompression.
  if (job->y0 > 0) jpeg_skip_scanlines(&cinfo, JDIMENSION(job->y0));

  const int rc = cinfo.output_components;
  const size_t dst_pitch = size_t(job->w) * size_t(Channels(job->dst_layout));
  const bool direct = trim == 0 && int(cw) == job->w && row_layout == job->dst_layout;  // full-width rows
  JSAMPROW rows[kRowBatch];
  for (int y = 0; y < job->h;) {
    const int n = std::min(kRowBatch, job->h - y);
    for (int i = 0; i < n; ++i)
      rows[i] = direct ? job->dst + size_t(y + i) * dst_pitch : job->rows + size_t(i) * job->row_pitch;
    const int got = int(jpeg_read_scanlines(&cinfo, rows, JDIMENSION(n)));
    if (got <= 0) {
      std::snprintf(err->msg, sizeof(err->msg), "no scanlines returned");
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
    if (!direct)
      for (int i = 0; i < got; ++i)
        ConvertPixels(rows[i] + size_t(trim) * size_t(rc), row_layout, job->dst + size_t(y + i) * dst_pitch,
                      job->dst_layout, size_t(job->w));
    y += got;
  }
  if (cinfo.output_scanline < cinfo.output_height) jpeg_abort_decompress(&cinfo);  // rest not needed
  else jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

[[noreturn]] void ThrowJpeg(const JpegErr& err) {
  throw Error(std::string("truncated or corrupt JPEG: ") + err.msg);
}

}  // namespace

ImageInfo PeekJpeg(std::span<const uint8_t> data) {
  JpegErr err;
  Header h;
  if (!ReadHeader(data.data(), data.size(), &h, &err)) ThrowJpeg(err);
  ImageInfo info;
  info.format = ImageFormat::kJpeg;
  info.width = h.width;
  info.height = h.height;
  info.cmyk = h.color_space == JCS_CMYK || h.color_space == JCS_YCCK;
  info.channels = h.components == 1 ? 1 : 3;
  info.progressive = h.progressive;
  info.orientation = ParseJpegExifOrientation(data.data(), data.size());
  return info;
}

void DecodeJpeg(std::span<const uint8_t> data, const ImageInfo& info, const DecodePlan& plan,
                const DecodeParams& params, uint8_t* out) {
  const Layout dst_layout = OutputLayout(params.output_type, info.channels);
  const int dc = Channels(dst_layout);
  const size_t scaled_w = (size_t(info.width) * size_t(plan.scale_num) + 7) / 8;
  JpegJob job{};
  job.data = data.data();
  job.size = data.size();
  job.output = params.output_type;
  job.scale_num = plan.scale_num;
  job.fast_idct = params.use_fast_idct;
  job.x0 = plan.raw_x;
  job.y0 = plan.raw_y;
  job.w = plan.raw_w;
  job.h = plan.raw_h;
  job.dst_layout = dst_layout;
  job.row_pitch = scaled_w * 4;
  job.rows = Scratch(1, job.row_pitch * kRowBatch);
  const bool orient = plan.orientation != 1;
  job.dst = orient ? Scratch(0, size_t(plan.raw_w) * size_t(plan.raw_h) * size_t(dc)) : out;
  JpegErr err;
  if (!RunJpeg(&job, &err)) ThrowJpeg(err);
  if (orient) ApplyOrientation(job.dst, plan.raw_h, plan.raw_w, dc, plan.orientation, out);
}

}  // namespace sluice::kernels::decode_detail
