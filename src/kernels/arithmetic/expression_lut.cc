// The lookup-table shortcut of Program::Evaluate: an expression of one byte-typed tensor and
// scalars evaluated once on the tensor type's 256 values, then mapped element by element.
#include <cstring>

#include "kernels/arithmetic/expression.h"
#include "kernels/arithmetic/expression_program.h"
#include "kernels/tensor/byte_table.h"

namespace sluice::kernels::arith {
namespace {

// The one elementwise input when every other input is a broadcast scalar and that input's type has
// 256 values (uint8, int8); -1 otherwise.
int ByteDomainInput(const std::vector<DType>& types, const std::vector<bool>& scalar) {
  int t = -1;
  for (size_t i = 0; i < types.size() && i < scalar.size(); ++i) {
    if (scalar[i]) continue;
    if (t >= 0) return -1;
    t = static_cast<int>(i);
  }
  if (t < 0) return -1;
  const DType d = types[static_cast<size_t>(t)];
  return d == DType::kUInt8 || d == DType::kInt8 ? t : -1;
}

template <typename Bits>
void MapThroughTable(const uint8_t* src, const unsigned char* table, void* out, int64_t n) {
  Bits lut[256];
  std::memcpy(lut, table, sizeof(lut));
  Bits* dst = static_cast<Bits*>(out);
  for (int64_t k = 0; k < n; ++k) dst[k] = lut[src[k]];
}

}  // namespace

void Program::Evaluate(const std::vector<const void*>& inputs, const std::vector<bool>& scalar, void* out,
                       int64_t n) const {
  // A function of one byte-typed tensor and scalars takes at most 256 values: evaluate it on all
  // of them, then look each element up. Exact (the same evaluation, on a table), and it turns
  // per-sample-parameter expressions on uint8 images (solarize, posterize, blends) into one table
  // lookup per element. Every operation is total (division by zero gives 0), so evaluating values
  // the data does not contain cannot fail.
  constexpr int64_t kTableWorthIt = 1024;
  const int t = n >= kTableWorthIt ? ByteDomainInput(impl_->input_types, scalar) : -1;
  if (t >= 0) {
    uint8_t domain[256];
    for (int v = 0; v < 256; ++v) domain[v] = static_cast<uint8_t>(v);
    std::vector<const void*> at_domain = inputs;
    at_domain[static_cast<size_t>(t)] = domain;
    alignas(8) unsigned char table[256 * 8];
    EvaluateElementwise(at_domain, scalar, table, 256);
    const auto* src = static_cast<const uint8_t*>(inputs[static_cast<size_t>(t)]);
    switch (SizeOf(output_type())) {
      case 1: MapBytes(src, table, static_cast<uint8_t*>(out), static_cast<size_t>(n)); return;
      case 2: MapThroughTable<uint16_t>(src, table, out, n); return;
      case 4: MapThroughTable<uint32_t>(src, table, out, n); return;
      case 8: MapThroughTable<uint64_t>(src, table, out, n); return;
      default: break;
    }
  }
  EvaluateElementwise(inputs, scalar, out, n);
}

}  // namespace sluice::kernels::arith
