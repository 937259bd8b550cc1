// libFuzzer target: every format: magic detection, BMP/PNM/WebP readers, dispatch.
// Build: cmake -DCMAKE_CXX_COMPILER=clang++ -DSLUICE_BUILD_FUZZERS=ON ...; run with a corpus of
// tests/data/images/*.
#include "fuzz_decode_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  const std::span<const uint8_t> bytes(data, size);
  fuzz::DecodeAllWays(bytes);
  return 0;
}
