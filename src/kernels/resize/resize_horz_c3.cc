#include "kernels/resize/resize_horz_c3.h"

namespace sluice::kernels::resize_detail {

HorzC3Args HorzC3Table(const HorzArgs<uint8_t, int32_t, uint8_t>& a, HorzC3Scratch& s) {
  const int out_w = a.out_elems / 3;
  const int windows = (a.taps + 3) / 4;
  const int groups = out_w / 8;
  const size_t ne = size_t(a.out_elems);
  s.start.resize(size_t(out_w));
  for (int x = 0; x < out_w; ++x) s.start[size_t(x)] = a.offs[3 * x] / 3;
  // Tap k of pixel x, zero past the filter's taps.
  auto weight = [&](int x, int k) { return k < a.taps ? a.coef[size_t(k) * ne + 3 * size_t(x)] : 0; };
  s.table.resize(size_t(groups) * 4 * size_t(windows) * 64);
  s.group_ok.resize(size_t(groups));
  int16_t* t = s.table.data();
  for (int g = 0; g < groups; ++g) {
    bool ok = true;
    for (int x = 8 * g; x < 8 * g + 8; ++x)
      ok = ok && 3 * (int64_t(s.start[size_t(x)]) + 4 * (windows - 1)) + 16 <= a.in_elems && s.start[size_t(x)] >= 0;
    s.group_ok[size_t(g)] = ok;
    for (int i = 0; i < 4; ++i)
      for (int w = 0; w < windows; ++w)
        for (int q = 0; q < 2; ++q)
          for (int half = 0; half < 2; ++half, t += 16)
            for (int b = 0; b < 2; ++b) {  // block b: pixel kC3Lanes[i][b]
              const int x = 8 * g + kC3Lanes[i][b];
              const int k = 4 * w + 2 * q;
              int16_t pair[2];
              for (int e = 0; e < 2; ++e) {
                const int32_t v = weight(x, k + e);
                pair[e] = half == 0 ? int16_t(v & ((1 << kC3LowBits) - 1)) : int16_t(v >> kC3LowBits);
              }
              int16_t* lanes = t + 8 * b;
              for (int c = 0; c < 3; ++c) {
                lanes[2 * c] = pair[0];
                lanes[2 * c + 1] = pair[1];
              }
              lanes[6] = lanes[7] = 0;
            }
  }
  return HorzC3Args{a.in,      a.in_pitch, a.rows, s.start.data(), s.table.data(), s.group_ok.data(), windows, groups,
                    out_w,     a.offs,     a.coef, a.taps,         a.out_elems,    a.out,            a.out_pitch,
                    a.row_mask};
}

}  // namespace sluice::kernels::resize_detail
