// lookup_table's kernel body and launcher (lookup_table_cuda.h), shared by color.cu and the host
// grid runner: one thread per element, one instantiation (the input type and the output element
// size are run-time switches, uniform over the launch).
#pragma once
#include <cstring>
#include <string>

#include "kernels/color/lookup_table_cuda.h"
#include "kernels/grid/host_device.h"

namespace sluice::kernels::cuda {

struct LookupTableBody {
  static SLUICE_HD int64_t Load(const void* p, int64_t i, DType t) {
    switch (t) {
      case DType::kUInt8: return static_cast<const uint8_t*>(p)[i];
      case DType::kInt8: return static_cast<const int8_t*>(p)[i];
      case DType::kUInt16: return static_cast<const uint16_t*>(p)[i];
      case DType::kInt16: return static_cast<const int16_t*>(p)[i];
      case DType::kInt32: return static_cast<const int32_t*>(p)[i];
      default: return static_cast<const int64_t*>(p)[i];
    }
  }
  static SLUICE_HD void Run(const grid::GridPos& g, const LookupTableDesc* descs, const void* table, int64_t size,
                            DType in_type, int out_size) {
    const LookupTableDesc& d = descs[g.block_idx.y];
    for (int64_t i = g.GlobalX(); i < d.n; i += g.StrideX()) {
      // Negative values become huge unsigned ones: one comparison covers both bounds (as the CPU).
      const auto k = static_cast<uint64_t>(Load(d.in, i, in_type));
      const int64_t e = k < static_cast<uint64_t>(size) ? static_cast<int64_t>(k) : size;
      switch (out_size) {
        case 1: static_cast<uint8_t*>(d.out)[i] = static_cast<const uint8_t*>(table)[e]; break;
        case 2: static_cast<uint16_t*>(d.out)[i] = static_cast<const uint16_t*>(table)[e]; break;
        case 4: static_cast<uint32_t*>(d.out)[i] = static_cast<const uint32_t*>(table)[e]; break;
        default: static_cast<uint64_t*>(d.out)[i] = static_cast<const uint64_t*>(table)[e]; break;
      }
    }
  }
};

template <typename Exec>
void RunLookupTable(Exec& exec, const LookupTableDesc* descs, int n, int64_t max_el, const void* table, int64_t size,
                    DType in_type, size_t out_elem_size) {
  if (in_type != DType::kUInt8 && in_type != DType::kInt8 && in_type != DType::kUInt16 && in_type != DType::kInt16 &&
      in_type != DType::kInt32 && in_type != DType::kInt64)
    throw Error("lookup_table (gpu): integer inputs only, got " + std::string(ToString(in_type)));
  if (out_elem_size != 1 && out_elem_size != 2 && out_elem_size != 4 && out_elem_size != 8)
    throw Error("lookup_table (gpu): unsupported output element size " + std::to_string(out_elem_size));
  if (n <= 0 || max_el <= 0) return;
  exec.template Run<LookupTableBody>(grid::BatchGrid(max_el, n, grid::kDefaultBlock), grid::kDefaultBlock, descs, table,
                                     size, in_type, static_cast<int>(out_elem_size));
}

}  // namespace sluice::kernels::cuda
