#include "operators/decode/nvjpeg_route.h"

#include <cmath>

namespace sluice {

const char* ToString(JpegBackend b) {
  switch (b) {
    case JpegBackend::kHardware: return "hardware";
    case JpegBackend::kGpuHybrid: return "gpu_hybrid";
    case JpegBackend::kHybrid: return "hybrid";
    case JpegBackend::kHost: return "host";
  }
  return "host";
}

namespace {

JpegRoute Host(const char* why) { return {JpegBackend::kHost, why, false}; }

JpegBackend HybridFor(const kernels::JpegFrame& f, int64_t threshold) {
  const int64_t pixels = int64_t{f.width} * f.height;
  return f.huffman_sequential() && pixels > threshold ? JpegBackend::kGpuHybrid : JpegBackend::kHybrid;
}

}  // namespace

JpegRoute RouteJpeg(std::span<const uint8_t> bytes, const kernels::ImageInfo& info, const kernels::DecodePlan& plan,
                    const NvjpegRouteOptions& o) {
  if (info.format != kernels::ImageFormat::kJpeg) return Host("not a JPEG");
  if (info.cmyk) return Host("CMYK/YCCK JPEG");
  if (o.output_type == kernels::OutputColor::kYCbCr) return Host("output_type YCbCr");
  if (plan.orientation != 1) return Host("EXIF orientation to apply");
  if (plan.scale_num != 8) return Host("reduced-scale decode");
  const auto frame = kernels::ParseJpegFrame(bytes);
  if (!frame) return Host("no readable frame header");
  if (frame->precision != 8) return Host("sample precision other than 8 bits");
  if (!frame->huffman_sequential() && !frame->progressive()) return Host("lossless, arithmetic or hierarchical coding");
  const kernels::ChromaSubsampling css = frame->subsampling();
  if (css == kernels::ChromaSubsampling::kOther) return Host("component layout nvJPEG does not take");
  const bool hw_css = css != kernels::ChromaSubsampling::k411 && css != kernels::ChromaSubsampling::k410;
  const bool eligible = frame->huffman_sequential() && hw_css;
  if (eligible && o.hardware_available) return {JpegBackend::kHardware, "baseline frame for the JPEG engines", true};
  const JpegBackend b = HybridFor(*frame, o.hybrid_huffman_threshold);
  const char* why = b == JpegBackend::kGpuHybrid ? "sequential frame above hybrid_huffman_threshold"
                    : frame->progressive()       ? "progressive frame"
                                                 : "frame at or below hybrid_huffman_threshold";
  return {b, why, eligible};
}

void SplitHardwareLoad(std::vector<JpegRoute>& routes, double hw_decoder_load, const std::vector<int64_t>& pixels,
                       int64_t hybrid_huffman_threshold) {
  const auto quota = static_cast<int64_t>(std::lround(hw_decoder_load * static_cast<double>(routes.size())));
  int64_t taken = 0;
  for (size_t i = 0; i < routes.size(); ++i) {
    JpegRoute& r = routes[i];
    if (r.backend != JpegBackend::kHardware) continue;
    if (taken < quota) {
      ++taken;
      continue;
    }
    // Over the quota: the hardware-eligible frame is sequential Huffman, so GPU Huffman may take it.
    const bool big = i < pixels.size() && pixels[i] > hybrid_huffman_threshold;
    r.backend = big ? JpegBackend::kGpuHybrid : JpegBackend::kHybrid;
    r.reason = "over hw_decoder_load's share of the batch";
  }
}

}  // namespace sluice
