// A table lookup per byte: dst[k] = table[src[k]], the inner loop of every uint8 -> uint8 point
// operation that is evaluated once per value and then looked up (arithmetic expressions of one
// uint8 tensor, the colour operators' tables, equalize).
// On CPUs with AVX-512 VBMI the 256-entry table lives in four registers and 64 bytes are mapped
// per four instructions (two two-register permutes and a blend on the index's top bit); elsewhere
// a scalar loop. Both give the same bytes. src and dst may be the same buffer.
// Thread-safety: reentrant.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

void MapBytes(const uint8_t* src, const uint8_t table[256], uint8_t* dst, size_t n);

// The same with one table per channel of interleaved pixels: dst[k] = tables[k % channels][src[k]]
// (tables: channels x 256 bytes), any channel count (the vector path takes 1 to 4).
void MapBytesInterleaved(const uint8_t* src, const uint8_t* tables, int channels, uint8_t* dst, size_t n);

// Whether MapBytes runs the vector path on this CPU (reported by tests and benchmarks).
bool MapBytesIsVectorized();

}  // namespace sluice::kernels
