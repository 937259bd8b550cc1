// libFuzzer target: S3's ListObjectsV2 answer (XML from whatever answers on the endpoint) and its
// entity decoding. Must never crash; malformed input may only throw sluice::Error. A parsed page
// must hold non-negative sizes and, when truncated, a continuation token.
// Seed corpus: fuzz/s3_seeds/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <sluice/error.h>

#include "readers/storage/s3_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const sluice::S3ListPage page = sluice::ParseListObjectsV2(text, "s3://fuzz");
    for (const auto& o : page.objects)
      if (o.size < 0) __builtin_trap();
    if (page.truncated && page.next_token.empty()) __builtin_trap();
  } catch (const sluice::Error&) {
  }
  try {
    (void)sluice::XmlUnescape(text);
  } catch (const sluice::Error&) {
  }
  return 0;
}
