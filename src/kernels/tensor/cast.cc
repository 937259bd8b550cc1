#include "kernels/tensor/cast.h"

#include <cstring>

#include "kernels/tensor/cast_hwy.h"
#include "sluice/error.h"

namespace sluice::kernels {

void Cast(const void* in, DType in_type, void* out, DType out_type, size_t n) {
  if (in_type == out_type) {
    if (in != out) std::memmove(out, in, n * SizeOf(in_type));
    return;
  }
  if (in_type == DType::kFloat32 && out_type == DType::kUInt8) {  // the common float -> image cast
    cast_detail::FloatToU8(static_cast<const float*>(in), static_cast<uint8_t*>(out), n);
    return;
  }
  VisitDType(in_type, [&](auto in_tag) {
    using From = decltype(in_tag);
    VisitDType(out_type, [&](auto out_tag) {
      using To = decltype(out_tag);
      const From* s = static_cast<const From*>(in);
      To* d = static_cast<To*>(out);
      for (size_t i = 0; i < n; ++i) d[i] = CastValue<To>(s[i]);
    });
  });
}

}  // namespace sluice::kernels
