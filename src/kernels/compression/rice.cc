#include "kernels/compression/rice.h"

#include <algorithm>
#include <string>

#include <sluice/error.h>

namespace sluice::kernels {
namespace {

// MSB-first bits of [data, data + size), every read bounds-checked.
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size, size_t byte_offset) : data_(data), bits_(size * 8), pos_(byte_offset * 8) {}
  uint64_t Read(int n) {  // n <= 32
    if (pos_ + static_cast<size_t>(n) > bits_) Ended();
    uint64_t v = 0;
    for (int i = 0; i < n; ++i, ++pos_) v = (v << 1) | ((data_[pos_ >> 3] >> (7 - (pos_ & 7))) & 1u);
    return v;
  }
  uint64_t CountZerosThenOne() {  // the number of 0 bits before the next 1 bit, which is consumed
    uint64_t zeros = 0;
    for (;;) {
      if (pos_ >= bits_) Ended();
      if ((pos_ & 7) == 0 && data_[pos_ >> 3] == 0) {  // a whole zero byte
        zeros += 8, pos_ += 8;
        continue;
      }
      const bool bit = (data_[pos_ >> 3] >> (7 - (pos_ & 7))) & 1u;
      ++pos_;
      if (bit) return zeros;
      ++zeros;
    }
  }

 private:
  [[noreturn]] void Ended() const {
    throw Error("corrupt Rice-compressed tile: the stream (" + std::to_string(bits_ / 8) +
                " bytes) ends before the tile's pixels do");
  }
  const uint8_t* data_;
  size_t bits_, pos_;
};

}  // namespace

void RiceDecode(const uint8_t* src, size_t size, int bytepix, int block_size, int64_t* out, int64_t count) {
  int fsbits = 0, fsmax = 0;
  switch (bytepix) {
    case 1: fsbits = 3, fsmax = 6; break;
    case 2: fsbits = 4, fsmax = 14; break;
    case 4: fsbits = 5, fsmax = 25; break;
    default: throw Error("Rice-compressed tile with BYTEPIX = " + std::to_string(bytepix) + " (1, 2 or 4 are defined)");
  }
  if (block_size <= 0 || block_size > 65536)
    throw Error("Rice-compressed tile with BLOCKSIZE = " + std::to_string(block_size) + " (1 to 65536 accepted)");
  if (count <= 0) return;
  const int bbits = 8 * bytepix;
  const uint64_t mask = bytepix == 4 ? 0xffffffffull : (1ull << bbits) - 1;
  if (size < static_cast<size_t>(bytepix))
    throw Error("corrupt Rice-compressed tile: " + std::to_string(size) + " bytes, fewer than its first pixel's");
  uint64_t last = 0;
  for (int i = 0; i < bytepix; ++i) last = (last << 8) | src[i];
  BitReader bits(src, size, static_cast<size_t>(bytepix));
  auto emit = [&](uint64_t v) {
    v &= mask;
    if (bytepix == 1) return static_cast<int64_t>(v);
    if (bytepix == 2) return static_cast<int64_t>(static_cast<int16_t>(v));
    return static_cast<int64_t>(static_cast<int32_t>(v));
  };
  auto unzigzag = [](uint64_t d) { return (d & 1) ? ~(d >> 1) : (d >> 1); };
  for (int64_t i = 0; i < count;) {
    const int fs = static_cast<int>(bits.Read(fsbits)) - 1;
    const int64_t end = std::min<int64_t>(count, i + block_size);
    if (fs < 0) {
      for (; i < end; ++i) out[i] = emit(last);
    } else if (fs == fsmax) {  // raw differences (codes above fsmax are Rice codes, as CFITSIO reads them)
      for (; i < end; ++i) {
        last += unzigzag(bits.Read(bbits));
        out[i] = emit(last);
      }
    } else {
      for (; i < end; ++i) {
        const uint64_t high = bits.CountZerosThenOne();
        const uint64_t low = fs > 0 ? bits.Read(fs) : 0;
        last += unzigzag((high << fs) | low);
        out[i] = emit(last);
      }
    }
  }
}

}  // namespace sluice::kernels
