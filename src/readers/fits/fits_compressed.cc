#include "readers/fits/fits_compressed.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include <sluice/error.h>

#include "core/dtype_list.h"
#include "kernels/compression/gzip.h"
#include "kernels/compression/hcompress.h"
#include "kernels/compression/plio.h"
#include "kernels/compression/rice.h"

namespace sluice {
namespace {

[[noreturn]] void Bad(const std::string& what) { throw Error("tile-compressed image: " + what); }

uint64_t BigEndian(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

int ElementSize(char type) {
  switch (type) {
    case 'L': case 'B': case 'A': return 1;
    case 'I': return 2;
    case 'J': case 'E': return 4;
    case 'K': case 'D': case 'C': return 8;
    case 'M': return 16;
    default: return 0;
  }
}

// FITS's 10000 uniform deviates for subtractive dithering (Park-Miller, as CFITSIO's fits_init_randoms).
const std::array<float, 10000>& DitherRandoms() {
  static const std::array<float, 10000> table = [] {
    std::array<float, 10000> t{};
    const double a = 16807.0, m = 2147483647.0;
    double seed = 1;
    for (float& v : t) {
      const double temp = a * seed;
      seed = temp - m * static_cast<int>(temp / m);
      v = static_cast<float>(seed / m);
    }
    return t;
  }();
  return table;
}

constexpr int64_t kZeroValue = -2147483646;  // SUBTRACTIVE_DITHER_2's code for an exact 0.0

}  // namespace

FitsCompressedImage::FitsCompressedImage(const FitsCards& cards, const uint8_t* data, size_t size)
    : data_(data), size_(size) {
  auto card = [&](const std::string& key) -> std::optional<std::string_view> {
    auto it = cards.find(key);
    if (it == cards.end()) return std::nullopt;
    return it->second;
  };
  auto get_int = [&](const std::string& key, std::optional<int64_t> dflt, int64_t lo, int64_t hi) {
    const auto c = card(key);
    int64_t v = 0;
    if (!c) {
      if (!dflt) Bad("no " + key + " keyword");
      return *dflt;
    }
    if (!FitsCardInt(*c, &v)) Bad(key + " is not an integer");
    if (v < lo || v > hi) Bad(key + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  };
  auto get_real = [&](const std::string& key, double dflt, bool* present = nullptr) {
    const auto c = card(key);
    if (present) *present = c.has_value();
    if (!c) return dflt;
    double v = 0;
    if (!FitsCardReal(*c, &v) || !std::isfinite(v)) Bad(key + " is not a finite number");
    return v;
  };
  auto get_string = [&](const std::string& key) -> std::optional<std::string> {
    const auto c = card(key);
    if (!c) return std::nullopt;
    auto s = FitsCardString(*c);
    if (!s) Bad(key + " is not a string");
    return s;
  };
  // CFITSIO parses these keywords when it moves to or past this HDU: each must be well-formed.
  for (const auto& [key, c] : cards)
    if ((key[0] == 'Z' || key[0] == 'T') && !FitsCardWellFormed(c)) Bad("the value of " + key + " is malformed");

  // The table: one row per tile, then the heap.
  if (get_int("BITPIX", std::nullopt, -64, 64) != 8) Bad("the table's BITPIX is not 8");
  if (get_int("NAXIS", std::nullopt, 0, 999) != 2) Bad("the table's NAXIS is not 2");
  row_bytes_ = get_int("NAXIS1", std::nullopt, 0, int64_t{1} << 31);
  rows_ = get_int("NAXIS2", std::nullopt, 0, int64_t{1} << 40);
  const int64_t pcount = get_int("PCOUNT", 0, 0, int64_t{1} << 50);
  if (get_int("GCOUNT", 1, 1, 1) != 1) Bad("GCOUNT is not 1");
  const __int128 table = static_cast<__int128>(row_bytes_) * rows_;
  if (table + pcount > static_cast<__int128>(size_)) Bad("the table and heap run past the data unit");
  heap_start_ = get_int("THEAP", static_cast<int64_t>(table), static_cast<int64_t>(table), static_cast<int64_t>(table) + pcount);
  heap_size_ = static_cast<int64_t>(table) + pcount - heap_start_;
  const int64_t fields = get_int("TFIELDS", std::nullopt, 0, 999);
  int64_t offset = 0;
  for (int64_t f = 1; f <= fields; ++f) {
    const std::string n = std::to_string(f);
    const auto form = get_string("TFORM" + n);
    if (!form || form->empty()) Bad("no TFORM" + n);
    size_t i = 0;
    int64_t repeat = 0;
    bool digits = false;
    for (; i < form->size() && (*form)[i] >= '0' && (*form)[i] <= '9'; ++i) {
      repeat = repeat * 10 + ((*form)[i] - '0');
      digits = true;
      if (repeat > (int64_t{1} << 31)) Bad("TFORM" + n + " repeats too often");
    }
    if (!digits) repeat = 1;
    if (i >= form->size()) Bad("TFORM" + n + " = '" + *form + "' has no type");
    const char type = (*form)[i];
    Column col;
    int64_t width = 0;
    if (type == 'P' || type == 'Q') {
      if (i + 1 >= form->size() || ElementSize((*form)[i + 1]) == 0) Bad("TFORM" + n + " = '" + *form + "' is not supported");
      col.type = (*form)[i + 1];
      col.descriptor64 = type == 'Q';
      width = repeat * (type == 'Q' ? 16 : 8);
      if (repeat != 1) col.type = 0;  // arrays of descriptors are no column this reader uses
    } else if (type == 'X') {
      width = (repeat + 7) / 8;
    } else {
      if (ElementSize(type) == 0) Bad("TFORM" + n + " = '" + *form + "' has an unknown type");
      width = repeat * ElementSize(type);
      col.type = repeat == 1 ? type : 0;
    }
    col.offset = offset;
    offset += width;
    if (offset > row_bytes_) Bad("the columns are wider than NAXIS1 = " + std::to_string(row_bytes_));
    const std::string name = get_string("TTYPE" + n).value_or("");
    const bool varlen = type == 'P' || type == 'Q';
    if (name == "COMPRESSED_DATA" && varlen) compressed_ = col;
    else if (name == "GZIP_COMPRESSED_DATA" && varlen) gzip_data_ = col;
    else if (name == "UNCOMPRESSED_DATA" && varlen) uncompressed_ = col;
    else if (name == "ZSCALE" && col.type == 'D') zscale_col_ = col;
    else if (name == "ZZERO" && col.type == 'D') zzero_col_ = col;
    else if (name == "ZBLANK" && col.type == 'J') zblank_col_ = col;
    else if (name == "COMPRESSED_DATA" || name == "GZIP_COMPRESSED_DATA" || name == "UNCOMPRESSED_DATA" ||
             name == "ZSCALE" || name == "ZZERO" || name == "ZBLANK")
      Bad("column " + name + " has the unexpected format '" + *form + "'");
  }
  if (offset != row_bytes_) Bad("the columns' widths add to " + std::to_string(offset) + " bytes, NAXIS1 says " + std::to_string(row_bytes_));
  if (compressed_.offset < 0 || compressed_.type == 0) Bad("no COMPRESSED_DATA column");

  // The image.
  zbitpix_ = static_cast<int>(get_int("ZBITPIX", std::nullopt, -64, 64));
  if (zbitpix_ != 8 && zbitpix_ != 16 && zbitpix_ != 32 && zbitpix_ != 64 && zbitpix_ != -32 && zbitpix_ != -64)
    Bad("ZBITPIX = " + std::to_string(zbitpix_) + " (8, 16, 32, 64, -32 or -64 are defined)");
  const int64_t naxis = get_int("ZNAXIS", std::nullopt, 0, 16);
  __int128 elems = naxis > 0 ? 1 : 0;
  int64_t tiles = naxis > 0 ? 1 : 0, tile_elems = 1;
  for (int64_t a = 1; a <= naxis; ++a) {
    const std::string n = std::to_string(a);
    const int64_t len = get_int("ZNAXIS" + n, std::nullopt, 0, int64_t{1} << 40);
    const int64_t t = get_int("ZTILE" + n, a == 1 ? len : 1, 1, int64_t{1} << 40);
    axes_.push_back(len);
    tile_.push_back(std::max<int64_t>(1, std::min(t, len)));
    elems *= len;
    if (elems > (__int128{1} << 40)) Bad("the image has more than 2^40 pixels");
    tiles_per_axis_.push_back(len == 0 ? 0 : (len + tile_.back() - 1) / tile_.back());
    tiles *= tiles_per_axis_.back();
    tile_elems *= tile_.back();
    if (tile_elems > (int64_t{1} << 28)) Bad("a tile of more than 2^28 pixels");
  }
  // A few bytes of HCOMPRESS or PLIO tiles can declare terabytes of pixels: past 4096:1 (and 1 GiB)
  // the header is taken as corrupt rather than trusted with the allocation.
  const __int128 pixel_bytes = elems * (zbitpix_ < 0 ? -zbitpix_ : zbitpix_) / 8;
  const __int128 kMaxRatio = 4096, kAlwaysAllowed = __int128{1} << 30;
  if (pixel_bytes > kAlwaysAllowed && pixel_bytes > kMaxRatio * heap_size_)
    Bad("the image declares " + std::to_string(static_cast<int64_t>(pixel_bytes)) + " bytes of pixels from " +
        std::to_string(heap_size_) + " bytes of compressed tiles (over 4096:1 and 1 GiB: taken as corrupt)");
  if (elems > 0 && tiles != rows_)
    Bad("the tiles (" + std::to_string(tiles) + ") and the table's rows (" + std::to_string(rows_) + ") differ");
  const std::string cmp = get_string("ZCMPTYPE").value_or("");
  if (cmp == "RICE_1" || cmp == "RICE_ONE") codec_ = Codec::kRice;
  else if (cmp == "GZIP_1") codec_ = Codec::kGzip1;
  else if (cmp == "GZIP_2") codec_ = Codec::kGzip2;
  else if (cmp == "PLIO_1") codec_ = Codec::kPlio;
  else if (cmp == "HCOMPRESS_1") codec_ = Codec::kHcompress;
  else if (cmp == "NOCOMPRESS") Bad("ZCMPTYPE = 'NOCOMPRESS' is not supported (RICE_1, GZIP_1, GZIP_2, PLIO_1 and HCOMPRESS_1 are)");
  else Bad("ZCMPTYPE = '" + cmp + "' is not a compression FITS defines");
  const char want = codec_ == Codec::kPlio ? 'I' : 'B';
  if (compressed_.type != want)
    Bad("COMPRESSED_DATA holds '" + std::string(1, compressed_.type) + "' elements, " + cmp + " needs '" + want + "'");
  for (int64_t k = 1; k <= 999; ++k) {
    const auto name = get_string("ZNAME" + std::to_string(k));
    if (!name) break;
    const std::string val = "ZVAL" + std::to_string(k);
    if (*name == "BLOCKSIZE") block_size_ = static_cast<int>(get_int(val, std::nullopt, 1, 65536));
    if (*name == "BYTEPIX") bytepix_ = static_cast<int>(get_int(val, std::nullopt, 1, 8));
    if (*name == "SMOOTH" && get_int(val, std::nullopt, INT32_MIN, INT32_MAX) != 0)
      Bad("HCOMPRESS_1 with smoothing (SMOOTH != 0) is not supported");
  }
  if (codec_ == Codec::kRice && bytepix_ != 1 && bytepix_ != 2 && bytepix_ != 4)
    Bad("BYTEPIX = " + std::to_string(bytepix_) + " for RICE_1 (1, 2 or 4 are defined)");

  // Scaling of integer images; quantization of floating-point ones.
  bscale_ = get_real("BSCALE", 1);
  bzero_ = get_real("BZERO", 0);
  zscale_key_ = get_real("ZSCALE", 1, &has_zscale_key_);
  zzero_key_ = get_real("ZZERO", 0, &has_zzero_key_);
  if (card("ZBLANK")) {
    has_zblank_key_ = true;
    zblank_key_ = get_int("ZBLANK", 0, INT32_MIN, INT32_MAX);
  }
  dither0_ = get_int("ZDITHER0", 1, 0, 10000);
  const auto zq = get_string("ZQUANTIZ");
  const bool scaled = zscale_col_.offset >= 0 || has_zscale_key_;
  if (zbitpix_ < 0 && scaled) {
    if (!zq || *zq == "NO_DITHER") quantize_ = Quantize::kNoDither;
    else if (*zq == "SUBTRACTIVE_DITHER_1") quantize_ = Quantize::kDither1;
    else if (*zq == "SUBTRACTIVE_DITHER_2") quantize_ = Quantize::kDither2;
    else if (*zq == "NONE") quantize_ = Quantize::kNone;
    else Bad("ZQUANTIZ = '" + *zq + "' is not a quantization FITS defines");
    if (quantize_ != Quantize::kNone && zzero_col_.offset < 0 && !has_zzero_key_) Bad("ZSCALE without ZZERO");
  }
  if (zbitpix_ < 0) {
    dtype_ = zbitpix_ == -32 ? DType::kFloat32 : DType::kFloat64;
  } else if (bscale_ == 1 && bzero_ == 0) {
    dtype_ = zbitpix_ == 8 ? DType::kUInt8 : zbitpix_ == 16 ? DType::kInt16 : zbitpix_ == 32 ? DType::kInt32 : DType::kInt64;
  } else if (bscale_ == std::trunc(bscale_) && bzero_ == std::trunc(bzero_) && zbitpix_ < 64) {
    // CFITSIO's fits_get_img_equivtype: the smallest integer type holding the scaled range.
    const double lo0 = zbitpix_ == 8 ? 0 : zbitpix_ == 16 ? -32768.0 : -2147483648.0;
    const double hi0 = zbitpix_ == 8 ? 255 : zbitpix_ == 16 ? 32767.0 : 2147483647.0;
    const double a = lo0 * bscale_ + bzero_, b = hi0 * bscale_ + bzero_;
    const double lo = std::min(a, b), hi = std::max(a, b);
    if (lo >= -128 && hi <= 127) dtype_ = DType::kInt8;
    else if (lo >= 0 && hi <= 255) dtype_ = DType::kUInt8;
    else if (lo >= -32768 && hi <= 32767) dtype_ = DType::kInt16;
    else if (lo >= 0 && hi <= 65535) dtype_ = DType::kUInt16;
    else if (lo >= -2147483648.0 && hi <= 2147483647.0) dtype_ = DType::kInt32;
    else Bad("BZERO/BSCALE make the pixels unsigned 32-bit or wider, which Sluice has no tensors of");
  } else if (zbitpix_ == 64 && bscale_ == 1 && bzero_ == 9223372036854775808.0) {
    Bad("BZERO makes the pixels unsigned 64-bit, which Sluice has no tensors of");
  } else {
    dtype_ = zbitpix_ <= 16 ? DType::kFloat32 : DType::kFloat64;
  }
  std::vector<int64_t> dims(axes_.rbegin(), axes_.rend());
  shape_ = naxis == 0 ? TensorShape{0} : TensorShape(dims);
}

FitsCompressedImage::Tile FitsCompressedImage::TileAt(int64_t row) const {
  Tile t;
  t.len = 1;
  for (size_t a = 0; a < axes_.size(); ++a) {
    const int64_t k = row % tiles_per_axis_[a];
    row /= tiles_per_axis_[a];
    t.origin.push_back(k * tile_[a]);
    t.dims.push_back(std::min(tile_[a], axes_[a] - k * tile_[a]));
    t.len *= t.dims.back();
  }
  return t;
}

const uint8_t* FitsCompressedImage::HeapArray(const Column& col, int64_t row, int64_t* nelem) const {
  const uint8_t* d = data_ + row * row_bytes_ + col.offset;
  int64_t n = 0, off = 0;
  if (col.descriptor64) {
    n = static_cast<int64_t>(BigEndian(d, 8));
    off = static_cast<int64_t>(BigEndian(d + 8, 8));
  } else {
    n = static_cast<int32_t>(BigEndian(d, 4));
    off = static_cast<int32_t>(BigEndian(d + 4, 4));
  }
  const __int128 bytes = static_cast<__int128>(n) * ElementSize(col.type);
  if (n < 0 || off < 0 || off + bytes > heap_size_)
    Bad("tile " + std::to_string(row + 1) + "'s descriptor (" + std::to_string(n) + " elements at heap offset " +
        std::to_string(off) + ") points outside the heap (" + std::to_string(heap_size_) + " bytes)");
  *nelem = n;
  return data_ + heap_start_ + off;
}

double FitsCompressedImage::RowDouble(const Column& col, int64_t row) const {
  const uint64_t bits = BigEndian(data_ + row * row_bytes_ + col.offset, 8);
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

int64_t FitsCompressedImage::RowInt(const Column& col, int64_t row) const {
  return static_cast<int32_t>(BigEndian(data_ + row * row_bytes_ + col.offset, 4));
}

void FitsCompressedImage::DecodeTile(int64_t row, const Tile& tile, std::vector<uint8_t>* typed) const {
  const std::string at = "tile " + std::to_string(row + 1) + ": ";
  const int64_t len = tile.len;
  std::vector<int64_t> ints;   // integer pixels (or quantized values), when the tile holds integers
  std::vector<double> reals;   // floating-point pixels, when it holds those
  bool quantized = false;
  // Big-endian values of `size` bytes each, integer (FITS BITPIX 8 is unsigned) or IEEE.
  auto parse = [&](const uint8_t* p, int size, bool real) {
    if (real) {
      reals.resize(static_cast<size_t>(len));
      for (int64_t i = 0; i < len; ++i) {
        const uint64_t b = BigEndian(p + i * size, size);
        if (size == 4) {
          float f;
          const uint32_t b32 = static_cast<uint32_t>(b);
          std::memcpy(&f, &b32, 4);
          reals[static_cast<size_t>(i)] = f;
        } else {
          double d;
          std::memcpy(&d, &b, 8);
          reals[static_cast<size_t>(i)] = d;
        }
      }
      return;
    }
    ints.resize(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) {
      const uint64_t b = BigEndian(p + i * size, size);
      ints[static_cast<size_t>(i)] = size == 1 ? static_cast<int64_t>(b)
                                     : size == 2 ? static_cast<int16_t>(b)
                                     : size == 4 ? static_cast<int32_t>(b)
                                                 : static_cast<int64_t>(b);
    }
  };
  auto inflate = [&](const uint8_t* src, int64_t n, int size, bool shuffled) {
    std::vector<uint8_t> raw(static_cast<size_t>(len * size));
    try {
      kernels::InflateGzip(src, static_cast<size_t>(n), raw.data(), raw.size());
    } catch (const Error& e) {
      Bad(at + e.what());
    }
    if (shuffled && size > 1) {  // GZIP_2: all first bytes, then all second bytes, ...
      std::vector<uint8_t> plain(raw.size());
      for (int64_t i = 0; i < len; ++i)
        for (int b = 0; b < size; ++b) plain[static_cast<size_t>(i * size + b)] = raw[static_cast<size_t>(b * len + i)];
      raw.swap(plain);
    }
    return raw;
  };
  const int pixel_size = (zbitpix_ < 0 ? -zbitpix_ : zbitpix_) / 8;
  int64_t n = 0;
  const uint8_t* src = HeapArray(compressed_, row, &n);
  if (n > 0) {
    quantized = quantize_ != Quantize::kNone;
    const bool real = zbitpix_ < 0 && !quantized;
    try {
      switch (codec_) {
        case Codec::kRice:
          if (real) Bad(at + "RICE_1 holds integers, the image is floating-point and not quantized");
          ints.resize(static_cast<size_t>(len));
          kernels::RiceDecode(src, static_cast<size_t>(n), bytepix_, block_size_, ints.data(), len);
          break;
        case Codec::kGzip1:
        case Codec::kGzip2: {
          const int size = quantized ? 4 : pixel_size;
          parse(inflate(src, n, size, codec_ == Codec::kGzip2).data(), size, real);
          break;
        }
        case Codec::kHcompress:
          if (real) Bad(at + "HCOMPRESS_1 holds integers, the image is floating-point and not quantized");
          ints.resize(static_cast<size_t>(len));
          kernels::HcompressDecode(src, static_cast<size_t>(n), zbitpix_ == 8 || zbitpix_ == 16, ints.data(), len);
          break;
        case Codec::kPlio: {
          if (real) Bad(at + "PLIO_1 holds integers, the image is floating-point and not quantized");
          std::vector<int16_t> list(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i) list[static_cast<size_t>(i)] = static_cast<int16_t>(BigEndian(src + 2 * i, 2));
          std::vector<int32_t> px(static_cast<size_t>(len));
          kernels::PlioDecode(list.data(), n, px.data(), len);
          ints.assign(px.begin(), px.end());
          break;
        }
      }
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.rfind("tile-compressed image: ", 0) == 0) throw;
      Bad(at + what);
    }
  } else if (gzip_data_.offset >= 0 && (src = HeapArray(gzip_data_, row, &n), n > 0)) {
    parse(inflate(src, n, pixel_size, false).data(), pixel_size, zbitpix_ < 0);  // a tile kept losslessly
  } else if (uncompressed_.offset >= 0 && (src = HeapArray(uncompressed_, row, &n), n > 0)) {
    if (n != len) Bad(at + "UNCOMPRESSED_DATA holds " + std::to_string(n) + " values, the tile has " + std::to_string(len));
    const char t = uncompressed_.type;
    parse(src, ElementSize(t), t == 'E' || t == 'D');
  } else {
    Bad(at + "no data in any of its columns");
  }

  typed->resize(static_cast<size_t>(len) * SizeOf(dtype_));
  auto store = [&](auto* dst) {
    using T = std::remove_pointer_t<decltype(dst)>;
    if constexpr (std::is_floating_point_v<T>) {
      if (quantized) {
        const double scale = zscale_col_.offset >= 0 ? RowDouble(zscale_col_, row) : zscale_key_;
        const double zero = zzero_col_.offset >= 0 ? RowDouble(zzero_col_, row) : zzero_key_;
        const bool has_blank = zblank_col_.offset >= 0 || has_zblank_key_;
        const int64_t blank = zblank_col_.offset >= 0 ? RowInt(zblank_col_, row) : zblank_key_;
        const auto& rnd = DitherRandoms();
        int iseed = static_cast<int>((row + dither0_ - 1) % 10000);
        if (iseed < 0) iseed += 10000;
        int next = static_cast<int>(rnd[static_cast<size_t>(iseed)] * 500);
        for (int64_t i = 0; i < len; ++i) {
          const int64_t q = ints[static_cast<size_t>(i)];
          if (has_blank && q == blank) {
            dst[i] = std::numeric_limits<T>::quiet_NaN();
          } else if (quantize_ == Quantize::kNoDither) {
            dst[i] = static_cast<T>(static_cast<double>(q) * scale + zero);
          } else if (quantize_ == Quantize::kDither2 && q == kZeroValue) {
            dst[i] = 0;
          } else {
            dst[i] = static_cast<T>((static_cast<double>(q) - rnd[static_cast<size_t>(next)] + 0.5) * scale + zero);
          }
          if (quantize_ != Quantize::kNoDither && ++next == 10000) {
            iseed = iseed + 1 == 10000 ? 0 : iseed + 1;
            next = static_cast<int>(rnd[static_cast<size_t>(iseed)] * 500);
          }
        }
      } else if (!reals.empty()) {
        for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(reals[static_cast<size_t>(i)] * bscale_ + bzero_);
      } else {
        for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(static_cast<double>(ints[static_cast<size_t>(i)]) * bscale_ + bzero_);
      }
    } else {
      if (!reals.empty()) Bad(at + "floating-point values in an integer image");
      const bool plain = bscale_ == 1 && bzero_ == 0;
      const int64_t s = static_cast<int64_t>(bscale_), z = static_cast<int64_t>(bzero_);
      for (int64_t i = 0; i < len; ++i) {
        const int64_t v = ints[static_cast<size_t>(i)];
        dst[i] = static_cast<T>(plain ? v : v * s + z);
      }
    }
  };
  uint8_t* p = typed->data();
  using Stored = DTypeList<uint8_t, int8_t, int16_t, uint16_t, int32_t, int64_t, float, double>;
  VisitDTypeIn<Stored>(dtype_, "FITS tile decoding", [&](auto zero) { store(reinterpret_cast<decltype(zero)*>(p)); });
}

void FitsCompressedImage::ScatterTile(const Tile& tile, const uint8_t* typed, uint8_t* out) const {
  const size_t es = SizeOf(dtype_);
  const size_t naxes = axes_.size();
  std::vector<int64_t> idx(naxes, 0);  // the tile's line (axes 2 ..), axis 1 runs along it
  const int64_t run = tile.dims[0];
  for (int64_t line = 0; line * run < tile.len; ++line) {
    int64_t offset = 0, stride = 1;
    for (size_t a = 0; a < naxes; ++a) {
      offset += (tile.origin[a] + (a == 0 ? 0 : idx[a])) * stride;
      stride *= axes_[a];
    }
    std::memcpy(out + static_cast<size_t>(offset) * es, typed + static_cast<size_t>(line * run) * es,
                static_cast<size_t>(run) * es);
    for (size_t a = 1; a < naxes; ++a) {
      if (++idx[a] < tile.dims[a]) break;
      idx[a] = 0;
    }
  }
}

void FitsCompressedImage::Read(uint8_t* out) const {
  if (shape_.num_elements() == 0) return;
  std::vector<uint8_t> typed;
  for (int64_t row = 0; row < rows_; ++row) {
    const Tile tile = TileAt(row);
    DecodeTile(row, tile, &typed);
    ScatterTile(tile, typed.data(), out);
  }
}

}  // namespace sluice
