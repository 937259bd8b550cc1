#include "kernels/audio/audio_decode.h"

#include <sndfile.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include <sluice/error.h>

#include "kernels/tensor/saturate_cast.h"

namespace sluice::kernels {
namespace {

// The bytes libsndfile reads through SF_VIRTUAL_IO: a cursor over memory the caller owns.
struct MemoryStream {
  const uint8_t* data;
  sf_count_t size;
  sf_count_t pos = 0;
};

sf_count_t StreamLength(void* user) { return static_cast<MemoryStream*>(user)->size; }

sf_count_t StreamSeek(sf_count_t offset, int whence, void* user) {
  auto* s = static_cast<MemoryStream*>(user);
  sf_count_t base = 0;
  if (whence == SEEK_CUR) base = s->pos;
  else if (whence == SEEK_END) base = s->size;
  else if (whence != SEEK_SET) return -1;
  // Positions past the end are allowed (reads there return nothing); before the start they fail.
  if (offset < -base || (offset > 0 && base > INT64_MAX - offset)) return -1;
  s->pos = base + offset;
  return s->pos;
}

sf_count_t StreamRead(void* dst, sf_count_t count, void* user) {
  auto* s = static_cast<MemoryStream*>(user);
  if (count <= 0 || s->pos >= s->size) return 0;
  const sf_count_t n = std::min(count, s->size - s->pos);
  std::memcpy(dst, s->data + s->pos, static_cast<size_t>(n));
  s->pos += n;
  return n;
}

sf_count_t StreamWrite(const void*, sf_count_t, void*) { return 0; }
sf_count_t StreamTell(void* user) { return static_cast<MemoryStream*>(user)->pos; }

struct CloseSndFile {
  void operator()(SNDFILE* f) const { sf_close(f); }
};
using SndFilePtr = std::unique_ptr<SNDFILE, CloseSndFile>;

// An open stream over `bytes` (which, with `stream`, must outlive it).
SndFilePtr Open(std::span<const uint8_t> bytes, MemoryStream& stream, SF_INFO& info) {
  if (bytes.empty()) throw Error("empty input (0 bytes): not an audio stream");
  stream = MemoryStream{bytes.data(), static_cast<sf_count_t>(bytes.size())};
  SF_VIRTUAL_IO io{&StreamLength, &StreamSeek, &StreamRead, &StreamWrite, &StreamTell};
  info = SF_INFO{};
  SNDFILE* f = sf_open_virtual(&io, SFM_READ, &info, &stream);
  if (!f) {
    // libsndfile keeps the reason of a failed open in one global: under concurrent failures the
    // text may be another call's, hence the fixed part of the message.
    throw Error("not an audio stream libsndfile can decode (unknown format, unsupported codec or a damaged "
                "header): " + std::string(sf_strerror(nullptr)));
  }
  return SndFilePtr(f);
}

uint32_t ReadLE32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }

// A RIFF/WAVE stream whose data chunk declares more bytes than the input holds was cut short:
// libsndfile would quietly decode the part that is there. Sizes 0 and 0xFFFFFFFF are what
// streaming writers leave when they cannot seek back; those are not checked.
void CheckWavDataChunk(std::span<const uint8_t> b) {
  if (b.size() < 12 || std::memcmp(b.data(), "RIFF", 4) != 0 || std::memcmp(b.data() + 8, "WAVE", 4) != 0) return;
  size_t pos = 12;
  while (pos + 8 <= b.size()) {
    const uint32_t size = ReadLE32(b.data() + pos + 4);
    if (std::memcmp(b.data() + pos, "data", 4) == 0) {
      const uint64_t have = b.size() - (pos + 8);
      if (size != 0 && size != 0xFFFFFFFFu && size > have)
        throw Error("truncated WAV stream: its data chunk declares " + std::to_string(size) + " bytes, the input holds " +
                    std::to_string(have));
      return;
    }
    pos += 8 + static_cast<size_t>(size) + (size & 1);  // chunks are padded to even sizes
  }
}

uint64_t ReadLE64(const uint8_t* p) { return ReadLE32(p) | (uint64_t{ReadLE32(p + 4)} << 32); }

// An RF64 (or BW64) stream keeps its sizes in the ds64 chunk: the data chunk's size field is
// 0xFFFFFFFF and the real one is ds64's 64-bit dataSize; ds64 also declares the sample count.
// libsndfile quietly clamps a dataSize past the input's end (2^41 bytes declared, 2 KB there: it
// decodes the 2 KB), so a truncated or absurd header would pass as a short stream. Refused here,
// before anything is sized from it: a dataSize larger than the bytes after the data chunk's header,
// and a sample count (frames) that the data cannot hold or that exceeds max_samples.
// `pcm`: one frame per block_align bytes (integer or float PCM, A-law, mu-law), so the data's frames
// are known from its size.
void CheckRf64Sizes(std::span<const uint8_t> b, int channels, int64_t max_samples, bool pcm) {
  if (b.size() < 12 || (std::memcmp(b.data(), "RF64", 4) != 0 && std::memcmp(b.data(), "BW64", 4) != 0) ||
      std::memcmp(b.data() + 8, "WAVE", 4) != 0)
    return;
  if (b.size() < 12 + 8 + 24 || std::memcmp(b.data() + 12, "ds64", 4) != 0 || ReadLE32(b.data() + 16) < 24)
    throw Error("RF64 stream without a ds64 chunk first (its sizes are unknown)");
  const uint64_t data_size = ReadLE64(b.data() + 28), sample_count = ReadLE64(b.data() + 36);
  // The data chunk: where it starts, hence how many bytes the input holds for it.
  size_t pos = 12;
  uint64_t have = 0, block_align = 0;
  bool found = false;
  while (pos + 8 <= b.size()) {
    const uint32_t size = ReadLE32(b.data() + pos + 4);
    if (std::memcmp(b.data() + pos, "fmt ", 4) == 0 && size >= 14 && pos + 8 + 14 <= b.size())
      block_align = b[pos + 8 + 12] | (b[pos + 8 + 13] << 8);
    if (std::memcmp(b.data() + pos, "data", 4) == 0) {
      have = b.size() - (pos + 8);
      found = true;
      break;
    }
    const uint64_t next = pos + 8 + uint64_t{size} + (size & 1);
    if (next > b.size()) break;
    pos = static_cast<size_t>(next);
  }
  if (!found) return;  // libsndfile refuses a stream without a data chunk itself
  if (data_size > have)
    throw Error("truncated or corrupt RF64 stream: its ds64 chunk declares " + std::to_string(data_size) +
                " data bytes, the input holds " + std::to_string(have) + "; refused before decoding");
  if (sample_count == 0) return;  // not given (writers that leave it zero)
  if (channels > 0 && sample_count > static_cast<uint64_t>(max_samples / channels))
    throw Error("RF64 stream: its ds64 chunk declares " + std::to_string(sample_count) + " frames of " +
                std::to_string(channels) + " channels, more than max_samples (" + std::to_string(max_samples) +
                " samples); refused before decoding");
  if (pcm && block_align > 0 && sample_count > data_size / block_align)
    throw Error("corrupt RF64 stream: its ds64 chunk declares " + std::to_string(sample_count) + " frames, its " +
                std::to_string(data_size) + " data bytes hold " + std::to_string(data_size / block_align) +
                "; refused before decoding");
}

void ReadFrames(SNDFILE* f, int64_t frames, DType type, void* out, sf_count_t* got) {
  switch (type) {
    case DType::kInt16: *got = sf_readf_short(f, static_cast<short*>(out), frames); return;
    case DType::kInt32: *got = sf_readf_int(f, static_cast<int*>(out), frames); return;
    case DType::kFloat32: *got = sf_readf_float(f, static_cast<float*>(out), frames); return;
    default: throw Error("audio can be decoded to int16, int32 or float32, not " + std::string(ToString(type)));
  }
}

// Float PCM to integers: x * max rounded to nearest even and saturated, one block at a time.
template <typename T>
sf_count_t ReadFloatPcmAsInt(SNDFILE* f, int64_t frames, int channels, T* out) {
  std::array<float, 4096> block;
  const int64_t block_frames = std::max<int64_t>(1, static_cast<int64_t>(block.size()) / channels);
  const double scale = static_cast<double>(std::numeric_limits<T>::max());
  sf_count_t done = 0;
  while (done < frames) {
    const sf_count_t want = std::min(block_frames, frames - done);
    const sf_count_t got = sf_readf_float(f, block.data(), want);
    if (got <= 0) break;
    const int64_t n = got * channels;
    T* dst = out + done * channels;
    for (int64_t k = 0; k < n; ++k) dst[k] = SaturateArithmetic<T>(static_cast<double>(block[size_t(k)]) * scale);
    done += got;
    if (got < want) break;
  }
  return done;
}

}  // namespace

AudioInfo PeekAudio(std::span<const uint8_t> bytes, int64_t max_samples) {
  MemoryStream stream{};
  SF_INFO sf{};
  SndFilePtr f = Open(bytes, stream, sf);
  AudioInfo info;
  info.channels = sf.channels;
  info.sample_rate = sf.samplerate;
  info.format = sf.format;
  const int subtype = sf.format & SF_FORMAT_SUBMASK;
  info.float_pcm = subtype == SF_FORMAT_FLOAT || subtype == SF_FORMAT_DOUBLE;
  if (sf.channels <= 0) throw Error("the stream declares " + std::to_string(sf.channels) + " channels");
  if (sf.samplerate <= 0) throw Error("the stream declares a sample rate of " + std::to_string(sf.samplerate) + " Hz");
  if (sf.frames < 0 || sf.frames == SF_COUNT_MAX)
    throw Error("the stream's length is unknown: a truncated or unterminated stream (" + AudioFormatName(sf.format) + ")");
  if (sf.frames == 0) throw Error("the stream holds no audio samples (" + AudioFormatName(sf.format) + ")");
  if (sf.frames > max_samples / sf.channels)
    throw Error("the stream declares " + std::to_string(sf.frames) + " frames of " + std::to_string(sf.channels) +
                " channels, more than max_samples (" + std::to_string(max_samples) +
                " samples); refused before decoding");
  info.frames = sf.frames;
  const int container = sf.format & SF_FORMAT_TYPEMASK;
  if (container == SF_FORMAT_WAV || container == SF_FORMAT_WAVEX) CheckWavDataChunk(bytes);
  if (container == SF_FORMAT_RF64) {
    const bool pcm = subtype == SF_FORMAT_PCM_S8 || subtype == SF_FORMAT_PCM_U8 || subtype == SF_FORMAT_PCM_16 ||
                     subtype == SF_FORMAT_PCM_24 || subtype == SF_FORMAT_PCM_32 || subtype == SF_FORMAT_FLOAT ||
                     subtype == SF_FORMAT_DOUBLE || subtype == SF_FORMAT_ULAW || subtype == SF_FORMAT_ALAW;
    CheckRf64Sizes(bytes, sf.channels, max_samples, pcm);
  }
  return info;
}

void DecodeAudio(std::span<const uint8_t> bytes, const AudioInfo& info, int64_t first_frame, int64_t num_frames,
                 DType type, void* out) {
  if (num_frames <= 0) return;
  if (first_frame < 0 || first_frame > info.frames || num_frames > info.frames - first_frame)
    throw Error("frames [" + std::to_string(first_frame) + ", " + std::to_string(first_frame + num_frames) +
                ") are outside the stream's " + std::to_string(info.frames) + " frames");
  MemoryStream stream{};
  SF_INFO sf{};
  SndFilePtr f = Open(bytes, stream, sf);
  if (sf.channels != info.channels || sf.frames != info.frames)
    throw Error("the stream changed between its header and its decoding");
  if (first_frame > 0 && sf_seek(f.get(), first_frame, SEEK_SET) != first_frame)
    throw Error("cannot seek to frame " + std::to_string(first_frame) + ": " + sf_strerror(f.get()));
  sf_count_t got = 0;
  if (info.float_pcm && type == DType::kInt16) got = ReadFloatPcmAsInt(f.get(), num_frames, info.channels, static_cast<int16_t*>(out));
  else if (info.float_pcm && type == DType::kInt32) got = ReadFloatPcmAsInt(f.get(), num_frames, info.channels, static_cast<int32_t*>(out));
  else ReadFrames(f.get(), num_frames, type, out, &got);
  if (got != num_frames) {
    const int err = sf_error(f.get());
    throw Error("truncated or corrupt stream: decoded " + std::to_string(std::max<sf_count_t>(got, 0)) + " of the " +
                std::to_string(num_frames) + " frames its header declares (" + AudioFormatName(info.format) +
                (err ? std::string("; libsndfile: ") + sf_error_number(err) : std::string()) + ")");
  }
}

std::string AudioFormatName(int format) {
  SF_FORMAT_INFO major{}, sub{};
  major.format = format & SF_FORMAT_TYPEMASK;
  sub.format = format & SF_FORMAT_SUBMASK;
  std::string s;
  if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &major, sizeof(major)) == 0 && major.name) {
    s = major.name;
  } else {
    char b[32];
    std::snprintf(b, sizeof b, "format 0x%x", static_cast<unsigned>(major.format));
    s = b;
  }
  if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &sub, sizeof(sub)) == 0 && sub.name) s += std::string(", ") + sub.name;
  return s;
}

namespace {

// Short names of the containers, as AudioFormatAvailable takes them.
struct Container {
  const char* name;
  int format;
};
constexpr Container kContainers[] = {
    {"WAV", SF_FORMAT_WAV},   {"WAVEX", SF_FORMAT_WAVEX}, {"W64", SF_FORMAT_W64}, {"RF64", SF_FORMAT_RF64},
    {"FLAC", SF_FORMAT_FLAC}, {"OGG", SF_FORMAT_OGG},     {"MP3", SF_FORMAT_MPEG}, {"AIFF", SF_FORMAT_AIFF},
    {"AU", SF_FORMAT_AU},     {"CAF", SF_FORMAT_CAF},
};

}  // namespace

std::vector<std::string> AudioFormatsAvailable() {
  int count = 0;
  sf_command(nullptr, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof(count));
  std::vector<std::string> names;
  for (int k = 0; k < count; ++k) {
    SF_FORMAT_INFO fi{};
    fi.format = k;
    if (sf_command(nullptr, SFC_GET_FORMAT_MAJOR, &fi, sizeof(fi)) != 0) continue;
    for (const Container& c : kContainers)
      if (c.format == fi.format) names.emplace_back(c.name);
  }
  return names;
}

bool AudioFormatAvailable(const std::string& container) {
  const auto names = AudioFormatsAvailable();
  return std::find(names.begin(), names.end(), container) != names.end();
}

}  // namespace sluice::kernels
