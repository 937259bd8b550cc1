#include "kernels/color/lookup_table.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "kernels/tensor/cast.h"
#include "sluice/error.h"

namespace sluice::kernels {

bool LookupTable::SupportsInput(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kUInt16 || t == DType::kInt16 ||
         t == DType::kInt32 || t == DType::kInt64;
}

bool LookupTable::SupportsOutput(DType t) { return t != DType::kFloat16 && t != DType::kBool; }

LookupTable::LookupTable(const std::vector<int64_t>& keys, const std::vector<double>& values, double default_value,
                         DType out_type)
    : out_type_(out_type) {
  if (keys.size() != values.size())
    throw Error("keys and values differ in length (" + std::to_string(keys.size()) + " and " +
                std::to_string(values.size()) + ")");
  if (!SupportsOutput(out_type)) throw Error("lookup_table cannot output " + std::string(ToString(out_type)));
  int64_t max_key = -1;
  for (int64_t k : keys) {
    if (k < 0 || k > kLookupTableMaxKey)
      throw Error("key " + std::to_string(k) + " is outside [0, " + std::to_string(kLookupTableMaxKey) + "]");
    if (k > max_key) max_key = k;
  }
  size_ = static_cast<size_t>(max_key + 1);
  std::vector<double> table(size_ + 1, default_value);
  for (size_t j = 0; j < keys.size(); ++j) table[static_cast<size_t>(keys[j])] = values[j];  // the last wins
  table_.resize((size_ + 1) * SizeOf(out_type));
  VisitDType(out_type, [&](auto tag) {
    using Out = decltype(tag);
    if constexpr (!std::is_same_v<Out, float16> && !std::is_same_v<Out, bool>) {
      Out* dst = reinterpret_cast<Out*>(table_.data());
      for (size_t k = 0; k <= size_; ++k) {
        if constexpr (std::is_floating_point_v<Out>) dst[k] = static_cast<Out>(table[k]);
        else dst[k] = ConvertSaturate<Out>(table[k]);
      }
    }
  });
}

void LookupTable::Apply(const void* in, DType in_type, void* out, size_t n) const {
  if (!SupportsInput(in_type))
    throw Error("lookup_table takes integer inputs, got " + std::string(ToString(in_type)));
  VisitDType(in_type, [&](auto in_tag) {
    using In = decltype(in_tag);
    if constexpr (std::is_integral_v<In> && !std::is_same_v<In, bool>) {
      VisitDType(out_type_, [&](auto out_tag) {
        using Out = decltype(out_tag);
        if constexpr (!std::is_same_v<Out, float16> && !std::is_same_v<Out, bool>) {
          const In* src = static_cast<const In*>(in);
          Out* dst = static_cast<Out*>(out);
          const Out* table = reinterpret_cast<const Out*>(table_.data());
          const Out def = table[size_];
          const auto size = static_cast<std::make_unsigned_t<int64_t>>(size_);
          for (size_t i = 0; i < n; ++i) {
            // Negative values become huge unsigned ones: one comparison covers both bounds.
            const auto k = static_cast<std::make_unsigned_t<int64_t>>(static_cast<int64_t>(src[i]));
            dst[i] = k < size ? table[k] : def;
          }
        }
      });
    }
  });
}

}  // namespace sluice::kernels
