#include "readers/fits/fits_image.h"

#include "readers/fits/fits_cards.h"
#include "readers/fits/fits_compressed.h"

#include <fitsio.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string_view>

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

// Before CFITSIO sees a file, every HDU header is walked here, for faults of CFITSIO 4.2 that
// fuzz_fits found: its memory driver reads a data unit that runs past the buffer's end (heap
// overflow), so every data unit must lie inside the file; and its tile-compressed image code
// crashes on malformed headers and tiles (a division by ZTILE1 = 0, a fortified strncat abort in
// ffc2j, out-of-bounds writes in the RICE decoder), so the compressed HDUs are decoded by Sluice's
// own code (readers/fits/fits_compressed.h), which validates their headers first; CFITSIO is never moved
// to one, nor past one whose header did not validate.
struct CompressedHdu {
  int hdu;
  FitsCards cards;
  size_t data_offset, data_size;
  std::string duplicate;  // a keyword that appears twice (CFITSIO and this walk might read different cards)
};

// The walk and CFITSIO must read the same keywords, or CFITSIO acts on a card the walk did not
// validate (fuzz_fits: "ZTILE2 \xa0= 0" was no ZTILE2 to the walk, ZTILE2 = 0 to CFITSIO, which
// divided by it when moved past the HDU). So a card's keyword must be what the FITS standard allows
// (letters, digits, '-' and '_', then only spaces; CFITSIO also takes lower case), and no header
// byte may be a control character (the standard allows printable ASCII only; bytes above 126 are
// tolerated, as in Latin-1 comments written by careless tools).
void CheckCard(std::string_view card, std::string_view key, const std::string& name, int hdu, size_t pos) {
  auto bad = [&](const std::string& what) {
    throw Error("FITS file '" + name + "', HDU " + std::to_string(hdu) + ": the header card at byte " +
                std::to_string(pos) + " " + what);
  };
  for (char ch : key) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) || c > 127) {
      if (c != '-' && c != '_') bad("has a keyword with a character FITS does not allow (byte " + std::to_string(c) + ")");
    }
  }
  for (char ch : card) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 32 || c == 127) bad("holds a control character (byte " + std::to_string(c) + ")");
  }
}

void WalkHeaders(const uint8_t* data, size_t size, const std::string& name, std::vector<CompressedHdu>* compressed) {
  size_t pos = 0;
  for (int hdu = 1; pos < size && hdu <= 10000; ++hdu) {
    FitsCards cards;
    std::string duplicate;
    bool end = false;
    if (hdu == 1 && (size < 80 || std::memcmp(data, "SIMPLE  ", 8) != 0))
      throw Error("FITS file '" + name + "': it does not begin with the SIMPLE keyword: not a FITS file");
    // What follows the last HDU and does not start an extension is not read by CFITSIO either.
    if (hdu > 1 && pos + 80 <= size && std::memcmp(data + pos, "XTENSION", 8) != 0) return;
    for (; pos + 80 <= size && !end; pos += 80) {
      const std::string_view card(reinterpret_cast<const char*>(data + pos), 80);
      std::string_view key = card.substr(0, 8);
      while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
      CheckCard(card, key, name, hdu, pos);
      if (key == "END") end = true;
      else if (!key.empty()) {
        std::string upper(key);  // CFITSIO matches keywords without regard to case
        for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        if (!cards.emplace(upper, card).second && upper != "COMMENT" && upper != "HISTORY" && upper != "CONTINUE" &&
            duplicate.empty())
          duplicate = upper;
      }
    }
    if (!end) {
      if (hdu > 1 && pos >= size) return;  // nothing after the last HDU
      throw Error("FITS file '" + name + "', HDU " + std::to_string(hdu) + ": no END card in its header");
    }
    pos = (pos + 2879) / 2880 * 2880;
    auto get = [&](const std::string& key, int64_t* v) {
      auto it = cards.find(key);
      return it != cards.end() && FitsCardInt(it->second, v);
    };
    auto it = cards.find("ZIMAGE");
    const bool is_compressed =
        it != cards.end() && it->second.size() > 10 && it->second.substr(10).find('T') != std::string_view::npos;
    // Skip the data unit: |BITPIX|/8 * GCOUNT * (PCOUNT + NAXIS1 * ... * NAXISn), whole blocks.
    int64_t bitpix = 0, naxis = 0, pcount = 0, gcount = 1;
    auto bad = [&](const std::string& what) {
      throw Error("FITS file '" + name + "', HDU " + std::to_string(hdu) + ": " + what);
    };
    if (!get("BITPIX", &bitpix) || (bitpix != 8 && bitpix != 16 && bitpix != 32 && bitpix != 64 && bitpix != -32 &&
                                    bitpix != -64))
      bad("no valid BITPIX (8, 16, 32, 64, -32 or -64)");
    if (!get("NAXIS", &naxis) || naxis < 0 || naxis > 999) bad("no valid NAXIS");
    get("PCOUNT", &pcount);
    get("GCOUNT", &gcount);
    __int128 n = naxis > 0 ? 1 : 0;
    for (int64_t a = 1; a <= naxis && n > 0; ++a) {
      int64_t len = 0;
      if (!get("NAXIS" + std::to_string(a), &len) || len < 0) bad("no valid NAXIS" + std::to_string(a));
      n *= len;
      if (n > (__int128{1} << 62)) bad("a data unit of more than 2^62 elements");
    }
    const __int128 bytes = (bitpix < 0 ? -bitpix : bitpix) / 8 * static_cast<__int128>(gcount) * (pcount + n);
    const __int128 padded = (bytes + 2879) / 2880 * 2880;
    if (bytes < 0 || padded > static_cast<__int128>(size - pos))
      throw Error("FITS file '" + name + "', HDU " + std::to_string(hdu) + ": its data unit (" +
                  std::to_string(static_cast<int64_t>(bytes < 0 ? -1 : std::min<__int128>(bytes, INT64_MAX))) +
                  " bytes) runs past the end of the file: the file is truncated");
    if (is_compressed) compressed->push_back({hdu, std::move(cards), pos, static_cast<size_t>(bytes), duplicate});
    pos += static_cast<size_t>(padded);
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
  // The FITS standard makes every HDU a whole number of 2880-byte blocks, and CFITSIO's memory driver
  // reads whole blocks: a last block cut short would be read past the buffer's end (found by
  // fuzz_fits). Such a file is truncated; say so instead.
  if (size % 2880 != 0)
    throw Error("FITS file '" + name_ + "': its size (" + std::to_string(size) +
                " bytes) is not a whole number of 2880-byte FITS blocks: the file is truncated");
  std::vector<CompressedHdu> found;
  WalkHeaders(static_cast<const uint8_t*>(data), size, name_, &found);
  for (auto& c : found) {
    Compressed entry;
    entry.hdu = c.hdu;
    try {
      if (!c.duplicate.empty()) throw Error("tile-compressed image: the keyword " + c.duplicate + " appears twice");
      entry.image = std::make_shared<FitsCompressedImage>(c.cards, static_cast<const uint8_t*>(data) + c.data_offset,
                                                          c.data_size);
    } catch (const Error& e) {
      entry.error = e.what();
    }
    compressed_.push_back(std::move(entry));
  }
  // A ZIMAGE card the walk did not attribute to an HDU (CFITSIO may parse a malformed file
  // differently): every extension is then refused.
  size_t zimage_cards = 0;
  for (size_t pos = 0; pos + 80 <= size; pos += 80)
    if (std::memcmp(static_cast<const uint8_t*>(data) + pos, "ZIMAGE", 6) == 0) ++zimage_cards;
  if (zimage_cards > compressed_.size())
    compressed_.insert(compressed_.begin(), Compressed{2, nullptr, "a ZIMAGE card outside the HDUs' headers"});
  std::stable_sort(compressed_.begin(), compressed_.end(),
                   [](const Compressed& a, const Compressed& b) { return a.hdu < b.hdu; });
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
  for (const Compressed& c : compressed_) {
    if (c.hdu > hdu) break;
    if (c.hdu == hdu && c.image) {  // decoded by Sluice's own code, never by CFITSIO
      Image img{c.image->shape(), c.image->dtype()};
      if (!out) return img;
      const int64_t n = img.shape.ndim() == 1 && img.shape[0] == 0 ? 0 : img.shape.num_elements();
      out->resize(static_cast<size_t>(n) * SizeOf(img.dtype));
      try {
        c.image->Read(out->data());
      } catch (const Error& e) {
        throw Error(at + e.what());
      }
      return img;
    }
    if (!c.image)
      throw Error(at + (c.hdu == hdu ? c.error
                                     : "HDU " + std::to_string(c.hdu) + " before it is a tile-compressed image that "
                                       "cannot be read (" + c.error + "), and CFITSIO is not moved past it"));
  }
  int status = 0, type = 0;
  if (fits_movabs_hdu(f_, hdu, &type, &status)) {
    int count = 0, s2 = 0;
    fits_get_num_hdus(f_, &count, &s2);
    throw Error(at + "cannot move to it (the file has " + std::to_string(count) + " HDUs): " + Status(status));
  }
  if (type != IMAGE_HDU)
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
  LONGLONG head = 0, data_start = 0, data_end = 0;
  if (fits_get_hduaddrll(f_, &head, &data_start, &data_end, &status))
    throw Error(at + "cannot locate the data unit: " + Status(status));
  if (data_start < 0 || static_cast<__int128>(data_start) + static_cast<__int128>(n) * SizeOf(img.dtype) > static_cast<__int128>(buf_size_) ||
      data_end > static_cast<LONGLONG>(buf_size_))
    throw Error(at + "the data unit runs past the end of the file (" + std::to_string(buf_size_) + " bytes): truncated");
  if (n > 0 && fits_read_img(f_, datatype, 1, static_cast<LONGLONG>(n), nullptr, out->data(), nullptr, &status))
    throw Error(at + "cannot read the pixels: " + Status(status));
  return img;
}

}  // namespace sluice
