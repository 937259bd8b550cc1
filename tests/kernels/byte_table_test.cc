// MapBytes / MapBytesInterleaved against the plain per-byte lookup: every length from 0 to past two
// vectors (the masked tail), unaligned starts, in place, 1 to 4 interleaved channels. On a CPU with
// AVX-512 VBMI this checks the vector path (reported as a test property), elsewhere the scalar one.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/tensor/byte_table.h"

namespace sluice::kernels {
namespace {

std::vector<uint8_t> RandomBytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng() & 0xff);
  return v;
}

TEST(ByteTable, EqualsThePerByteLookupAtEveryLengthAndOffset) {
  ::testing::Test::RecordProperty("vectorized", MapBytesIsVectorized() ? "avx512vbmi" : "scalar");
  std::mt19937 rng(3);
  const auto table = RandomBytes(256, rng);
  const auto src = RandomBytes(400, rng);
  for (size_t offset : {0, 1, 7, 63}) {
    for (size_t n = 0; n + offset <= src.size(); n += (n < 300 ? 1 : 37)) {
      std::vector<uint8_t> dst(n + 2, 0xAB);
      MapBytes(src.data() + offset, table.data(), dst.data() + 1, n);
      ASSERT_EQ(dst[0], 0xAB);
      ASSERT_EQ(dst[n + 1], 0xAB) << "wrote past the end at n = " << n;
      for (size_t k = 0; k < n; ++k) ASSERT_EQ(dst[k + 1], table[src[offset + k]]) << "n " << n << " byte " << k;
    }
  }
}

TEST(ByteTable, EveryValueAndInPlace) {
  std::mt19937 rng(5);
  auto table = RandomBytes(256, rng);
  std::vector<uint8_t> data(1000);
  for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<uint8_t>(k * 7);
  const auto before = data;
  MapBytes(data.data(), table.data(), data.data(), data.size());
  for (size_t k = 0; k < data.size(); ++k) ASSERT_EQ(data[k], table[before[k]]) << k;
}

TEST(ByteTable, InterleavedChannelsUseTheirOwnTables) {
  std::mt19937 rng(9);
  for (int c = 1; c <= 4; ++c) {
    const auto tables = RandomBytes(size_t(c) * 256, rng);
    for (size_t n : {0, 1, 2, 3, 63, 64, 65, 127, 128, 129, 191, 192, 193, 1000, 3 * 224 + 5}) {
      const auto src = RandomBytes(n, rng);
      std::vector<uint8_t> dst(n + 1, 0xCD);
      MapBytesInterleaved(src.data(), tables.data(), c, dst.data(), n);
      ASSERT_EQ(dst[n], 0xCD);
      for (size_t k = 0; k < n; ++k)
        ASSERT_EQ(dst[k], tables[(k % size_t(c)) * 256 + src[k]]) << "channels " << c << " n " << n << " byte " << k;
      auto inplace = src;
      MapBytesInterleaved(inplace.data(), tables.data(), c, inplace.data(), n);
      ASSERT_EQ(inplace, std::vector<uint8_t>(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(n)));
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
