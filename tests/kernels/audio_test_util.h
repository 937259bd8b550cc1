// Helpers shared by the audio tests (kernels, operators, readers): WAV streams written byte by
// byte, the test audio of tests/data/audio (make_test_audio.py), and tones.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numbers>
#include <string>
#include <vector>

namespace sluice::testing {

inline std::string AudioPath(const std::string& name) {
  return std::string(SLUICE_SOURCE_DIR) + "/tests/data/audio/" + name;
}

inline std::vector<uint8_t> ReadAudioFile(const std::string& name) {
  std::ifstream f(AudioPath(name), std::ios::binary);
  EXPECT_TRUE(f.good()) << name;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

template <typename T>
std::vector<uint8_t> AsBytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Little-endian RIFF bytes, appended; the fmt chunk both writers share.
struct RiffWriter {
  std::vector<uint8_t> b;
  void Put(uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) b.push_back(uint8_t(v >> (8 * k)));
  }
  void Tag(const char* s) { b.insert(b.end(), s, s + 4); }
  void Fmt(uint16_t tag, int channels, int rate, int bits) {
    Tag("fmt ");
    Put(16, 4);
    Put(tag, 2);
    Put(uint32_t(channels), 2);
    Put(uint32_t(rate), 4);
    Put(uint32_t(rate * channels * bits / 8), 4);
    Put(uint32_t(channels * bits / 8), 2);
    Put(uint32_t(bits), 2);
  }
};

// A canonical 44-byte-header WAV: `tag` 1 = integer PCM, 3 = IEEE float; declared_data < 0: the
// data's real size (else the size its header claims).
inline std::vector<uint8_t> MakeWav(uint16_t tag, int channels, int rate, int bits, const std::vector<uint8_t>& data,
                                    int64_t declared_data = -1) {
  const uint32_t data_size = declared_data < 0 ? uint32_t(data.size()) : uint32_t(declared_data);
  RiffWriter w;
  w.Tag("RIFF");
  w.Put(uint32_t(36 + data_size), 4);
  w.Tag("WAVE");
  w.Fmt(tag, channels, rate, bits);
  w.Tag("data");
  w.Put(data_size, 4);
  w.b.insert(w.b.end(), data.begin(), data.end());
  return w.b;
}

// An RF64 stream (EBU Tech 3306): "RF64", a ds64 chunk with the 64-bit RIFF size, data size and
// sample count (what the header declares: real sizes when negative), fmt, and a data chunk whose
// 32-bit size is 0xFFFFFFFF.
inline std::vector<uint8_t> MakeRf64(int channels, int rate, int bits, const std::vector<uint8_t>& data,
                                     int64_t declared_data = -1, int64_t declared_frames = -1) {
  const uint64_t data_size = declared_data < 0 ? data.size() : uint64_t(declared_data);
  const uint64_t frames = declared_frames < 0 ? data.size() / uint64_t(channels * bits / 8) : uint64_t(declared_frames);
  RiffWriter w;
  w.Tag("RF64");
  w.Put(0xFFFFFFFFu, 4);
  w.Tag("WAVE");
  w.Tag("ds64");
  w.Put(28, 4);
  w.Put(4 + 36 + 24 + 8 + data_size, 8);  // RIFF size
  w.Put(data_size, 8);
  w.Put(frames, 8);
  w.Put(0, 4);  // no table
  w.Fmt(1, channels, rate, bits);
  w.Tag("data");
  w.Put(0xFFFFFFFFu, 4);
  w.b.insert(w.b.end(), data.begin(), data.end());
  return w.b;
}

// `frames` frames of int16 PCM: channel c is a sine of freq * (c + 1) Hz at amplitude amp.
inline std::vector<int16_t> TonePcm16(int64_t frames, int channels, double rate, double freq, double amp = 0.5) {
  std::vector<int16_t> v;
  for (int64_t t = 0; t < frames; ++t)
    for (int c = 0; c < channels; ++c)
      v.push_back(int16_t(std::lrint(amp * 32767 * std::sin(2 * std::numbers::pi * freq * (c + 1) * double(t) / rate))));
  return v;
}

inline std::vector<uint8_t> ToneWav(int64_t frames, int channels, int rate, double freq) {
  return MakeWav(1, channels, rate, 16, AsBytes(TonePcm16(frames, channels, rate, freq)));
}

inline void WriteBinary(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

}  // namespace sluice::testing
