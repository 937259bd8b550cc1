// Image HDUs of a FITS file held in memory, read with CFITSIO (Debian's libcfitsio-dev): what
// experimental.readers.fits outputs per HDU.
//
// An HDU is numbered from 1 (the primary HDU) as CFITSIO and DALI number them. Its pixels come out
// in the image's equivalent type (BITPIX with BZERO/BSCALE applied: BITPIX 16 with BZERO 32768 is
// uint16, as astropy reads it), shape the axes reversed (NAXISn, ..., NAXIS1: C order, astropy's
// `data.shape`). Tile-compressed images (astropy's CompImageHDU, fpack) are decoded by Sluice's own
// code (readers/fits/fits_compressed.h: RICE_1, GZIP_1, GZIP_2, PLIO_1, HCOMPRESS_1), never by CFITSIO's, which
// crashes on malformed headers and tiles (fuzz_fits found three such faults); a compressed HDU whose
// header does not validate is an error, and so is every HDU after it (CFITSIO is not moved past it).
// Bytes are never read outside the buffer: a file must be a whole number of 2880-byte blocks (as
// the FITS standard requires; CFITSIO's memory driver reads whole blocks), else it is an error.
// Errors (not a FITS file, no such HDU, not an image HDU, a type Sluice has no tensors of,
// truncated data) throw sluice::Error naming `name` and the HDU.
//
// Thread-safety: one FitsMemFile per thread. CFITSIO's global tables need its reentrant build
// (Debian's is; checked once).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/tensor_shape.h>

namespace sluice {

class FitsCompressedImage;

class FitsMemFile {
 public:
  // The bytes must outlive this object.
  FitsMemFile(const void* data, size_t size, std::string name);
  ~FitsMemFile();
  FitsMemFile(const FitsMemFile&) = delete;
  FitsMemFile& operator=(const FitsMemFile&) = delete;

  // The image of HDU `hdu` (1-based): its shape and type, and (when `out` is given) its pixels
  // copied into `out` (resized to shape x size of type).
  struct Image {
    TensorShape shape;
    DType dtype = DType::kUInt8;
  };
  Image ReadImage(int hdu, std::vector<uint8_t>* out);

 private:
  std::string name_;
  void* buf_;
  size_t buf_size_;
  struct Compressed {
    int hdu;
    std::shared_ptr<FitsCompressedImage> image;  // null when its header did not validate
    std::string error;                           // why, then
  };
  std::vector<Compressed> compressed_;  // tile-compressed HDUs in order (CFITSIO never reads them)
  void* handle_ = nullptr;  // CFITSIO's fitsfile* (an anonymous struct: no forward declaration)
};

}  // namespace sluice
