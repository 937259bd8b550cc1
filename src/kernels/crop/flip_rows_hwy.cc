// Highway (dynamic dispatch) row reversal for flip: 16-byte blocks of the source, their bytes
// shuffled into reversed pixel order (flip_rows_hwy.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/crop/flip_rows_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/crop/flip_rows_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::flip_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
// Pixels of e bytes (1, 2, 4, 8): each 16-byte block reversed element-wise, blocks taken from the
// row's end. Two blocks per step: independent chains.
HWY_INLINE size_t ReverseElems(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t w, size_t e) {
  const hn::FixedTag<uint8_t, 16> d;
  // Byte i of a reversed block of e-byte elements comes from byte (16/e - 1 - i/e) * e + i%e.
  alignas(16) static constexpr uint8_t kMasks[4][16] = {
      {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
      {14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1},
      {12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3},
      {8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7}};
  const uint8_t* mask = kMasks[e == 1 ? 0 : e == 2 ? 1 : e == 4 ? 2 : 3];
  const auto m = hn::Load(d, mask);
  const size_t bytes = w * e;
  size_t o = 0;  // output byte
  for (; o + 32 <= bytes; o += 32) {
    const auto a = hn::LoadU(d, in + bytes - o - 16), b = hn::LoadU(d, in + bytes - o - 32);
    hn::StoreU(hn::TableLookupBytes(a, m), d, out + o);
    hn::StoreU(hn::TableLookupBytes(b, m), d, out + o + 16);
  }
  for (; o + 16 <= bytes; o += 16) hn::StoreU(hn::TableLookupBytes(hn::LoadU(d, in + bytes - o - 16), m), d, out + o);
  return o / e;
}

// RGB: 16 pixels (three 16-byte blocks) per step. Output block k gathers its bytes from the source
// blocks j with one shuffle each (lanes from another block are zero) and ORs them.
HWY_INLINE size_t ReverseRgb(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t w) {
  const hn::FixedTag<uint8_t, 16> d;
  // kRgbMasks[k][j]: output block k's bytes taken from source block j (0x80: from another block).
  // Output byte o is pixel 15 - o/3's channel o%3: source byte 3 * (15 - o/3) + o%3.
  static constexpr auto kRgbMasks = [] {
    struct Masks { alignas(16) uint8_t m[3][3][16]; } t{};
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 16; ++i) {
          const int o = 16 * k + i, src = 3 * (15 - o / 3) + o % 3;
          t.m[k][j][i] = src / 16 == j ? uint8_t(src % 16) : uint8_t(0x80);
        }
    return t;
  }();
  const auto& mask = kRgbMasks.m;
  hn::Vec<decltype(d)> m[3][3];
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 3; ++j) m[k][j] = hn::Load(d, mask[k][j]);
  size_t x = 0;
  for (; x + 16 <= w; x += 16) {
    const uint8_t* s = in + 3 * (w - x - 16);
    const auto a = hn::LoadU(d, s), b = hn::LoadU(d, s + 16), c = hn::LoadU(d, s + 32);
    uint8_t* o = out + 3 * x;
    // Output block 0 reads source blocks 1 and 2, block 1 all three, block 2 blocks 0 and 1.
    hn::StoreU(hn::Or(hn::TableLookupBytesOr0(b, m[0][1]), hn::TableLookupBytesOr0(c, m[0][2])), d, o);
    hn::StoreU(hn::Or(hn::Or(hn::TableLookupBytesOr0(a, m[1][0]), hn::TableLookupBytesOr0(b, m[1][1])),
                      hn::TableLookupBytesOr0(c, m[1][2])), d, o + 16);
    hn::StoreU(hn::Or(hn::TableLookupBytesOr0(a, m[2][0]), hn::TableLookupBytesOr0(b, m[2][1])), d, o + 32);
  }
  return x;
}
#endif

size_t ReverseRowVecImpl(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t w, size_t px) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
  switch (px) {
    case 1: case 2: case 4: case 8: return ReverseElems(in, out, w, px);
    case 3: return ReverseRgb(in, out, w);
    default: return 0;
  }
#else
  (void)in, (void)out, (void)w, (void)px;
  return 0;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::flip_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::flip_detail {
HWY_EXPORT(ReverseRowVecImpl);
size_t ReverseRowVec(const uint8_t* in, uint8_t* out, size_t w, size_t px) {
  return HWY_DYNAMIC_DISPATCH(ReverseRowVecImpl)(in, out, w, px);
}
}  // namespace sluice::kernels::flip_detail
#endif
