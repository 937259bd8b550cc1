#include "readers/fits_image.h"

#include <fitsio.h>

#include <mutex>

#include <sluice/error.h>

namespace sluice {

namespace {

std::string Status(int status) {
  char text[FLEN_STATUS] = {0};
  fits_get_errstatus(status, text);
  return std::string(text) + " (CFITSIO status " + std::to_string(status) + ")";
}

// The CFITSIO datatype and Sluice's dtype of an equivalent BITPIX; false if Sluice has none.
bool TypesOf(int equiv, int* datatype, DType* dtype) {
  switch (equiv) {
    case BYTE_IMG: *datatype = TBYTE; *dtype = DType::kUInt8; return true;
    case SBYTE_IMG: *datatype = TSBYTE; *dtype = DType::kInt8; return true;
    case SHORT_IMG: *datatype = TSHORT; *dtype = DType::kInt16; return true;
    case USHORT_IMG: *datatype = TUSHORT; *dtype = DType::kUInt16; return true;
    case LONG_IMG: *datatype = TINT; *dtype = DType::kInt32; return true;  // TLONG is C's long (64-bit here)
    case LONGLONG_IMG: *datatype = TLONGLONG; *dtype = DType::kInt64; return true;
    case FLOAT_IMG: *datatype = TFLOAT; *dtype = DType::kFloat32; return true;
    case DOUBLE_IMG: *datatype = TDOUBLE; *dtype = DType::kFloat64; return true;
    default: return false;  // ULONG_IMG, ULONGLONG_IMG: Sluice has no uint32/uint64 tensors
  }
}

}  // namespace

FitsMemFile::FitsMemFile(const void* data, size_t size, std::string name)
    : name_(std::move(name)), buf_(const_cast<void*>(data)), buf_size_(size) {
  static std::once_flag checked;
  std::call_once(checked, [] {
    if (!fits_is_reentrant())
      throw Error("the CFITSIO library was built without --enable-reentrant; FITS files cannot be read from the "
                  "reader's thread");
  });
  int status = 0;
  fitsfile* f = nullptr;
  // READONLY: CFITSIO never writes to nor reallocates the buffer.
  if (fits_open_memfile(&f, name_.c_str(), READONLY, &buf_, &buf_size_, 0, nullptr, &status)) {
    if (f) fits_close_file(f, &status);
    throw Error("FITS file '" + name_ + "': cannot open: " + Status(status));
  }
  handle_ = f;
}

FitsMemFile::~FitsMemFile() {
  int status = 0;
  if (handle_) fits_close_file(static_cast<fitsfile*>(handle_), &status);
}

FitsMemFile::Image FitsMemFile::ReadImage(int hdu, std::vector<uint8_t>* out) {
  fitsfile* f_ = static_cast<fitsfile*>(handle_);
  const std::string at = "FITS file '" + name_ + "', HDU " + std::to_string(hdu) + ": ";
  int status = 0, type = 0;
  if (fits_movabs_hdu(f_, hdu, &type, &status)) {
    int count = 0, s2 = 0;
    fits_get_num_hdus(f_, &count, &s2);
    throw Error(at + "cannot move to it (the file has " + std::to_string(count) + " HDUs): " + Status(status));
  }
  // A tile-compressed image is stored as a binary table that CFITSIO presents as an image.
  if (type != IMAGE_HDU && !fits_is_compressed_image(f_, &status))
    throw Error(at + "not an image HDU (a " + (type == BINARY_TBL ? "binary" : "ASCII") + " table)");
  int equiv = 0, naxis = 0;
  if (fits_get_img_equivtype(f_, &equiv, &status) || fits_get_img_dim(f_, &naxis, &status))
    throw Error(at + "cannot read the image header: " + Status(status));
  if (naxis < 0 || naxis > 16) throw Error(at + "NAXIS = " + std::to_string(naxis) + " is not supported");
  std::vector<LONGLONG> axes(static_cast<size_t>(naxis), 0);
  if (naxis > 0 && fits_get_img_sizell(f_, naxis, axes.data(), &status))
    throw Error(at + "cannot read the image size: " + Status(status));
  Image img;
  int datatype = 0;
  if (!TypesOf(equiv, &datatype, &img.dtype))
    throw Error(at + "its pixel type (equivalent BITPIX " + std::to_string(equiv) +
                ", unsigned 32 or 64-bit) has no Sluice tensor type");
  std::vector<int64_t> dims(axes.rbegin(), axes.rend());
  __int128 elems = 1;
  for (int64_t d : dims) {
    if (d < 0) throw Error(at + "negative axis length");
    elems *= d;
    if (elems > (__int128{1} << 40)) throw Error(at + "the image has more than 2^40 pixels");
  }
  img.shape = TensorShape(dims);
  if (naxis == 0) img.shape = TensorShape{0};  // an HDU without data
  if (!out) return img;
  const size_t n = naxis == 0 ? 0 : static_cast<size_t>(elems);
  out->resize(n * SizeOf(img.dtype));
  if (n > 0 && fits_read_img(f_, datatype, 1, static_cast<LONGLONG>(n), nullptr, out->data(), nullptr, &status))
    throw Error(at + "cannot read the pixels: " + Status(status));
  return img;
}

}  // namespace sluice
