// Histogram equalization of uint8 channels, as DALI's CPU equalize (cv::equalizeHist per channel):
// with hist the channel's histogram, i0 its first non-empty bin and total its number of values,
//   lut[v] = round((cdf(v) - hist[i0]) * (255 / (total - hist[i0])))  (float32, as OpenCV)
// for v > i0, lut[i0] = 0; a channel with one value (hist[i0] == total) is left unchanged.
// Thread-safety: reentrant; Equalize allocates a few KiB of counters. In-place use (in == out) is allowed.
#pragma once
#include <cstdint>

namespace sluice::kernels {

// The equalizing table of `count` values read at `in[k * stride]`.
void EqualizeLut(const uint8_t* in, int64_t count, int64_t stride, uint8_t lut[256]);

// Equalizes each of the `channels` interleaved channels of `pixels` pixels independently
// (channels = 1: one plane, e.g. a GRAY image or one plane of a CHW image).
void Equalize(const uint8_t* in, uint8_t* out, int64_t pixels, int channels);

}  // namespace sluice::kernels
