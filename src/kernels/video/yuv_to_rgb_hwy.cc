// Highway (dynamic dispatch) rows of DaliYuvConverter (see yuv_to_rgb_hwy.h): one int32 lane per
// pixel, the 8- and 16-bit inputs widened, the results narrowed with saturation (DemoteTo) only where
// the scalar code clamps or the value already lies in range.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/video/yuv_to_rgb_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/video/yuv_to_rgb_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::video_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

size_t YuvRowTwoTapImpl(const uint8_t* HWY_RESTRICT luma, const int16_t* HWY_RESTRICT cb0,
                        const int16_t* HWY_RESTRICT cb1, const int16_t* HWY_RESTRICT cr0,
                        const int16_t* HWY_RESTRICT cr1, int t0, int t1, size_t n, const YuvRowCoeffs& c,
                        bool ycbcr, uint8_t* HWY_RESTRICT out) {
  const hn::ScalableTag<int32_t> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::Rebind<int16_t, decltype(d)> d16;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t N = hn::Lanes(d);
  const auto vt0 = hn::Set(d, t0), vt1 = hn::Set(d, t1);
  size_t x = 0;
  if (ycbcr) {  // yuv2planeX_8: ((1 << 18) + sum) >> 19, clipped to 8 bits (DemoteTo saturates)
    const auto round = hn::Set(d, 1 << 18);
    for (; x + N <= n; x += N) {
      const auto u = hn::Add(hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cb0 + x)), vt0),
                             hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cb1 + x)), vt1));
      const auto v = hn::Add(hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cr0 + x)), vt0),
                             hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cr1 + x)), vt1));
      const auto cb = hn::DemoteTo(d8, hn::ShiftRight<19>(hn::Add(round, u)));
      const auto cr = hn::DemoteTo(d8, hn::ShiftRight<19>(hn::Add(round, v)));
      hn::StoreInterleaved3(hn::LoadU(d8, luma + x), cb, cr, d8, out + 3 * x);
    }
    return x;
  }
  const auto centre = hn::Set(d, 128 << 19), y_offset = hn::Set(d, c.y_offset), cy = hn::Set(d, c.y);
  const auto y_round = hn::Set(d, 1 << 21);
  const auto v2r = hn::Set(du, static_cast<uint32_t>(c.v2r)), v2g = hn::Set(du, static_cast<uint32_t>(c.v2g));
  const auto u2g = hn::Set(du, static_cast<uint32_t>(c.u2g)), u2b = hn::Set(du, static_cast<uint32_t>(c.u2b));
  const auto zero = hn::Zero(d), max30 = hn::Set(d, (1 << 30) - 1);
  // av_clip_uintp2(a, 30) >> 22 of the wrapped uint32 sum read as int32: a byte.
  const auto to_byte = [&](hn::Vec<decltype(du)> sum) {
    const auto clipped = hn::Min(hn::Max(hn::BitCast(d, sum), zero), max30);
    return hn::DemoteTo(d8, hn::ShiftRight<22>(clipped));
  };
  for (; x + N <= n; x += N) {
    const auto u = hn::Add(hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cb0 + x)), vt0),
                           hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cb1 + x)), vt1));
    const auto v = hn::Add(hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cr0 + x)), vt0),
                           hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, cr1 + x)), vt1));
    // yuv2rgb_full_X: chroma floored to 19 bits around 0; luma 8-bit << 9. (y - offset) * cy
    // stays within int32 for every 8-bit luma; the chroma products may wrap, in uint32.
    const auto uu = hn::BitCast(du, hn::ShiftRight<10>(hn::Sub(u, centre)));
    const auto vv = hn::BitCast(du, hn::ShiftRight<10>(hn::Sub(v, centre)));
    const auto y9 = hn::ShiftLeft<9>(hn::PromoteTo(d, hn::LoadU(d8, luma + x)));
    const auto yy = hn::BitCast(du, hn::Add(hn::Mul(hn::Sub(y9, y_offset), cy), y_round));
    const auto r = hn::Add(yy, hn::Mul(vv, v2r));
    const auto g = hn::Add(hn::Add(yy, hn::Mul(vv, v2g)), hn::Mul(uu, u2g));
    const auto b = hn::Add(yy, hn::Mul(uu, u2b));
    hn::StoreInterleaved3(to_byte(r), to_byte(g), to_byte(b), d8, out + 3 * x);
  }
  return x;
}

size_t ChromaRowTwoTapImpl(const int32_t* HWY_RESTRICT wide, size_t wide_len, const int* HWY_RESTRICT p0,
                           const int* HWY_RESTRICT p1, const int* HWY_RESTRICT c0, const int* HWY_RESTRICT c1,
                           bool sorted, size_t n, int16_t* HWY_RESTRICT out) {
  const hn::ScalableTag<int32_t> d;
  const hn::Rebind<int16_t, decltype(d)> d16;
  const size_t N = hn::Lanes(d);
  const auto cap = hn::Set(d, (1 << 15) - 1);
  size_t x = 0;
  for (; x + N <= n; x += N) {
    const auto i0 = hn::LoadU(d, p0 + x), i1 = hn::LoadU(d, p1 + x);
    const auto base = static_cast<size_t>(p0[x]);
    hn::Vec<decltype(d)> s0, s1;
    if (sorted && static_cast<size_t>(p1[x + N - 1]) - base < N && base + N <= wide_len) {
      const auto window = hn::LoadU(d, wide + base), vbase = hn::Set(d, static_cast<int32_t>(base));
      s0 = hn::TableLookupLanes(window, hn::IndicesFromVec(d, hn::Sub(i0, vbase)));
      s1 = hn::TableLookupLanes(window, hn::IndicesFromVec(d, hn::Sub(i1, vbase)));
    } else {
      s0 = hn::GatherIndex(d, wide, i0);
      s1 = hn::GatherIndex(d, wide, i1);
    }
    const auto sum = hn::Add(hn::Mul(s0, hn::LoadU(d, c0 + x)), hn::Mul(s1, hn::LoadU(d, c1 + x)));
    hn::StoreU(hn::DemoteTo(d16, hn::Min(hn::ShiftRight<7>(sum), cap)), d16, out + x);
  }
  return x;
}

void WidenRowImpl(const uint8_t* HWY_RESTRICT src, size_t n, int32_t* HWY_RESTRICT wide) {
  const hn::ScalableTag<int32_t> d;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::PromoteTo(d, hn::LoadU(d8, src + i)), d, wide + i);
  for (; i < n; ++i) wide[i] = src[i];
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::video_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::video_detail {
HWY_EXPORT(YuvRowTwoTapImpl);
HWY_EXPORT(ChromaRowTwoTapImpl);
HWY_EXPORT(WidenRowImpl);
size_t ChromaRowTwoTap(const int32_t* wide, size_t wide_len, const int* p0, const int* p1, const int* c0,
                       const int* c1, bool sorted, size_t n, int16_t* out) {
  return HWY_DYNAMIC_DISPATCH(ChromaRowTwoTapImpl)(wide, wide_len, p0, p1, c0, c1, sorted, n, out);
}
void WidenRow(const uint8_t* src, size_t n, int32_t* wide) { HWY_DYNAMIC_DISPATCH(WidenRowImpl)(src, n, wide); }
size_t YuvRowTwoTap(const uint8_t* luma, const int16_t* cb0, const int16_t* cb1, const int16_t* cr0,
                    const int16_t* cr1, int t0, int t1, size_t n, const YuvRowCoeffs& c, bool ycbcr,
                    uint8_t* out) {
  return HWY_DYNAMIC_DISPATCH(YuvRowTwoTapImpl)(luma, cb0, cb1, cr0, cr1, t0, t1, n, c, ycbcr, out);
}
}  // namespace sluice::kernels::video_detail
#endif
