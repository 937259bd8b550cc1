// One dispatch from a DType to the C++ element type, over the types an operation supports: the
// type switch that kernels and operators would otherwise each write (a constexpr fold over a type
// list, not a macro).
//
//   using Types = DTypeList<uint8_t, int16_t, uint16_t, float>;
//   VisitDTypeIn<Types>(t, "rank filters", [&](auto zero) { using T = decltype(zero); ... });
#pragma once
#include <string>

#include <sluice/dtype.h>
#include <sluice/error.h>

namespace sluice {

template <typename... Ts>
struct DTypeList {
  static constexpr bool Contains(DType t) { return ((kDTypeOf<Ts> == t) || ...); }
  // "uint8, int16, uint16, float32", for messages.
  static std::string Names() {
    std::string s;
    ((s += (s.empty() ? "" : ", ") + std::string(ToString(kDTypeOf<Ts>))), ...);
    return s;
  }
};

// The image types of the filters, the rank filters and the warps: uint8, int16, uint16, float32.
using FilterDTypes = DTypeList<uint8_t, int16_t, uint16_t, float>;

namespace dtype_list_detail {
template <typename Fn, typename... Ts>
bool Visit(DType t, Fn& fn, DTypeList<Ts...>) {
  return ((kDTypeOf<Ts> == t ? (fn(Ts{}), true) : false) || ...);
}
}  // namespace dtype_list_detail

// Calls fn(T{}) with T the type of `List` whose DType is `t`. Throws sluice::Error
// "<what> does not support <t> (supported: ...)" when `List` has no such type.
template <typename List, typename Fn>
void VisitDTypeIn(DType t, const char* what, Fn&& fn) {
  if (!dtype_list_detail::Visit(t, fn, List{}))
    throw Error(std::string(what) + " does not support " + std::string(ToString(t)) + " (supported: " + List::Names() +
                ")");
}

}  // namespace sluice
