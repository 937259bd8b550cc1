// kernels::InflateLz4Block against liblz4's own compressor: exact round trips, and errors for a
// block that inflates to more or fewer bytes than asked, for corrupt bytes and for truncation.
#include <gtest/gtest.h>
#include <lz4.h>

#include <cstdint>
#include <string>
#include <vector>

#include <sluice/error.h>

#include "kernels/compression/lz4_block.h"

namespace sluice::kernels {
namespace {

std::vector<uint8_t> Compress(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))));
  const int n = LZ4_compress_default(reinterpret_cast<const char*>(raw.data()), reinterpret_cast<char*>(out.data()),
                                     static_cast<int>(raw.size()), static_cast<int>(out.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::vector<uint8_t> Pattern(size_t n) {
  std::vector<uint8_t> v(n);
  uint32_t x = 12345;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    v[i] = static_cast<uint8_t>((i / 7) + ((x >> 16) & 3));  // compressible, not trivial
  }
  return v;
}

std::string ErrorOf(const std::vector<uint8_t>& block, size_t n) {
  std::vector<uint8_t> out(n);
  try {
    InflateLz4Block(block.data(), block.size(), out.data(), out.size());
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

TEST(Lz4Block, RoundTripsExactly) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{17}, size_t{4096}, size_t{100000}}) {
    const auto raw = Pattern(n);
    const auto block = Compress(raw);
    std::vector<uint8_t> out(n);
    InflateLz4Block(block.data(), block.size(), out.data(), out.size());
    EXPECT_EQ(out, raw) << n;
  }
}

TEST(Lz4Block, SizeMismatchesAndCorruptionAreErrors) {
  const auto block = Compress(Pattern(1000));
  EXPECT_NE(ErrorOf(block, 999).find("more than the 999 bytes"), std::string::npos);
  EXPECT_NE(ErrorOf(block, 1001).find("inflates to 1000 bytes"), std::string::npos);
  auto truncated = block;
  truncated.resize(block.size() / 2);
  EXPECT_NE(ErrorOf(truncated, 1000), "");
  const std::vector<uint8_t> junk(64, 0xff);
  EXPECT_NE(ErrorOf(junk, 1000).find("corrupt LZ4 block"), std::string::npos);
}

}  // namespace
}  // namespace sluice::kernels
