// Internal per-format entry points used by image_decoder.cc. Not a public API.
#pragma once
#include <cstdint>
#include <span>

#include "kernels/decode/image_decoder.h"
#include "kernels/decode/pixel_convert.h"

namespace sluice::kernels::decode_detail {

// A whole decoded image in per-thread scratch (slot 0), valid until the next decode on this thread.
struct NativeImage {
  const uint8_t* data = nullptr;
  int width = 0, height = 0;
  Layout layout = Layout::kRGB;
};

ImageInfo PeekJpeg(std::span<const uint8_t> data);
// Decodes plan's window (stored coordinates, chosen scale), converts and orients it into out.
void DecodeJpeg(std::span<const uint8_t> data, const ImageInfo& info, const DecodePlan& plan,
                const DecodeParams& params, uint8_t* out);

ImageInfo PeekPng(std::span<const uint8_t> data);
NativeImage DecodePng(std::span<const uint8_t> data, const ImageInfo& info);

ImageInfo PeekWebP(std::span<const uint8_t> data);
NativeImage DecodeWebP(std::span<const uint8_t> data, const ImageInfo& info);

ImageInfo PeekBmp(std::span<const uint8_t> data);
NativeImage DecodeBmp(std::span<const uint8_t> data, const ImageInfo& info);

ImageInfo PeekPnm(std::span<const uint8_t> data);
NativeImage DecodePnm(std::span<const uint8_t> data, const ImageInfo& info);

}  // namespace sluice::kernels::decode_detail
