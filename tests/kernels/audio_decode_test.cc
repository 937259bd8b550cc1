// kernels::PeekAudio / DecodeAudio / DownmixToMono: the sample conversions of the contract on WAV
// written here byte by byte, FLAC and Ogg Vorbis (tests/data/audio, written by `wave` and
// python-soundfile: make_test_audio.py), frame ranges, and every bad input with its message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <sluice/error.h>

#include "kernels/audio/audio_decode.h"
#include "kernels/audio/downmix.h"
#include "kernels/audio/normalized_convert.h"
#include "kernels/audio_test_util.h"

namespace sluice::kernels {
namespace {

using testing::MakeWav;
using testing::ReadAudioFile;
template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  return testing::AsBytes(v);
}

template <typename T>
std::vector<T> Decode(const std::vector<uint8_t>& bytes, DType type, int64_t first = 0, int64_t count = -1) {
  const AudioInfo info = PeekAudio(bytes);
  if (count < 0) count = info.frames - first;
  std::vector<T> out(size_t(count * info.channels));
  DecodeAudio(bytes, info, first, count, type, out.data());
  return out;
}

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no sluice::Error";
  return "";
}

const std::vector<int16_t> kPcm = {0, 1, -1, 32767, -32768, 12345, -23456, 100, 7, -7};  // 5 stereo frames

TEST(AudioDecode, WavPcm16ToEveryOutputType) {
  const auto wav = MakeWav(1, 2, 22050, 16, Bytes(kPcm));
  const AudioInfo info = PeekAudio(wav);
  EXPECT_EQ(info.frames, 5);
  EXPECT_EQ(info.channels, 2);
  EXPECT_EQ(info.sample_rate, 22050);
  EXPECT_FALSE(info.float_pcm);
  EXPECT_EQ(Decode<int16_t>(wav, DType::kInt16), kPcm);
  const auto i32 = Decode<int32_t>(wav, DType::kInt32);
  const auto f32 = Decode<float>(wav, DType::kFloat32);
  for (size_t k = 0; k < kPcm.size(); ++k) {
    EXPECT_EQ(i32[k], int32_t(kPcm[k]) * 65536) << k;    // shifted to the width
    EXPECT_EQ(f32[k], float(kPcm[k]) / 32768.f) << k;    // divided by 2^15
  }
}

TEST(AudioDecode, WavPcm24AndFloatToIntegers) {
  // 24-bit: int16 keeps the high 16 bits (drops the low 8), int32 shifts by 8.
  const std::vector<int32_t> s24 = {0x123456, -0x123456, 0x7FFFFF, -0x800000};
  std::vector<uint8_t> d;
  for (int32_t v : s24)
    for (int k = 0; k < 3; ++k) d.push_back(uint8_t(uint32_t(v) >> (8 * k)));
  const auto w24 = MakeWav(1, 1, 8000, 24, d);
  const auto i16 = Decode<int16_t>(w24, DType::kInt16);
  const auto i32 = Decode<int32_t>(w24, DType::kInt32);
  for (size_t k = 0; k < s24.size(); ++k) {
    EXPECT_EQ(i16[k], int16_t(s24[k] >> 8)) << k;
    EXPECT_EQ(i32[k], int32_t(uint32_t(s24[k]) << 8)) << k;
  }
  // Float PCM: x * 32767 (x * 2147483647) rounded to nearest even, saturated; not libsndfile's 0s.
  const std::vector<float> fl = {0.5f, -0.25f, 1.5f, -2.f, 0.1f, 1.0f / 65534};
  const auto wf = MakeWav(3, 2, 8000, 32, Bytes(fl));
  EXPECT_TRUE(PeekAudio(wf).float_pcm);
  EXPECT_EQ(Decode<int16_t>(wf, DType::kInt16), (std::vector<int16_t>{16384, -8192, 32767, -32768, 3277, 0}));
  const auto f32 = Decode<float>(wf, DType::kFloat32);
  EXPECT_EQ(f32, fl);  // as stored, not clipped
  const auto w32 = Decode<int32_t>(wf, DType::kInt32);
  EXPECT_EQ(w32[0], 1073741824);  // 0.5 * 2147483647 = 1073741823.5, to even
  EXPECT_EQ(w32[2], 2147483647);
  EXPECT_EQ(w32[3], -2147483647 - 1);
}

TEST(AudioDecode, FlacIsLosslessAndVorbisDecodes) {
  const auto wav = Decode<int16_t>(ReadAudioFile("tone_s16_stereo.wav"), DType::kInt16);
  const auto flac_bytes = ReadAudioFile("tone_stereo.flac");
  const AudioInfo fi = PeekAudio(flac_bytes);
  EXPECT_EQ(fi.frames, 1600);
  EXPECT_EQ(fi.channels, 2);
  EXPECT_EQ(fi.sample_rate, 16000);
  EXPECT_EQ(Decode<int16_t>(flac_bytes, DType::kInt16), wav);
  const auto ogg = ReadAudioFile("tone_stereo.ogg");
  const AudioInfo oi = PeekAudio(ogg);
  EXPECT_EQ(oi.frames, 1600);
  EXPECT_EQ(oi.channels, 2);
  const auto v = Decode<float>(ogg, DType::kFloat32);
  double err = 0;
  for (size_t k = 400; k < 2800; ++k) err = std::max(err, std::abs(double(v[k]) - wav[k] / 32768.0));
  EXPECT_LT(err, 0.05);  // lossy (about 0.02 here), but the same tones
}

TEST(AudioDecode, FrameRangesAreSlicesOfTheWholeDecode) {
  for (const char* name : {"tone_s16_stereo.wav", "tone_stereo.flac", "tone_stereo.ogg"}) {
    const auto bytes = ReadAudioFile(name);
    const auto all = Decode<float>(bytes, DType::kFloat32);
    const auto part = Decode<float>(bytes, DType::kFloat32, 123, 456);
    ASSERT_EQ(part.size(), 456u * 2);
    for (size_t k = 0; k < part.size(); ++k) ASSERT_EQ(part[k], all[123 * 2 + k]) << name << " " << k;
  }
  const auto wav = ReadAudioFile("tone_s16_stereo.wav");
  const AudioInfo info = PeekAudio(wav);
  std::vector<float> out(10000);
  EXPECT_NE(ErrorOf([&] { DecodeAudio(wav, info, 1500, 101, DType::kFloat32, out.data()); }).find("outside the stream's 1600 frames"),
            std::string::npos);
}

TEST(AudioDecode, BadInputsAreErrorsWithTheirReason) {
  auto peek_error = [](const std::vector<uint8_t>& b, int64_t max = kDefaultMaxAudioSamples) {
    return ErrorOf([&] { PeekAudio(b, max); });
  };
  EXPECT_NE(peek_error({}).find("empty input"), std::string::npos);
  const std::string text = "hello, this is not audio at all\n";
  EXPECT_NE(peek_error(std::vector<uint8_t>(text.begin(), text.end())).find("not an audio stream"), std::string::npos);
  // Unsupported codec: a WAV whose format tag libsndfile does not implement.
  EXPECT_NE(peek_error(MakeWav(0x1234, 1, 8000, 16, std::vector<uint8_t>(64))).find("not an audio stream"),
            std::string::npos);
  // No samples.
  EXPECT_NE(peek_error(MakeWav(1, 1, 8000, 16, {})).find("no audio samples"), std::string::npos);
  // Truncated: WAV (data chunk longer than the input), FLAC (stream ends early), Ogg (no last page).
  const auto wav = MakeWav(1, 2, 8000, 16, Bytes(kPcm), 4000);
  EXPECT_NE(peek_error(wav).find("truncated WAV stream: its data chunk declares 4000 bytes, the input holds 20"),
            std::string::npos);
  auto flac = ReadAudioFile("tone_stereo.flac");
  flac.resize(flac.size() / 2);
  EXPECT_NE(ErrorOf([&] { Decode<int16_t>(flac, DType::kInt16); }).find("truncated or corrupt stream: decoded"),
            std::string::npos);
  auto ogg = ReadAudioFile("tone_stereo.ogg");
  ogg.resize(ogg.size() - 100);
  EXPECT_NE(peek_error(ogg).find("length is unknown"), std::string::npos);
  // Too many samples for max_samples: refused from the header.
  EXPECT_NE(peek_error(ReadAudioFile("tone_s16_stereo.wav"), 3199).find("more than max_samples (3199 samples)"),
            std::string::npos);
  EXPECT_NO_THROW(PeekAudio(ReadAudioFile("tone_s16_stereo.wav"), 3200));
  // Unsupported output type.
  const auto good = MakeWav(1, 2, 8000, 16, Bytes(kPcm));
  std::vector<double> d(10);
  EXPECT_NE(ErrorOf([&] { DecodeAudio(good, PeekAudio(good), 0, 5, DType::kFloat64, d.data()); }).find("float64"),
            std::string::npos);
}

// RF64 keeps its sizes in the ds64 chunk, which libsndfile clamps to the input silently: a ds64
// declaring 2^40 frames (2^41 bytes) over 20 bytes of data is refused from the header, as are a data
// size the input does not hold and a frame count the data cannot hold or max_samples refuses.
TEST(AudioDecode, AbsurdRf64SizesAreRefusedBeforeDecoding) {
  using testing::MakeRf64;
  const auto good = MakeRf64(2, 8000, 16, Bytes(kPcm));
  const AudioInfo info = PeekAudio(good);
  EXPECT_EQ(info.frames, 5);
  EXPECT_EQ(Decode<int16_t>(good, DType::kInt16), kPcm);
  EXPECT_NO_THROW(PeekAudio(MakeRf64(2, 8000, 16, Bytes(kPcm), -1, 0)));  // sample count left 0
  const int64_t t40 = int64_t{1} << 40;
  std::string msg = ErrorOf([&] { PeekAudio(MakeRf64(2, 8000, 16, Bytes(kPcm), 4 * t40, t40)); });
  EXPECT_NE(msg.find("ds64 chunk declares 4398046511104 data bytes, the input holds 20"), std::string::npos) << msg;
  msg = ErrorOf([&] { PeekAudio(MakeRf64(2, 8000, 16, Bytes(kPcm), -1, t40)); });
  EXPECT_NE(msg.find("declares 1099511627776 frames of 2 channels, more than max_samples (1073741824"),
            std::string::npos) << msg;
  msg = ErrorOf([&] { PeekAudio(MakeRf64(2, 8000, 16, Bytes(kPcm), -1, 6)); });
  EXPECT_NE(msg.find("declares 6 frames, its 20 data bytes hold 5"), std::string::npos) << msg;
  msg = ErrorOf([&] { PeekAudio(MakeRf64(2, 8000, 16, Bytes(kPcm), 400)); });
  EXPECT_NE(msg.find("declares 400 data bytes, the input holds 20"), std::string::npos) << msg;
  auto cut = good;
  cut.resize(cut.size() - 8);  // the data cut short under a correct ds64
  msg = ErrorOf([&] { PeekAudio(cut); });
  EXPECT_NE(msg.find("declares 20 data bytes, the input holds 12"), std::string::npos) << msg;
}

// FLAC's STREAMINFO declares the stream's length in 36 bits: 2^36 - 1 frames from a 1.7 KB file.
TEST(AudioDecode, AbsurdFlacLengthIsRefusedBeforeDecoding) {
  auto flac = ReadAudioFile("tone_stereo.flac");
  ASSERT_EQ(std::string(flac.begin(), flac.begin() + 4), "fLaC");
  // STREAMINFO starts at byte 8; total samples are its bits 108..143: the low nibble of byte 21
  // and bytes 22..25.
  flac[21] |= 0x0F;
  for (int k = 22; k < 26; ++k) flac[size_t(k)] = 0xFF;
  const std::string msg = ErrorOf([&] { PeekAudio(flac); });
  EXPECT_NE(msg.find("declares 68719476735 frames of 2 channels, more than max_samples"), std::string::npos) << msg;
  EXPECT_NE(msg.find("refused before decoding"), std::string::npos) << msg;
}

// Ogg's CRC-32 (polynomial 0x04c11db7, not reflected, initial value 0), over a page with its CRC
// field zeroed.
uint32_t OggCrc(const uint8_t* p, size_t n) {
  uint32_t crc = 0;
  for (size_t i = 0; i < n; ++i) {
    crc ^= uint32_t(p[i]) << 24;
    for (int b = 0; b < 8; ++b) crc = crc & 0x80000000u ? (crc << 1) ^ 0x04c11db7u : crc << 1;
  }
  return crc;
}

// An Ogg stream's length comes from its last page's granule position: 2^40, on a valid page.
TEST(AudioDecode, AbsurdOggLengthIsRefusedBeforeDecoding) {
  auto ogg = ReadAudioFile("tone_two_pages.ogg");
  size_t last = 0;
  for (size_t k = 0; k + 4 <= ogg.size(); ++k)
    if (std::memcmp(&ogg[k], "OggS", 4) == 0) last = k;
  ASSERT_GT(last, 0u);
  const uint64_t granule = uint64_t{1} << 40;
  for (int k = 0; k < 8; ++k) ogg[last + 6 + size_t(k)] = uint8_t(granule >> (8 * k));
  for (int k = 0; k < 4; ++k) ogg[last + 22 + size_t(k)] = 0;
  const uint32_t crc = OggCrc(&ogg[last], ogg.size() - last);
  for (int k = 0; k < 4; ++k) ogg[last + 22 + size_t(k)] = uint8_t(crc >> (8 * k));
  const std::string msg = ErrorOf([&] { PeekAudio(ogg); });
  EXPECT_NE(msg.find("more than max_samples"), std::string::npos) << msg;
}

TEST(AudioDecode, TheLibraryReadsTheFormatsTheDocsPromise) {
  for (const char* c : {"WAV", "FLAC", "OGG"}) EXPECT_TRUE(AudioFormatAvailable(c)) << c;
  EXPECT_FALSE(AudioFormatAvailable("NOPE"));
  EXPECT_NE(AudioFormatName(PeekAudio(ReadAudioFile("tone_stereo.ogg")).format).find("Vorbis"), std::string::npos);
}

TEST(Downmix, DalisWeightedSumInFloat) {
  // Two channels: x * 0.5f + y * 0.5f, the exactly rounded mean.
  std::vector<float> f = {0.5f, 0.25f, -1.f, 1.f, 0.1f, 0.2f};
  DownmixToMono(f.data(), 3, 2, f.data());
  EXPECT_EQ(f[0], 0.375f);
  EXPECT_EQ(f[1], 0.f);
  EXPECT_EQ(f[2], 0.1f * 0.5f + 0.2f * 0.5f);
  // Three channels: weights 1.0f / 3 (float), summed in channel order, not the exact mean.
  const std::vector<float> three = {0.1f, 0.7f, 0.3f};
  float out = 0;
  DownmixToMono(three.data(), 1, 3, &out);
  const float w = 1.0f / 3.0f;
  EXPECT_EQ(out, (0.1f * w + 0.7f * w) + 0.3f * w);
  // One channel copies.
  std::vector<float> one = {1.f, 2.f}, copy(2);
  DownmixToMono(one.data(), 2, 1, copy.data());
  EXPECT_EQ(copy, one);
}

TEST(Downmix, IntegerOutputsAreTheFloatMeanTimesTheTypesMaximum) {
  // DALI 2.4 (checked against it): int16 11585 and -6270 give 2657, not the exact mean's 2658, because
  // the mean is taken of the decoded floats (x / 32768) and stored times 32767, rounded to nearest even.
  const std::vector<float> stereo = {11585 / 32768.f, -6270 / 32768.f, 11585 / 32768.f, 15136 / 32768.f,
                                     1.0f, 1.0f, -1.0f, -1.0f};
  std::vector<float> mono(4);
  DownmixToMono(stereo.data(), 4, 2, mono.data());
  std::vector<int16_t> i16(4);
  StoreNormalized(mono.data(), 4, DType::kInt16, i16.data());
  EXPECT_EQ(i16, (std::vector<int16_t>{2657, 13360, 32767, -32767}));
  std::vector<int32_t> i32(1);
  StoreNormalized(mono.data() + 2, 1, DType::kInt32, i32.data());
  EXPECT_EQ(i32[0], 2147483647);
  EXPECT_THROW(StoreNormalized(mono.data(), 1, DType::kUInt8, i16.data()), Error);
}

}  // namespace
}  // namespace sluice::kernels
