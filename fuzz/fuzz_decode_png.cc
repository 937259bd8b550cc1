// libFuzzer target: PNG inputs only (IHDR/tRNS pre-parser and libspng).
// Build: cmake -DCMAKE_CXX_COMPILER=clang++ -DSLUICE_BUILD_FUZZERS=ON ...; run with a corpus of
// tests/data/images/*.
#include "fuzz_decode_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  const std::span<const uint8_t> bytes(data, size);
  if (kernels::DetectFormat(bytes) != kernels::ImageFormat::kPng) return 0;
  fuzz::DecodeAllWays(bytes);
  return 0;
}
