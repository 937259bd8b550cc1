// libFuzzer target: the .npy header parser over arbitrary bytes, then (when the input holds the data
// the header declares, as decoders.numpy checks) the array copy into C order. Must never crash;
// malformed input may only throw sluice::Error. A parsed header must describe a sane array: a data
// offset inside the input's header, non-negative dimensions whose byte size fits in int64.
// Seed corpus: fuzz/npy_seeds/ (headers written by NumPy: v1/v2/v3, C and Fortran order, dtypes).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <sluice/error.h>

#include "readers/numpy/npy_array.h"
#include "readers/numpy/npy_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const sluice::NpyHeader h = sluice::ParseNpyHeader(bytes, "fuzz.npy");
    if (h.data_offset <= 0 || h.data_offset > static_cast<int64_t>(size)) __builtin_trap();
    for (int64_t d : h.shape)
      if (d < 0) __builtin_trap();
    if (h.num_bytes() < 0) __builtin_trap();
    if (h.num_bytes() <= (int64_t{1} << 20) && h.data_offset + h.num_bytes() <= static_cast<int64_t>(size)) {
      const sluice::MemorySource source(data, size, "fuzz.npy");
      std::vector<char> out(static_cast<size_t>(h.num_bytes())), scratch;
      sluice::ReadNpyArray(source, h, out.data(), scratch);
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
