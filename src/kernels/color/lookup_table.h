// DALI's lookup_table: keys -> values with a default for everything else.
//   table[k] = values[j] for the last j with keys[j] == k, default_value for other k in [0, max key];
//   out[i] = table[in[i]] if 0 <= in[i] < table size, else default_value
// The table is built once in the output type (values converted as kernels::Cast: integer outputs
// rounded and saturated). Inputs: integer types (uint8, int8, uint16, int16, int32, int64);
// outputs: any numeric type but float16/bool.
// Thread-safety: LookupTable is immutable after Build; Apply is reentrant.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sluice/dtype.h"

namespace sluice::kernels {

// DALI's limit on keys (lookup_table's kMaxKey).
inline constexpr int64_t kLookupTableMaxKey = 65535;

class LookupTable {
 public:
  // Throws sluice::Error if keys and values differ in length or a key is outside [0, kLookupTableMaxKey].
  LookupTable(const std::vector<int64_t>& keys, const std::vector<double>& values, double default_value,
              DType out_type);
  void Apply(const void* in, DType in_type, void* out, size_t n) const;
  DType out_type() const { return out_type_; }
  size_t size() const { return size_; }
  // The table in the output type: size() + 1 entries, the last the default (what the GPU kernel
  // uploads, lookup_table_cuda.h).
  const uint8_t* table_data() const { return table_.data(); }
  size_t table_bytes() const { return table_.size(); }

  static bool SupportsInput(DType t);
  static bool SupportsOutput(DType t);

 private:
  DType out_type_;
  size_t size_ = 0;                  // table entries
  std::vector<uint8_t> table_;       // size_ + 1 entries of out_type_; the last is the default
};

}  // namespace sluice::kernels
