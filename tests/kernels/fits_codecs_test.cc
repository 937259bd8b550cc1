// The tile codecs of compressed FITS images (kernels/compression/{rice,plio,gzip,hcompress}.h) on
// hand-made streams: what they decode, and that truncated or malformed input throws instead of
// reading or writing out of bounds. Their agreement with astropy's encoders is tested through the
// FITS reader (python/tests/test_fits_reader.py).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <vector>

#include <sluice/error.h>

#include "kernels/compression/gzip.h"
#include "kernels/compression/hcompress.h"
#include "kernels/compression/plio.h"
#include "kernels/compression/rice.h"

namespace sluice::kernels {
namespace {

TEST(FitsCodecs, RiceLowEntropyBlocksRepeatTheFirstPixel) {
  // bytepix 1: the first pixel (7), then one block code of 3 zero bits (fs = -1: no differences).
  const std::vector<uint8_t> stream = {7, 0x00};
  std::vector<int64_t> out(20, -1);
  RiceDecode(stream.data(), stream.size(), 1, 32, out.data(), 20);
  for (int64_t v : out) EXPECT_EQ(v, 7);
}

TEST(FitsCodecs, RiceRawDifferencesAreZigzagged) {
  // bytepix 1: first pixel 10, block code 7 (fs = 6 = fsmax: raw 8-bit differences), then +3 (6) and -2 (3).
  // Bits: 111 00000110 00000011 -> 0xE0 0xC0 0x60
  const std::vector<uint8_t> stream = {10, 0xE0, 0xC0, 0x60};
  std::vector<int64_t> out(2);
  RiceDecode(stream.data(), stream.size(), 1, 32, out.data(), 2);
  EXPECT_EQ(out[0], 13);
  EXPECT_EQ(out[1], 11);
}

TEST(FitsCodecs, RiceTruncatedAndBadParametersThrow) {
  const std::vector<uint8_t> stream = {10, 0xE0, 0xC0};  // the second difference is missing
  std::vector<int64_t> out(2);
  EXPECT_THROW(RiceDecode(stream.data(), stream.size(), 1, 32, out.data(), 2), Error);
  EXPECT_THROW(RiceDecode(stream.data(), stream.size(), 3, 32, out.data(), 2), Error);
  EXPECT_THROW(RiceDecode(stream.data(), stream.size(), 1, 0, out.data(), 2), Error);
  const std::vector<uint8_t> ones(8, 0xff);  // Rice codes whose low bits run past the end
  std::vector<int64_t> many(1000);
  EXPECT_THROW(RiceDecode(ones.data(), ones.size(), 4, 32, many.data(), 1000), Error);
}

TEST(FitsCodecs, PlioRunsAndBounds) {
  // Short header (list[2] = length 6 > 0, first instruction at 3): set value 9 (opcode 1, high word 0),
  // 2 zeros (opcode 0), 3 pixels of the value (opcode 4).
  const std::vector<int16_t> list = {0, 0, 7, 0x1009, 0, 0x0002, 0x4003};
  std::vector<int32_t> out(8, -1);
  PlioDecode(list.data(), static_cast<int64_t>(list.size()), out.data(), 8);
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 9, 9, 9, 0, 0, 0}));
  const std::vector<int16_t> past = {0, 0, 50, 0x4003};  // its header claims 50 words
  EXPECT_THROW(PlioDecode(past.data(), static_cast<int64_t>(past.size()), out.data(), 8), Error);
  const std::vector<int16_t> dangling = {0, 0, 4, 0x1009};  // set-value without its high word
  EXPECT_THROW(PlioDecode(dangling.data(), static_cast<int64_t>(dangling.size()), out.data(), 8), Error);
}

TEST(FitsCodecs, GzipExactSize) {
  std::vector<uint8_t> plain(1000);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<uint8_t>(i * 7);
  uLongf n = compressBound(static_cast<uLong>(plain.size()));
  std::vector<uint8_t> packed(n);
  ASSERT_EQ(compress2(packed.data(), &n, plain.data(), static_cast<uLong>(plain.size()), 6), Z_OK);
  packed.resize(n);
  std::vector<uint8_t> out(1000);
  InflateGzip(packed.data(), packed.size(), out.data(), out.size());
  EXPECT_EQ(out, plain);
  std::vector<uint8_t> small(999), large(1001);
  EXPECT_THROW(InflateGzip(packed.data(), packed.size(), small.data(), small.size()), Error);
  EXPECT_THROW(InflateGzip(packed.data(), packed.size(), large.data(), large.size()), Error);
  EXPECT_THROW(InflateGzip(packed.data(), packed.size() / 2, out.data(), out.size()), Error);
  packed[packed.size() / 2] ^= 0xff;
  EXPECT_THROW(InflateGzip(packed.data(), packed.size(), out.data(), out.size()), Error);
}

TEST(FitsCodecs, HcompressHeaderChecks) {
  std::vector<int64_t> out(16);
  const std::vector<uint8_t> bad_magic(40, 0);
  EXPECT_THROW(HcompressDecode(bad_magic.data(), bad_magic.size(), false, out.data(), 16), Error);
  // Magic, 4 x 4 pixels, scale 0, top coefficient 16 (8 x the mean for 4 x 4), no bit planes, end
  // code: a flat image of 2s.
  std::vector<uint8_t> flat = {0xDD, 0x99, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0x00};
  HcompressDecode(flat.data(), flat.size(), false, out.data(), 16);
  for (int64_t v : out) EXPECT_EQ(v, 2);
  EXPECT_THROW(HcompressDecode(flat.data(), flat.size(), false, out.data(), 15), Error);  // not 4 x 4
  flat.resize(23);  // cut inside the header
  EXPECT_THROW(HcompressDecode(flat.data(), flat.size(), false, out.data(), 16), Error);
}

}  // namespace
}  // namespace sluice::kernels
