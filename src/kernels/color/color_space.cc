#include "kernels/color/color_space.h"

#include <cstring>
#include <type_traits>

#include "kernels/color/color_space_hwy.h"
#include "kernels/tensor/cast.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// The constants of one element type: `bias` is what DALI calls bias_scale (256 for uint8: the
// offsets 16 and 128; 1 for float: 0.0625 and 0.5).
template <typename T>
struct Range {
  static constexpr float bias = std::is_same_v<T, float> ? 1.0f : 256.0f;
};

template <typename T>
inline T Store(float v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else return ConvertSaturate<T>(v);
}

struct Rgb {
  float r, g, b;
};

template <typename T>
inline Rgb LoadRgb(const T* p, bool bgr) {
  return bgr ? Rgb{static_cast<float>(p[2]), static_cast<float>(p[1]), static_cast<float>(p[0])}
             : Rgb{static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])};
}

template <typename T>
inline void StoreRgb(T* p, float r, float g, float b, bool bgr) {
  p[bgr ? 2 : 0] = Store<T>(r);
  p[1] = Store<T>(g);
  p[bgr ? 0 : 2] = Store<T>(b);
}

template <typename T>
void Convert(const T* in, ColorSpace from, T* out, ColorSpace to, size_t pixels) {
  constexpr float kY = 0.0625f * Range<T>::bias, kC = 0.5f * Range<T>::bias;
  const int cin = ColorSpaceChannels(from), cout = ColorSpaceChannels(to);
  const bool in_rgb = from == ColorSpace::kRGB || from == ColorSpace::kBGR;
  const bool out_rgb = to == ColorSpace::kRGB || to == ColorSpace::kBGR;
  const bool in_bgr = from == ColorSpace::kBGR, out_bgr = to == ColorSpace::kBGR;
  if (from == to) {
    std::memcpy(out, in, pixels * static_cast<size_t>(cin) * sizeof(T));
    return;
  }
  for (size_t i = 0; i < pixels; ++i, in += cin, out += cout) {
    if (in_rgb) {
      const Rgb c = LoadRgb(in, in_bgr);
      if (out_rgb) {
        StoreRgb(out, c.r, c.g, c.b, out_bgr);
      } else if (to == ColorSpace::kGray) {
        out[0] = Store<T>(0.299f * c.r + 0.587f * c.g + 0.114f * c.b);
      } else {
        out[0] = Store<T>(0.25678823529f * c.r + 0.50412941176f * c.g + 0.09790588235f * c.b + kY);
        out[1] = Store<T>(-0.14822289945f * c.r - 0.29099278682f * c.g + 0.43921568627f * c.b + kC);
        out[2] = Store<T>(0.43921568627f * c.r - 0.36778831435f * c.g - 0.07142737192f * c.b + kC);
      }
    } else if (from == ColorSpace::kGray) {
      const float v = static_cast<float>(in[0]);
      if (out_rgb) {
        out[0] = out[1] = out[2] = in[0];
      } else {  // YCbCr
        out[0] = Store<T>(v * (219.0f / 255.0f) + kY);
        out[1] = out[2] = Store<T>(kC * (std::is_same_v<T, float> ? 1.0f : 255.0f / 256.0f));
      }
    } else {  // YCbCr
      const float y = static_cast<float>(in[0]), cb = static_cast<float>(in[1]) - kC,
                  cr = static_cast<float>(in[2]) - kC;
      const float ys = (y - kY) * (255.0f / 219.0f);
      if (to == ColorSpace::kGray) {
        out[0] = Store<T>(ys);
      } else {
        StoreRgb(out, ys + 1.5960267848f * cr, ys - 0.39176228842f * cb - 0.81296764538f * cr, ys + 2.0172321417f * cb,
                 out_bgr);
      }
    }
  }
}

}  // namespace

int ColorSpaceChannels(ColorSpace cs) { return cs == ColorSpace::kGray ? 1 : 3; }

const char* ColorSpaceName(ColorSpace cs) {
  switch (cs) {
    case ColorSpace::kRGB: return "RGB";
    case ColorSpace::kBGR: return "BGR";
    case ColorSpace::kYCbCr: return "YCbCr";
    case ColorSpace::kGray: return "GRAY";
  }
  return "?";
}

std::optional<ColorSpace> ParseColorSpace(const std::string& name) {
  for (ColorSpace cs : {ColorSpace::kRGB, ColorSpace::kBGR, ColorSpace::kYCbCr, ColorSpace::kGray})
    if (name == ColorSpaceName(cs)) return cs;
  return std::nullopt;
}

bool ColorSpaceKernelSupports(DType t) { return t == DType::kUInt8 || t == DType::kFloat32; }

void ConvertColorSpace(const void* in, ColorSpace from, void* out, ColorSpace to, DType type, size_t pixels) {
  // uint8 RGB/BGR -> GRAY/YCbCr, the common conversions: Highway rows, bit-identical to Convert().
  if (type == DType::kUInt8 && (from == ColorSpace::kRGB || from == ColorSpace::kBGR) &&
      (to == ColorSpace::kGray || to == ColorSpace::kYCbCr)) {
    const auto* src = static_cast<const uint8_t*>(in);
    auto* dst = static_cast<uint8_t*>(out);
    if (to == ColorSpace::kGray) color_detail::RgbToGrayU8(src, dst, pixels, from == ColorSpace::kBGR);
    else color_detail::RgbToYCbCrU8(src, dst, pixels, from == ColorSpace::kBGR);
    return;
  }
  if (type == DType::kUInt8)
    Convert(static_cast<const uint8_t*>(in), from, static_cast<uint8_t*>(out), to, pixels);
  else if (type == DType::kFloat32)
    Convert(static_cast<const float*>(in), from, static_cast<float*>(out), to, pixels);
  else
    throw Error("color space conversion takes uint8 or float32, got " + std::string(ToString(type)));
}

}  // namespace sluice::kernels
