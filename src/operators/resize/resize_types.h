// The element types of the resize family (resize, resize_crop_mirror, tensor_resize and the fused
// resize + crop_mirror_normalize), as DALI's ResizeBase::SetupResize: uint8, int16, uint16 and
// float32 in; out the input's type or float32. Sluice also keeps its float32 -> uint8 (rounded,
// saturated). int16 and uint16 run on the CPU backend only.
#pragma once
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/tensor_list.h"
#include "operators/operator.h"
#include "sluice/dtype.h"

namespace sluice {

// The schema's input types of the resize family.
inline std::vector<DType> ResizeInputTypes() { return {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32}; }

// Whether `in` may be resized to `out` (see above).
inline bool ResizeTypesSupported(DType in, DType out) {
  return out == in || out == DType::kFloat32 || (in == DType::kFloat32 && out == DType::kUInt8);
}

// Throws op's error naming `dtype` when the pair is not supported.
inline void CheckResizeTypes(const Operator& op, DType in, DType out) {
  if (!ResizeTypesSupported(in, out))
    op.ThrowArgError("dtype", "must be the input's type (" + std::string(ToString(in)) + ") or float32, got " +
                                  std::string(ToString(out)));
}

// run(src, dst) with typed pointers for every pair ResizeTypesSupported accepts (the pair is
// checked in Setup; anything else reaches the float32 input branch).
template <typename Run>
void VisitResizeTypes(const void* in, DType in_type, void* out, DType out_type, Run&& run) {
  auto same_or_float = [&](const auto* src) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    if (out_type == DType::kFloat32) run(src, static_cast<float*>(out));
    else run(src, static_cast<T*>(out));
  };
  switch (in_type) {
    case DType::kUInt8: return same_or_float(static_cast<const uint8_t*>(in));
    case DType::kInt16: return same_or_float(static_cast<const int16_t*>(in));
    case DType::kUInt16: return same_or_float(static_cast<const uint16_t*>(in));
    default:
      if (out_type == DType::kUInt8) run(static_cast<const float*>(in), static_cast<uint8_t*>(out));
      else run(static_cast<const float*>(in), static_cast<float*>(out));
  }
}

// The same with sample i of `in` and `out`.
template <typename Run>
void VisitResizeTypes(const TensorList& in, TensorList& out, int i, Run&& run) {
  VisitResizeTypes(in.raw_sample(i), in.dtype(), out.raw_mutable_sample(i), out.dtype(), std::forward<Run>(run));
}

}  // namespace sluice
