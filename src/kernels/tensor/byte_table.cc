#include "kernels/tensor/byte_table.h"

#include <immintrin.h>

namespace sluice::kernels {
namespace {

void MapBytesScalar(const uint8_t* src, const uint8_t* table, uint8_t* dst, size_t n) {
  for (size_t k = 0; k < n; ++k) dst[k] = table[src[k]];
}

void MapBytesInterleavedScalar(const uint8_t* src, const uint8_t* tables, int channels, uint8_t* dst, size_t n) {
  const auto c_n = static_cast<size_t>(channels);
  size_t k = 0;
  for (; k + c_n <= n; k += c_n)
    for (size_t c = 0; c < c_n; ++c) dst[k + c] = tables[c * 256 + src[k + c]];
  for (size_t c = 0; k < n; ++k, ++c) dst[k] = tables[c * 256 + src[k]];
}

#if defined(__x86_64__) && defined(__GNUC__)
#define SLUICE_BYTE_TABLE_VBMI 1
#define SLUICE_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// The table's 256 bytes in four registers: permutex2var(t0, idx, t1) looks up idx's low 7 bits in
// entries 0..127, the same with (t2, t3) in 128..255, and idx's top bit picks one of the two.
struct Table512 {
  __m512i t0, t1, t2, t3;
};

SLUICE_VBMI inline Table512 LoadTable(const uint8_t* table) {
  return {_mm512_loadu_si512(table), _mm512_loadu_si512(table + 64), _mm512_loadu_si512(table + 128),
          _mm512_loadu_si512(table + 192)};
}

SLUICE_VBMI inline __m512i Lookup(const Table512& t, __m512i idx) {
  const __m512i lo = _mm512_permutex2var_epi8(t.t0, idx, t.t1);
  const __m512i hi = _mm512_permutex2var_epi8(t.t2, idx, t.t3);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
}

SLUICE_VBMI void MapBytesVbmi(const uint8_t* src, const uint8_t* table, uint8_t* dst, size_t n) {
  const Table512 t = LoadTable(table);
  size_t k = 0;
  for (; k + 128 <= n; k += 128) {
    const __m512i a = _mm512_loadu_si512(src + k), b = _mm512_loadu_si512(src + k + 64);
    _mm512_storeu_si512(dst + k, Lookup(t, a));
    _mm512_storeu_si512(dst + k + 64, Lookup(t, b));
  }
  for (; k < n; k += 64) {
    const size_t left = n - k;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    _mm512_mask_storeu_epi8(dst + k, m, Lookup(t, _mm512_maskz_loadu_epi8(m, src + k)));
  }
}

// Channels of interleaved pixels: byte k of the image uses table k % C. A 64-byte vector starting
// at image byte k begins with channel k % C, so the lane -> channel masks repeat with period C
// vectors; per vector, each channel's table is looked up and blended in by its mask.
SLUICE_VBMI void MapBytesInterleavedVbmi(const uint8_t* src, const uint8_t* tables, int channels, uint8_t* dst,
                                         size_t n) {
  const auto c_n = static_cast<size_t>(channels);
  Table512 t[4];
  for (size_t c = 0; c < c_n; ++c) t[c] = LoadTable(tables + c * 256);
  // masks[phase][c]: the lanes of channel c in a vector whose first byte is channel `phase`.
  __mmask64 masks[4][4] = {};
  for (size_t phase = 0; phase < c_n; ++phase)
    for (unsigned lane = 0; lane < 64; ++lane) masks[phase][(phase + lane) % c_n] |= __mmask64{1} << lane;
  size_t phase = 0;
  const size_t step = 64 % c_n;
  for (size_t k = 0; k < n; k += 64) {
    const size_t left = n - k;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    const __m512i idx = _mm512_maskz_loadu_epi8(m, src + k);
    __m512i out = Lookup(t[0], idx);
    for (size_t c = 1; c < c_n; ++c) out = _mm512_mask_blend_epi8(masks[phase][c], out, Lookup(t[c], idx));
    _mm512_mask_storeu_epi8(dst + k, m, out);
    phase += step;
    if (phase >= c_n) phase -= c_n;
  }
}

bool HasVbmi() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vbmi");
  return has;
}
#else
bool HasVbmi() { return false; }
#endif

}  // namespace

bool MapBytesIsVectorized() { return HasVbmi(); }

void MapBytes(const uint8_t* src, const uint8_t table[256], uint8_t* dst, size_t n) {
#ifdef SLUICE_BYTE_TABLE_VBMI
  if (n >= 64 && HasVbmi()) return MapBytesVbmi(src, table, dst, n);
#endif
  MapBytesScalar(src, table, dst, n);
}

void MapBytesInterleaved(const uint8_t* src, const uint8_t* tables, int channels, uint8_t* dst, size_t n) {
  if (channels == 1) return MapBytes(src, tables, dst, n);
#ifdef SLUICE_BYTE_TABLE_VBMI
  if (channels >= 2 && channels <= 4 && n >= 64 && HasVbmi())
    return MapBytesInterleavedVbmi(src, tables, channels, dst, n);
#endif
  MapBytesInterleavedScalar(src, tables, channels, dst, n);
}

}  // namespace sluice::kernels
