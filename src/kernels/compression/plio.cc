#include "kernels/compression/plio.h"

#include <algorithm>
#include <string>

#include <sluice/error.h>

namespace sluice::kernels {

void PlioDecode(const int16_t* list, int64_t size, int32_t* out, int64_t count) {
  auto bad = [&](const std::string& what) {
    throw Error("corrupt PLIO-compressed tile (" + std::to_string(size) + " words): " + what);
  };
  if (size < 3) bad("shorter than its header");
  int64_t len = 0, first = 0;  // the list's length in words and its first instruction (0-based)
  if (list[2] > 0) {
    len = list[2];
    first = 3;
  } else {
    if (size < 5) bad("shorter than its header");
    len = (int64_t{list[4]} << 15) + list[3];
    first = list[1];
  }
  std::fill(out, out + count, 0);
  if (count <= 0 || len <= 0) return;
  if (len > size) bad("its header gives " + std::to_string(len) + " words");
  if (first < 0) bad("its first instruction is before the list");
  // Pixels are numbered from 1 as in the reference; `x` is the next pixel the list describes.
  const int64_t last = count;
  int64_t op = 0, x = 1, value = 1;
  for (int64_t ip = first; ip < len && x <= last; ++ip) {
    const int word = list[ip];
    const int opcode = word / 4096, data = word & 4095;  // C's truncating division, as the reference
    switch (opcode) {
      case 0: case 4: case 5: {  // a run of `data` pixels: zeros (0, 5: the last one the value), or the value (4)
        const int64_t x2 = x + data - 1;
        const int64_t lo = std::max<int64_t>(x, 1), hi = std::min(x2, last);
        const int64_t n = hi - lo + 1;
        if (n > 0) {
          if (op + n > count) bad("a run past the tile's end");
          std::fill(out + op, out + op + n, opcode == 4 ? static_cast<int32_t>(value) : 0);
          if (opcode == 5 && hi == x2) out[op + n - 1] = static_cast<int32_t>(value);
          op += n;
        }
        x = x2 + 1;
        break;
      }
      case 1:  // the value's high bits in the next word
        if (ip + 1 >= len) bad("a set-value instruction at its end");
        value = (int64_t{list[ip + 1]} << 12) + data;
        ++ip;
        break;
      case 2: value += data; break;
      case 3: value -= data; break;
      case 6: case 7:  // change the value and output one pixel
        value += opcode == 6 ? data : -data;
        if (x >= 1 && x <= last) {
          if (op >= count) bad("a pixel past the tile's end");
          out[op++] = static_cast<int32_t>(value);
        }
        ++x;
        break;
      default: break;  // no such opcode: ignored, as the reference
    }
  }
}

}  // namespace sluice::kernels
