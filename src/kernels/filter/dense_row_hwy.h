// Internal: Highway rows of the dense filter (convolution.cc's Filter2D on interleaved images).
// Bit-identical to the generic path: float32 products, each then added in tap order, never fused.
#pragma once
#include <cstdint>

namespace sluice::kernels::filter_detail {

// One output row of a dense filter over n elements: 0 + w[0] * rows[0][e] + ... + w[taps-1] *
// rows[taps-1][e] (float32 products, each then added: the sums of convolution.cc's generic path),
// stored into acc, or, where out8 is not null, converted to uint8 as convolution.cc's StoreSat
// (NaN -> 0, round to nearest even, saturate) into out8 instead.
void DenseRow(const float* const* rows, const float* w, int taps, int64_t n, float* acc, uint8_t* out8);

}  // namespace sluice::kernels::filter_detail
