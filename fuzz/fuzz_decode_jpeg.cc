// libFuzzer target: JPEG inputs only (libjpeg-turbo paths: ROI, skip, scaled, CMYK, EXIF parser),
// and the frame-header parser the mixed decoder routes with (kernels/decode/jpeg_frame.h).
// Build: cmake -DCMAKE_CXX_COMPILER=clang++ -DSLUICE_BUILD_FUZZERS=ON ...; run with a corpus of
// tests/data/images/*.
#include "fuzz_decode_common.h"
#include "kernels/decode/jpeg_frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  const std::span<const uint8_t> bytes(data, size);
  if (auto frame = kernels::ParseJpegFrame(bytes)) (void)frame->subsampling();
  if (kernels::DetectFormat(bytes) != kernels::ImageFormat::kJpeg) return 0;
  fuzz::DecodeAllWays(bytes);
  return 0;
}
