// A tile-compressed FITS image (the FITS standard's tiled image convention: a BINTABLE HDU with
// ZIMAGE = T, one row per tile; astropy's CompImageHDU, fpack) decoded by Sluice's own code, never
// by CFITSIO's compressed-image code (which crashes on malformed headers and tiles: fuzz_fits found
// a division by ZTILE1 = 0, an abort in its keyword parser and out-of-bounds writes in its Rice
// decoder).
//
// Supported: ZCMPTYPE RICE_1 (and its old name RICE_ONE), GZIP_1, GZIP_2, PLIO_1 and HCOMPRESS_1
// (without smoothing: SMOOTH != 0 is refused); tiles of any
// shape; ZBITPIX 8, 16, 32, 64, -32, -64; integer images scaled by BZERO/BSCALE to their equivalent
// type as CFITSIO's fits_get_img_equivtype (BZERO 32768 makes BITPIX 16 uint16, as astropy reads it);
// floating-point images quantized per tile (ZSCALE, ZZERO; ZQUANTIZ NO_DITHER, SUBTRACTIVE_DITHER_1
// or _2 with ZDITHER0, FITS's 10000-entry random sequence), ZBLANK pixels as NaN, and the tiles
// stored losslessly in GZIP_COMPRESSED_DATA or UNCOMPRESSED_DATA. NOCOMPRESS is refused with an
// error naming it.
// The header is validated when the object is made (every Z and T keyword well-formed, tile sizes
// >= 1, the table's columns and row width consistent, the heap inside the data unit); every tile's
// descriptor is checked against the heap before it is read; decoders are bounds-checked. Malformed
// input throws sluice::Error saying what (the caller adds the file and HDU).
// Thread-safety: const methods are reentrant. Read allocates one tile's scratch buffers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/tensor_shape.h>

#include "readers/fits/fits_cards.h"

namespace sluice {

class FitsCompressedImage {
 public:
  // `cards`: the HDU's header; `data`, `size`: its data unit (the table, then the heap), which must
  // outlive this object.
  FitsCompressedImage(const FitsCards& cards, const uint8_t* data, size_t size);

  const TensorShape& shape() const { return shape_; }  // axes reversed (C order), as astropy's data.shape
  DType dtype() const { return dtype_; }
  // Decodes every tile into `out`, which holds shape x size of dtype bytes.
  void Read(uint8_t* out) const;

 private:
  enum class Codec { kRice, kGzip1, kGzip2, kPlio, kHcompress };
  enum class Quantize { kNone, kNoDither, kDither1, kDither2 };
  struct Column {
    int64_t offset = -1;  // in the row, bytes; -1: absent
    char type = 0;        // the FITS TFORM letter of the (array) element: B, I, J, K, E, D
    bool descriptor64 = false;  // Q (two int64) rather than P (two int32)
  };
  struct Tile {
    std::vector<int64_t> origin, dims;  // per FITS axis (axis 1 first)
    int64_t len = 0;
  };
  Tile TileAt(int64_t row) const;
  // The heap bytes of `col` in `row` (nelem elements of the column's type); empty when nelem is 0.
  const uint8_t* HeapArray(const Column& col, int64_t row, int64_t* nelem) const;
  double RowDouble(const Column& col, int64_t row) const;
  int64_t RowInt(const Column& col, int64_t row) const;
  void DecodeTile(int64_t row, const Tile& tile, std::vector<uint8_t>* typed) const;
  void ScatterTile(const Tile& tile, const uint8_t* typed, uint8_t* out) const;

  const uint8_t* data_;
  size_t size_;
  int64_t row_bytes_ = 0, rows_ = 0, heap_start_ = 0, heap_size_ = 0;
  Column compressed_, gzip_data_, uncompressed_, zscale_col_, zzero_col_, zblank_col_;
  Codec codec_ = Codec::kRice;
  int zbitpix_ = 0, bytepix_ = 4, block_size_ = 32;
  std::vector<int64_t> axes_, tile_;  // per FITS axis
  std::vector<int64_t> tiles_per_axis_;
  Quantize quantize_ = Quantize::kNone;
  int64_t dither0_ = 1;
  bool has_zscale_key_ = false, has_zzero_key_ = false, has_zblank_key_ = false;
  double zscale_key_ = 1, zzero_key_ = 0;
  int64_t zblank_key_ = 0;
  double bscale_ = 1, bzero_ = 0;
  TensorShape shape_;
  DType dtype_ = DType::kUInt8;
};

}  // namespace sluice
