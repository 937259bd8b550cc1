#include "kernels/compression/gzip.h"

#include <zlib.h>

#include <cstring>
#include <limits>
#include <string>

#include <sluice/error.h>

namespace sluice::kernels {

void InflateGzip(const uint8_t* src, size_t src_size, uint8_t* dst, size_t dst_size) {
  if (src_size > std::numeric_limits<uInt>::max() || dst_size > std::numeric_limits<uInt>::max())
    throw Error("gzip stream of " + std::to_string(src_size) + " bytes inflating to " + std::to_string(dst_size) +
                " bytes: at most 4 GiB each");
  z_stream z;
  std::memset(&z, 0, sizeof(z));
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw Error("zlib: cannot initialise inflate");  // 15 + 32: gzip or zlib
  z.next_in = const_cast<Bytef*>(src);
  z.avail_in = static_cast<uInt>(src_size);
  z.next_out = dst;
  z.avail_out = static_cast<uInt>(dst_size);
  int rc = inflate(&z, Z_FINISH);
  size_t produced = dst_size - z.avail_out;
  if (rc == Z_BUF_ERROR && z.avail_out == 0 && dst_size > 0) {  // full: is there more?
    uint8_t probe = 0;
    z.next_out = &probe;
    z.avail_out = 1;
    rc = inflate(&z, Z_FINISH);
    if (z.avail_out == 0) produced = dst_size + 1;
  }
  const char* msg = z.msg;
  const std::string why = msg ? msg : "";
  inflateEnd(&z);
  if (produced > dst_size)
    throw Error("the gzip stream (" + std::to_string(src_size) + " bytes) inflates to more than the " +
                std::to_string(dst_size) + " bytes of its tile");
  if (rc != Z_STREAM_END)
    throw Error("corrupt or truncated gzip stream (" + std::to_string(src_size) + " bytes)" +
                (why.empty() ? std::string() : ": " + why));
  if (produced != dst_size)
    throw Error("the gzip stream inflates to " + std::to_string(produced) + " bytes, its tile has " +
                std::to_string(dst_size));
}

}  // namespace sluice::kernels
