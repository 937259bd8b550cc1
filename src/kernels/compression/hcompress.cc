#include "kernels/compression/hcompress.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <string>
#include <vector>

#include <sluice/error.h>

namespace sluice::kernels {
namespace {

[[noreturn]] void Corrupt(const std::string& what) { throw Error("corrupt HCOMPRESS-compressed tile: " + what); }

// MSB-first bits, every read bounds-checked.
class Bits {
 public:
  Bits(const uint8_t* data, size_t size) : data_(data), bits_(size * 8) {}
  void SkipBytes(size_t n) { pos_ += n * 8; }
  int Bit() {
    if (pos_ >= bits_) Corrupt("the stream ends early");
    const int b = (data_[pos_ >> 3] >> (7 - (pos_ & 7))) & 1;
    ++pos_;
    return b;
  }
  int Read(int n) {
    int v = 0;
    for (int i = 0; i < n; ++i) v = (v << 1) | Bit();
    return v;
  }
  uint64_t Bytes(int n) {
    if (pos_ % 8 != 0 || pos_ + 8 * static_cast<size_t>(n) > bits_) Corrupt("the stream ends early");
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | data_[pos_ / 8 + i];
    pos_ += 8 * static_cast<size_t>(n);
    return v;
  }
  void AlignToByte() { pos_ = (pos_ + 7) / 8 * 8; }
  // The fixed Huffman code of a 4-bit quadtree mask.
  int Huffman() {
    int c = Read(3);
    if (c < 4) return 1 << c;
    c = (c << 1) | Bit();
    switch (c) {
      case 8: return 3;
      case 9: return 5;
      case 10: return 10;
      case 11: return 12;
      case 12: return 15;
      default: break;
    }
    c = (c << 1) | Bit();
    switch (c) {
      case 26: return 6;
      case 27: return 7;
      case 28: return 9;
      case 29: return 11;
      case 30: return 13;
      default: break;
    }
    c = (c << 1) | Bit();
    return c == 62 ? 0 : 14;
  }

 private:
  const uint8_t* data_;
  size_t bits_, pos_ = 0;
};

// log2 of n rounded up, computed as the reference does (through a float logarithm).
int CeilLog2(int64_t n) {
  int l = static_cast<int>(std::log(static_cast<float>(n)) / std::log(2.0) + 0.5);
  if (n > (int64_t{1} << l)) ++l;
  return l;
}

// ORs bit plane `bit` of the (nx x ny) block of `b` (row stride n) from the 2x2 masks in `a`
// ((nx+1)/2 x (ny+1)/2): mask bit 3 is (i, j), 2 is (i, j+1), 1 is (i+1, j), 0 is (i+1, j+1).
void InsertPlane(const std::vector<uint8_t>& a, int64_t nx, int64_t ny, int64_t* b, int64_t n, int bit) {
  const int64_t plane = int64_t{1} << bit;
  int64_t k = 0;
  for (int64_t i = 0; i < nx; i += 2) {
    for (int64_t j = 0; j < ny; j += 2, ++k) {
      const int m = a[static_cast<size_t>(k)];
      int64_t* r0 = b + n * i + j;
      if (m & 8) r0[0] |= plane;
      if ((m & 4) && j + 1 < ny) r0[1] |= plane;
      if (i + 1 < nx) {
        if (m & 2) r0[n] |= plane;
        if ((m & 1) && j + 1 < ny) r0[n + 1] |= plane;
      }
    }
  }
}

// Decodes the bit planes of one quadrant (nqx x nqy at `a`, row stride n).
void DecodeQuadrant(Bits& in, int64_t* a, int64_t n, int64_t nqx, int64_t nqy, int planes) {
  const int64_t nqx2 = (nqx + 1) / 2, nqy2 = (nqy + 1) / 2;
  std::vector<uint8_t> scratch(static_cast<size_t>(std::max<int64_t>(1, nqx2 * nqy2)));
  for (int bit = planes - 1; bit >= 0; --bit) {
    const int format = in.Read(4);
    if (format == 0) {  // the plane written directly, a nybble per 2x2 block
      for (int64_t i = 0; i < nqx2 * nqy2; ++i) scratch[static_cast<size_t>(i)] = static_cast<uint8_t>(in.Read(4));
    } else if (format == 0xf) {  // quadtree-coded
      if (nqx <= 0 || nqy <= 0) Corrupt("a quadtree-coded plane of an empty quadrant");
      // Expansions kept sparse (only the non-zero masks of each level, as (index, mask)): work
      // follows the bits read, not the tile's size. Each level's flags read their masks in
      // descending index order, as the reference's dense loop does.
      const int log2n = CeilLog2(std::max(nqx, nqy));
      std::vector<std::pair<int64_t, uint8_t>> level{{0, static_cast<uint8_t>(in.Huffman())}}, next;
      std::vector<int64_t> flagged;
      int64_t nx = 1, ny = 1, nfx = nqx, nfy = nqy, c = int64_t{1} << log2n;
      for (int k = 1; k < log2n; ++k) {
        const int64_t py = ny;
        c >>= 1;
        nx <<= 1, ny <<= 1;
        if (nfx <= c) --nx; else nfx -= c;
        if (nfy <= c) --ny; else nfy -= c;
        flagged.clear();
        for (const auto& [idx, m] : level) {
          const int64_t pi = idx / py, pj = idx % py;
          for (int d = 0; d < 4; ++d) {
            const int64_t i = 2 * pi + (d >> 1), j = 2 * pj + (d & 1);
            if (i < nx && j < ny && ((m >> (3 - d)) & 1)) flagged.push_back(i * ny + j);
          }
        }
        std::sort(flagged.begin(), flagged.end(), std::greater<>());
        next.clear();
        for (int64_t idx : flagged) {
          const uint8_t m = static_cast<uint8_t>(in.Huffman());
          if (m) next.emplace_back(idx, m);
        }
        level.swap(next);
      }
      std::fill(scratch.begin(), scratch.end(), 0);
      for (const auto& [idx, m] : level) scratch[static_cast<size_t>((idx / ny) * nqy2 + idx % ny)] = m;
    } else {
      Corrupt("bad bit-plane format code " + std::to_string(format));
    }
    InsertPlane(scratch, nqx, nqy, a, n, bit);
  }
}

// a[i*n2] for i < n: the first (n+1)/2 values go to the even places, the rest to the odd ones.
void Unshuffle(int64_t* a, int64_t n, int64_t n2, std::vector<int64_t>& tmp) {
  const int64_t half = (n + 1) / 2;
  tmp.assign(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) tmp[static_cast<size_t>(i)] = a[i * n2];
  for (int64_t i = 0; i < half; ++i) a[2 * i * n2] = tmp[static_cast<size_t>(i)];
  for (int64_t i = 0; half + i < n; ++i) a[(2 * i + 1) * n2] = tmp[static_cast<size_t>(half + i)];
}

// The inverse H-transform of the nx x ny coefficients (row stride ny), in place.
void InverseH(int64_t* a, int64_t nx, int64_t ny) {
  const int64_t nmax = std::max(nx, ny);
  const int log2n = CeilLog2(nmax);
  if (log2n < 1) return;  // a single pixel: its value is the sum
  std::vector<int64_t> tmp;
  int shift = 1;
  int64_t bit0 = int64_t{1} << (log2n - 1), bit1 = bit0 << 1, bit2 = bit0 << 2;
  int64_t mask0 = -bit0, mask1 = mask0 * 2, mask2 = mask0 * 4;
  int64_t prnd0 = bit0 >> 1, prnd1 = bit1 >> 1, prnd2 = bit2 >> 1;
  int64_t nrnd0 = prnd0 - 1, nrnd1 = prnd1 - 1, nrnd2 = prnd2 - 1;
  auto round_to = [](int64_t v, int64_t p, int64_t m, int64_t mask) { return (v + (v >= 0 ? p : m)) & mask; };
  a[0] = round_to(a[0], prnd2, nrnd2, mask2);
  int64_t nxtop = 1, nytop = 1, nxf = nx, nyf = ny, c = int64_t{1} << log2n;
  for (int k = log2n - 1; k >= 0; --k) {
    c >>= 1;
    nxtop <<= 1, nytop <<= 1;
    if (nxf <= c) --nxtop; else nxf -= c;
    if (nyf <= c) --nytop; else nyf -= c;
    if (k == 0) nrnd0 = 0, shift = 2;
    for (int64_t i = 0; i < nxtop; ++i) Unshuffle(a + ny * i, nytop, 1, tmp);
    for (int64_t j = 0; j < nytop; ++j) Unshuffle(a + j, nxtop, ny, tmp);
    const int64_t oddx = nxtop % 2, oddy = nytop % 2;
    int64_t i = 0;
    for (; i < nxtop - oddx; i += 2) {
      int64_t s00 = ny * i, s10 = s00 + ny;
      for (int64_t j = 0; j < nytop - oddy; j += 2, s00 += 2, s10 += 2) {
        int64_t h0 = a[s00], hx = a[s10], hy = a[s00 + 1], hc = a[s10 + 1];
        hx = round_to(hx, prnd1, nrnd1, mask1);
        hy = round_to(hy, prnd1, nrnd1, mask1);
        hc = round_to(hc, prnd0, nrnd0, mask0);
        const int64_t lowbit0 = hc & bit0;
        hx = hx >= 0 ? hx - lowbit0 : hx + lowbit0;
        hy = hy >= 0 ? hy - lowbit0 : hy + lowbit0;
        const int64_t lowbit1 = (hc ^ hx ^ hy) & bit1;
        h0 = h0 >= 0 ? h0 + lowbit0 - lowbit1 : h0 + (lowbit0 == 0 ? lowbit1 : lowbit0 - lowbit1);
        a[s10 + 1] = (h0 + hx + hy + hc) >> shift;
        a[s10] = (h0 + hx - hy - hc) >> shift;
        a[s00 + 1] = (h0 - hx + hy - hc) >> shift;
        a[s00] = (h0 - hx - hy + hc) >> shift;
      }
      if (oddy) {
        int64_t h0 = a[s00], hx = round_to(a[s10], prnd1, nrnd1, mask1);
        const int64_t lowbit1 = hx & bit1;
        h0 = h0 >= 0 ? h0 - lowbit1 : h0 + lowbit1;
        a[s10] = (h0 + hx) >> shift;
        a[s00] = (h0 - hx) >> shift;
      }
    }
    if (oddx) {
      int64_t s00 = ny * i;
      int64_t j = 0;
      for (; j < nytop - oddy; j += 2, s00 += 2) {
        int64_t h0 = a[s00], hy = round_to(a[s00 + 1], prnd1, nrnd1, mask1);
        const int64_t lowbit1 = hy & bit1;
        h0 = h0 >= 0 ? h0 - lowbit1 : h0 + lowbit1;
        a[s00 + 1] = (h0 + hy) >> shift;
        a[s00] = (h0 - hy) >> shift;
      }
      if (oddy) a[s00] = a[s00] >> shift;
    }
    bit2 = bit1, bit1 = bit0, bit0 >>= 1;
    mask1 = mask0, mask0 >>= 1;
    prnd1 = prnd0, prnd0 >>= 1;
    nrnd1 = nrnd0, nrnd0 = prnd0 - 1;
  }
}

}  // namespace

void HcompressDecode(const uint8_t* src, size_t size, bool narrow, int64_t* out, int64_t count) {
  Bits in(src, size);
  if (in.Bytes(2) != 0xDD99) Corrupt("no HCOMPRESS magic code");
  const int64_t nx = static_cast<int32_t>(in.Bytes(4)), ny = static_cast<int32_t>(in.Bytes(4));
  const int64_t scale = static_cast<int32_t>(in.Bytes(4));
  if (nx <= 0 || ny <= 0 || nx * ny != count)
    Corrupt("its size " + std::to_string(nx) + " x " + std::to_string(ny) + " is not the tile's " + std::to_string(count) + " pixels");
  int64_t sum = static_cast<int64_t>(in.Bytes(8));
  if (narrow) sum = static_cast<int32_t>(sum);  // CFITSIO's 32-bit decoder keeps an int
  int planes[3];
  for (int& p : planes) {
    p = static_cast<int>(in.Bytes(1));
    if (p > 62) Corrupt(std::to_string(p) + " bit planes");
  }
  std::fill(out, out + count, 0);
  const int64_t nx2 = (nx + 1) / 2, ny2 = (ny + 1) / 2;
  DecodeQuadrant(in, out, ny, nx2, ny2, planes[0]);
  DecodeQuadrant(in, out + ny2, ny, nx2, ny / 2, planes[1]);
  DecodeQuadrant(in, out + ny * nx2, ny, nx / 2, ny2, planes[1]);
  DecodeQuadrant(in, out + ny * nx2 + ny2, ny, nx / 2, ny / 2, planes[2]);
  if (in.Read(4) != 0) Corrupt("no end code after the bit planes");
  in.AlignToByte();
  for (int64_t i = 0; i < count; ++i)
    if (out[i] && in.Bit()) out[i] = -out[i];
  out[0] = sum;
  // Bounded coefficients keep the transform's sums inside 64 bits (valid streams are far below).
  constexpr int64_t kLimit = int64_t{1} << 60;
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = out[i];
    if (scale > 1 && __builtin_mul_overflow(v, scale, &v)) Corrupt("coefficients beyond 64 bits");
    if (v > kLimit || v < -kLimit) Corrupt("coefficients beyond 2^60");
    out[i] = v;
  }
  InverseH(out, nx, ny);
}

}  // namespace sluice::kernels
