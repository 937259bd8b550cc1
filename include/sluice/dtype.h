// Element types of tensors. Part of the stable public API.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

enum class DType : uint8_t {
  kUInt8,
  kInt8,
  kUInt16,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kBool,
  // Added after kBool so that the earlier values (kept in checkpoints and tables) do not move.
  kUInt32,
  kUInt64,
};

inline constexpr int kNumDTypes = 12;

// Size in bytes of one element.
constexpr size_t SizeOf(DType t) {
  switch (t) {
    case DType::kUInt8: case DType::kInt8: case DType::kBool: return 1;
    case DType::kUInt16: case DType::kInt16: case DType::kFloat16: return 2;
    case DType::kInt32: case DType::kUInt32: case DType::kFloat32: return 4;
    case DType::kInt64: case DType::kUInt64: case DType::kFloat64: return 8;
  }
  return 0;
}

constexpr bool IsFloating(DType t) {
  return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

// Canonical lower-case names: "uint8", "float32", ... (DALI also accepts "float" for float32).
std::string_view ToString(DType t);
// Parses canonical names and the aliases DALI users write ("float", "FLOAT", "half", "double", "UINT8").
std::optional<DType> ParseDType(std::string_view name);

// IEEE 754 binary16 storage type; conversions round to nearest even.
struct float16 {
  uint16_t bits = 0;
  float16() = default;
  explicit float16(float f);
  explicit operator float() const;
};

// Maps C++ element types to DType.
template <typename T> struct TypeToDType;
template <> struct TypeToDType<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct TypeToDType<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct TypeToDType<uint16_t> { static constexpr DType value = DType::kUInt16; };
template <> struct TypeToDType<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct TypeToDType<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct TypeToDType<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct TypeToDType<float16> { static constexpr DType value = DType::kFloat16; };
template <> struct TypeToDType<float> { static constexpr DType value = DType::kFloat32; };
template <> struct TypeToDType<double> { static constexpr DType value = DType::kFloat64; };
template <> struct TypeToDType<bool> { static constexpr DType value = DType::kBool; };
template <> struct TypeToDType<uint32_t> { static constexpr DType value = DType::kUInt32; };
template <> struct TypeToDType<uint64_t> { static constexpr DType value = DType::kUInt64; };
template <typename T> inline constexpr DType kDTypeOf = TypeToDType<T>::value;

// Calls fn(T{}) with T the C++ type of `t`. A small constexpr dispatch instead of nested macros.
template <typename Fn>
decltype(auto) VisitDType(DType t, Fn&& fn) {
  switch (t) {
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kInt8: return fn(int8_t{});
    case DType::kUInt16: return fn(uint16_t{});
    case DType::kInt16: return fn(int16_t{});
    case DType::kInt32: return fn(int32_t{});
    case DType::kInt64: return fn(int64_t{});
    case DType::kFloat16: return fn(float16{});
    case DType::kFloat32: return fn(float{});
    case DType::kFloat64: return fn(double{});
    case DType::kBool: return fn(bool{});
    case DType::kUInt32: return fn(uint32_t{});
    case DType::kUInt64: return fn(uint64_t{});
  }
  return fn(uint8_t{});
}

}  // namespace sluice
