#include <sluice/dtype.h>

#include <algorithm>
#include <cctype>

namespace sluice {

std::string_view ToString(DType t) {
  switch (t) {
    case DType::kUInt8: return "uint8";
    case DType::kInt8: return "int8";
    case DType::kUInt16: return "uint16";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFloat16: return "float16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kBool: return "bool";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
  }
  return "unknown";
}

std::optional<DType> ParseDType(std::string_view name) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s.rfind("types.", 0) == 0) s = s.substr(6);  // "types.FLOAT" as DALI prints it
  if (s == "uint8" || s == "u8") return DType::kUInt8;
  if (s == "int8" || s == "i8") return DType::kInt8;
  if (s == "uint16") return DType::kUInt16;
  if (s == "uint32") return DType::kUInt32;
  if (s == "uint64") return DType::kUInt64;
  if (s == "int16") return DType::kInt16;
  if (s == "int32" || s == "int") return DType::kInt32;
  if (s == "int64") return DType::kInt64;
  if (s == "float16" || s == "half" || s == "f16") return DType::kFloat16;
  if (s == "float32" || s == "float" || s == "f32") return DType::kFloat32;
  if (s == "float64" || s == "double" || s == "f64") return DType::kFloat64;
  if (s == "bool") return DType::kBool;
  return std::nullopt;
}

float16::float16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) {  // inf or nan
    bits = static_cast<uint16_t>(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (mag >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (mag < 0x38800000u) {  // subnormal half (or zero)
    if (mag < 0x33000000u) { bits = static_cast<uint16_t>(sign); return; }
    const uint32_t exp = mag >> 23;
    uint32_t mant = (mag & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    bits = static_cast<uint16_t>(sign | half);
    return;
  }
  // normal: rebias exponent, round mantissa to 10 bits (nearest even)
  uint32_t h = ((mag >> 13) - ((127 - 15) << 10));
  const uint32_t rem = mag & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  bits = static_cast<uint16_t>(sign | h);
}

float16::operator float() const {
  const uint32_t sign = (bits & 0x8000u) << 16;
  const uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
      x = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ffu) << 13;
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | (exp + 127 - 15) << 23 | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace sluice
