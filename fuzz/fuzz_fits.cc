// libFuzzer target: FITS files in memory through CFITSIO (readers/fits/fits_image.h), as
// experimental.readers.fits reads them: open, then the image of HDUs 1 to 4 (header only, then the
// pixels). Must never crash; malformed input may only throw sluice::Error, and the pixels read must
// fill exactly shape x type size.
// Seed corpus: fuzz/fits_seeds/ (small files astropy wrote: several image types, a table,
// tile-compressed images of every codec Sluice decodes (RICE_1 int and dithered float, GZIP_1 with
// an image HDU after it, GZIP_2 in small tiles, PLIO_1, HCOMPRESS_1 int and quantized float, a 3-D
// uint16 cube), duplicate_ztile1.fits, which crashed CFITSIO when moved past before duplicate
// keywords were refused, and keyword_mismatch_ztile2.fits ("ZTILE2 \xa0= 0": no ZTILE2 to the
// header walk, a zero tile size to CFITSIO's division before keywords were checked)).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <sluice/error.h>

#include "readers/fits/fits_image.h"

// CFITSIO sizes some buffers from header values (tile sizes of compressed images) and checks that
// the allocation succeeded; a huge request is its memory error, not a crash, as in production.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    sluice::FitsMemFile file(data, size, "fuzz.fits");
    std::vector<uint8_t> pixels;
    for (int hdu = 1; hdu <= 4; ++hdu) {
      try {
        const auto header = file.ReadImage(hdu, nullptr);
        if (header.shape.num_elements() > (int64_t{1} << 24)) continue;  // keep each run small
        const auto img = file.ReadImage(hdu, &pixels);
        const int64_t n = img.shape.ndim() == 1 && img.shape[0] == 0 ? 0 : img.shape.num_elements();
        if (pixels.size() != static_cast<size_t>(n) * sluice::SizeOf(img.dtype)) __builtin_trap();
      } catch (const sluice::Error&) {
      }
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
