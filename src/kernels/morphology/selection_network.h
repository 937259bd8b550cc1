// Internal: the compare-exchange network of the median filter, built at compile time where the
// window size is known (3x3, 5x5) and at run time otherwise. The network places the element of rank
// k of n values (n <= 64) at position k: the known 19-comparator median of 9 for n = 9, else
// Batcher's odd-even merge sort over the next power of two,
// the comparators touching positions >= n dropped (those would hold +max, which never moves) and
// those that cannot reach position k pruned (backwards from k). Each pair (a[i], b[i]) puts the
// smaller value at a[i] and the larger at b[i].
#pragma once
#include <cstdint>

namespace sluice::kernels::morph_detail {

struct SelectionNet {
  static constexpr int kMaxPairs = 600;  // Batcher's network for 64 values has 543 comparators
  uint8_t a[kMaxPairs] = {}, b[kMaxPairs] = {};
  // Whether the comparator's minimum (to a) / maximum (to b) is read later: a comparator whose
  // other output is dead is one min or one max.
  bool min_live[kMaxPairs] = {}, max_live[kMaxPairs] = {};
  int size = 0;
};

constexpr SelectionNet MakeSelectionNetwork(int n, int k) {
  SelectionNet all, kept;
  int p2 = 1;
  while (p2 < n) p2 *= 2;
  if (n == 9 && k == 4) {
    // The median of 9 in 19 comparators (Paeth; Devillard's opt_med9), as OpenCV's 3x3 median.
    constexpr uint8_t a9[19] = {1, 4, 7, 0, 3, 6, 1, 4, 7, 0, 5, 4, 3, 1, 2, 4, 2, 4, 2};
    constexpr uint8_t b9[19] = {2, 5, 8, 1, 4, 7, 2, 5, 8, 3, 8, 7, 6, 4, 5, 7, 4, 6, 4};
    for (int c = 0; c < 19; ++c) {
      all.a[all.size] = a9[c];
      all.b[all.size] = b9[c];
      ++all.size;
    }
    p2 = 1;  // skip Batcher's construction below
  }
  // Batcher's odd-even merge sort (Knuth's iterative form), comparators inside [0, n) only.
  for (int p = 1; p < p2; p *= 2)
    for (int q = p; q >= 1; q /= 2)
      for (int j = q % p; j + q < p2; j += 2 * q)
        for (int i = 0; i < q && i + j + q < p2; ++i)
          if ((i + j) / (2 * p) == (i + j + q) / (2 * p) && i + j + q < n) {
            all.a[all.size] = uint8_t(i + j);
            all.b[all.size] = uint8_t(i + j + q);
            ++all.size;
          }
  bool needed[64] = {};
  needed[k] = true;
  SelectionNet rev;
  for (int c = all.size - 1; c >= 0; --c) {
    const int a = all.a[c], b = all.b[c];
    if (!needed[a] && !needed[b]) continue;
    rev.min_live[rev.size] = needed[a];
    rev.max_live[rev.size] = needed[b];
    needed[a] = needed[b] = true;
    rev.a[rev.size] = uint8_t(a);
    rev.b[rev.size] = uint8_t(b);
    ++rev.size;
  }
  for (int c = 0; c < rev.size; ++c) {
    kept.a[c] = rev.a[rev.size - 1 - c];
    kept.b[c] = rev.b[rev.size - 1 - c];
    kept.min_live[c] = rev.min_live[rev.size - 1 - c];
    kept.max_live[c] = rev.max_live[rev.size - 1 - c];
  }
  kept.size = rev.size;
  return kept;
}

}  // namespace sluice::kernels::morph_detail
