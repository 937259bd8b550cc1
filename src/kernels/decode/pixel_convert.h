// Internal helpers of the decoders: per-row pixel layout conversion and EXIF orientation.
// Not part of the kernels' public API; all functions are pure and reentrant.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/decode/image_decoder.h"

namespace sluice::kernels::decode_detail {

// Interleaved 8-bit pixel layouts a decoder produces or a caller asks for.
enum class Layout : uint8_t { kGray, kGrayAlpha, kRGB, kRGBA, kBGR, kYCbCr, kCMYK, kCMYKInverted };
int Channels(Layout l);

// The concrete layout for `out` given the image's native channel count (1..4).
Layout OutputLayout(OutputColor out, int native_channels);

// Converts n pixels. Supported sources: gray, gray+alpha, RGB, RGBA, CMYK, inverted (Adobe) CMYK,
// and identity for any layout. RGB->gray/YCbCr use libjpeg's BT.601 fixed-point constants, so a
// gray image round-trips exactly.
void ConvertPixels(const uint8_t* src, Layout src_layout, uint8_t* dst, Layout dst_layout, size_t n);

// Writes the EXIF-oriented version of a stored h x w x c image to dst (extents swap for 5..8).
void ApplyOrientation(const uint8_t* src, int h, int w, int c, int orientation, uint8_t* dst);

// Maps a window of the oriented image to the stored image (inverse of ApplyOrientation).
CropWindow OrientedToStored(const CropWindow& r, int stored_w, int stored_h, int orientation);

// Per-thread growable scratch buffers; `slot` separates simultaneous uses within one call.
uint8_t* Scratch(int slot, size_t bytes);

// EXIF orientation from a JPEG's APP1 "Exif" segment; 1 when absent or malformed.
int ParseJpegExifOrientation(const uint8_t* data, size_t size);

}  // namespace sluice::kernels::decode_detail
