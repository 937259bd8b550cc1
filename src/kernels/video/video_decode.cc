#include "kernels/video/video_decode.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sluice/error.h>

#include "kernels/video/ffmpeg_library.h"

namespace sluice::kernels {

int VideoReadPacket(void* opaque, uint8_t* buf, int size) {
  auto* d = static_cast<VideoDecoder*>(opaque);
  const int64_t left = static_cast<int64_t>(d->bytes_.size()) - d->pos_;
  if (left <= 0) return AVERROR_EOF;
  const int n = static_cast<int>(std::min<int64_t>(left, size));
  std::memcpy(buf, d->bytes_.data() + d->pos_, static_cast<size_t>(n));
  d->pos_ += n;
  return n;
}

int64_t VideoSeek(void* opaque, int64_t offset, int whence) {
  auto* d = static_cast<VideoDecoder*>(opaque);
  const int64_t size = static_cast<int64_t>(d->bytes_.size());
  if (whence & AVSEEK_SIZE) return size;
  int64_t to = -1;
  switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: to = offset; break;
    case SEEK_CUR: to = d->pos_ + offset; break;
    case SEEK_END: to = size + offset; break;
    default: return AVERROR(EINVAL);
  }
  if (to < 0 || to > size) return AVERROR(EINVAL);
  d->pos_ = to;
  return to;
}

double VideoIndex::Seconds(int64_t frame) const {
  if (by_timestamp && frame >= 0 && frame < static_cast<int64_t>(pts.size()) && tb_den != 0)
    return static_cast<double>(pts[static_cast<size_t>(frame)] - pts[0]) * static_cast<double>(tb_num) /
           static_cast<double>(tb_den);
  return fps > 0 ? static_cast<double>(frame) / fps : 0.0;
}

std::unique_ptr<VideoDecoder> VideoDecoder::FromMemory(std::span<const uint8_t> bytes, int64_t max_pixels,
                                                       int threads) {
  std::unique_ptr<VideoDecoder> d(new VideoDecoder);
  d->bytes_ = bytes;
  d->from_memory_ = true;
  d->max_pixels_ = max_pixels;
  d->threads_ = std::max(threads, 1);
  if (bytes.empty()) throw Error("empty input (0 bytes)");
  d->Open();
  return d;
}

std::unique_ptr<VideoDecoder> VideoDecoder::FromFile(const std::string& path, int64_t max_pixels) {
  std::unique_ptr<VideoDecoder> d(new VideoDecoder);
  d->path_ = path;
  d->max_pixels_ = max_pixels;
  d->Open();
  return d;
}

VideoDecoder::~VideoDecoder() {
  ReleaseHeld();
  Close();
}

void VideoDecoder::ReleaseHeld() {
  for (AVFrame*& f : held_) Ffmpeg().av_frame_free(&f);
  held_.clear();
}

void VideoDecoder::DecodeNextHeld(int64_t count) {
  ReleaseHeld();
  held_first_ = next_;
  DecodeNextWith(count, [&](const AVFrame* f, int64_t) {
    AVFrame* ref = Ffmpeg().av_frame_clone(f);
    if (!ref) throw Error("out of memory (av_frame_clone)");
    held_.push_back(ref);
  });
}

void VideoDecoder::ConvertHeld(size_t i, VideoColor color, uint8_t* dst, FrameConverter& converter) const {
  if (i >= held_.size()) throw Error("internal: held frame " + std::to_string(i) + " of " + std::to_string(held_.size()));
  converter.Convert(held_[i], index_->width, index_->height, held_first_ + static_cast<int64_t>(i), color, dst);
}

void VideoDecoder::Close() {
  const FfmpegLibrary& ff = Ffmpeg();
  if (packet_) ff.av_packet_free(&packet_);
  if (frame_) ff.av_frame_free(&frame_);
  if (codec_) ff.avcodec_free_context(&codec_);
  if (fmt_) ff.avformat_close_input(&fmt_);
  if (avio_) {
    ff.av_free(avio_->buffer);
    ff.avio_context_free(&avio_);
  }
  stream_ = -1;
}

void VideoDecoder::Open() {
  const FfmpegLibrary& ff = Ffmpeg();
  SilenceFfmpegLog(ff);
  Close();
  pos_ = 0;
  fresh_ = true;
  fmt_ = ff.avformat_alloc_context();
  if (!fmt_) throw Error("out of memory (avformat_alloc_context)");
  if (from_memory_) {
    constexpr int kBuffer = 1 << 16;
    auto* buf = static_cast<uint8_t*>(ff.av_malloc(kBuffer));
    avio_ = buf ? ff.avio_alloc_context(buf, kBuffer, 0, this, &VideoReadPacket, nullptr, &VideoSeek) : nullptr;
    if (!avio_) {
      ff.av_free(buf);
      throw Error("out of memory (avio_alloc_context)");
    }
    fmt_->pb = avio_;
    fmt_->flags |= AVFMT_FLAG_CUSTOM_IO;
  }
  int rc = ff.avformat_open_input(&fmt_, from_memory_ ? nullptr : path_.c_str(), nullptr, nullptr);
  if (rc < 0)  // avformat_open_input frees fmt_ on failure
    throw Error("cannot read the container (truncated, missing its index such as an MP4 moov atom, or not a video "
                "format FFmpeg knows): " + AvErrorText(rc));
  for (unsigned i = 0; i < fmt_->nb_streams; ++i) {
    const AVStream* st = fmt_->streams[i];
    if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(st->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
      stream_ = static_cast<int>(i);
      break;
    }
  }
  if (stream_ < 0) {
    std::string kinds;
    for (unsigned i = 0; i < fmt_->nb_streams; ++i) {
      const AVMediaType t = fmt_->streams[i]->codecpar->codec_type;
      kinds += std::string(kinds.empty() ? "" : ", ") +
               (t == AVMEDIA_TYPE_AUDIO ? "audio" : t == AVMEDIA_TYPE_SUBTITLE ? "subtitle" : t == AVMEDIA_TYPE_VIDEO ? "cover image" : "data");
    }
    throw Error("no video stream in the container (" + std::to_string(fmt_->nb_streams) + " stream(s)" +
                (kinds.empty() ? "" : ": " + kinds) + ")");
  }
  AVStream* st = fmt_->streams[stream_];
  if (st->codecpar->width <= 0 || st->codecpar->height <= 0 || st->codecpar->format < 0) {
    rc = ff.avformat_find_stream_info(fmt_, nullptr);
    if (rc < 0) throw Error("cannot read the video stream's parameters: " + AvErrorText(rc));
  }
  for (unsigned i = 0; i < fmt_->nb_streams; ++i)
    if (static_cast<int>(i) != stream_) fmt_->streams[i]->discard = AVDISCARD_ALL;
  const AVCodec* codec = ff.avcodec_find_decoder(st->codecpar->codec_id);
  if (!codec)
    throw Error(std::string("unsupported codec '") + ff.avcodec_get_name(st->codecpar->codec_id) +
                "': the FFmpeg loaded has no decoder for it");
  const int64_t w = st->codecpar->width, h = st->codecpar->height;
  if (w <= 0 || h <= 0) throw Error("the video stream declares no frame size");
  if (w * h > max_pixels_)
    throw Error("frames of " + std::to_string(w) + "x" + std::to_string(h) + " pixels are over max_pixels (" +
                std::to_string(max_pixels_) + ")");
  codec_ = ff.avcodec_alloc_context3(codec);
  frame_ = ff.av_frame_alloc();
  packet_ = ff.av_packet_alloc();
  if (!codec_ || !frame_ || !packet_) throw Error("out of memory (FFmpeg contexts)");
  rc = ff.avcodec_parameters_to_context(codec_, st->codecpar);
  if (rc < 0) throw Error("bad codec parameters: " + AvErrorText(rc));
  // Parallelism is across samples, on Sluice's threads, unless the caller asked for FFmpeg's.
  codec_->thread_count = threads_;
  codec_->thread_type = threads_ > 1 ? FF_THREAD_FRAME | FF_THREAD_SLICE : 0;
  codec_->pkt_timebase = st->time_base;
  rc = ff.avcodec_open2(codec_, codec, nullptr);
  if (rc < 0) throw Error(std::string("cannot open the '") + codec->name + "' decoder: " + AvErrorText(rc));
}

void VideoDecoder::UseIndex(std::shared_ptr<const VideoIndex> index) { index_ = std::move(index); }

const VideoIndex& VideoDecoder::Index() {
  if (!index_) BuildIndex();
  return *index_;
}

std::shared_ptr<const VideoIndex> VideoDecoder::SharedIndex() {
  Index();
  return index_;
}

void VideoDecoder::BuildIndex() {
  const FfmpegLibrary& ff = Ffmpeg();
  if (!fresh_) Open();
  fresh_ = false;
  auto idx = std::make_shared<VideoIndex>();
  const AVStream* st = fmt_->streams[stream_];
  idx->width = st->codecpar->width;
  idx->height = st->codecpar->height;
  idx->codec = ff.avcodec_get_name(st->codecpar->codec_id);
  idx->tb_num = st->time_base.num;
  idx->tb_den = st->time_base.den;
  if (st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0)
    idx->fps = static_cast<double>(st->avg_frame_rate.num) / st->avg_frame_rate.den;
  bool have_ts = true;
  int64_t count = 0, packets = 0;  // frames; every packet of the stream (discarded ones too)
  int64_t end_ts = AV_NOPTS_VALUE;  // where the frames read end: the largest pts + duration
  for (;;) {
    const int rc = ff.av_read_frame(fmt_, packet_);
    if (rc == AVERROR_EOF) break;
    if (rc < 0)
      throw Error("the file is truncated or corrupt: reading stopped after frame " + std::to_string(count - 1) + ": " +
                  AvErrorText(rc));
    if (packet_->stream_index == stream_) ++packets;
    if (packet_->stream_index == stream_ && packet_->size > 0 && !(packet_->flags & AV_PKT_FLAG_DISCARD)) {
      // A demuxer marks a packet it could read only part of (an MP4 sample past the end of a cut
      // file) as corrupt.
      if (packet_->flags & AV_PKT_FLAG_CORRUPT) {
        ff.av_packet_unref(packet_);
        throw Error("the file is truncated or corrupt: the packet of frame " + std::to_string(count) +
                    " is incomplete or damaged (the demuxer flags it corrupt)");
      }
      if (packet_->pts != AV_NOPTS_VALUE) {
        const int64_t e = packet_->pts + std::max<int64_t>(packet_->duration, 0);
        if (end_ts == AV_NOPTS_VALUE || e > end_ts) end_ts = e;
      }
      if (packet_->pts == AV_NOPTS_VALUE) have_ts = false;
      else idx->pts.push_back(packet_->pts);
      if (packet_->flags & AV_PKT_FLAG_KEY) {
        const int64_t dts = packet_->dts != AV_NOPTS_VALUE ? packet_->dts : packet_->pts;
        if (dts == AV_NOPTS_VALUE) have_ts = false;
        idx->key_dts.push_back(dts);
        idx->key_pts.push_back(packet_->pts);
      }
      ++count;
    }
    ff.av_packet_unref(packet_);
  }
  idx->frames = count;
  if (fmt_->pb && fmt_->pb->error < 0 && fmt_->pb->error != AVERROR_EOF)
    throw Error("the file is truncated or corrupt: reading failed after frame " + std::to_string(count - 1) + ": " +
                AvErrorText(fmt_->pb->error));
  if (count == 0) throw Error("the video stream holds no frames");
  CheckNotTruncated(*idx, packets, end_ts);
  std::sort(idx->pts.begin(), idx->pts.end());
  if (have_ts && std::adjacent_find(idx->pts.begin(), idx->pts.end()) != idx->pts.end()) have_ts = false;
  if (have_ts && !std::is_sorted(idx->key_dts.begin(), idx->key_dts.end())) have_ts = false;
  idx->by_timestamp = have_ts && !idx->key_dts.empty();
  if (!idx->by_timestamp) {
    idx->pts.clear();
    idx->key_dts.clear();
    idx->key_pts.clear();
  }
  index_ = std::move(idx);
}

// A demuxer reads a cut file to its cut and reports a clean end of file: Matroska and WebM resync
// past a cluster cut short, MP4 with its index at the start stops at the last whole sample. What
// the container declares about the stream tells the truncation: its frame count (MP4, AVI: the
// stream header; Matroska: mkvmerge's NUMBER_OF_FRAMES tag) against the packets read, and its
// duration (the stream header; Matroska's per-track DURATION tag, which FFmpeg and mkvmerge write;
// else, for a file with no other stream, the container's duration) against where the frames read
// end. Durations estimated by FFmpeg from the bit rate are not declarations and are not used. The
// tolerance, three frame periods and at least 0.1 s, absorbs a last frame whose duration the
// container does not store.
void VideoDecoder::CheckNotTruncated(const VideoIndex& idx, int64_t packets, int64_t end_ts) const {
  const FfmpegLibrary& ff = Ffmpeg();
  const AVStream* st = fmt_->streams[stream_];
  const int64_t last = idx.frames - 1;
  int64_t declared_frames = st->nb_frames;
  std::string frames_from = "the container";
  if (const AVDictionaryEntry* e = ff.av_dict_get(st->metadata, "NUMBER_OF_FRAMES", nullptr, 0)) {
    char* endp = nullptr;
    const long long n = std::strtoll(e->value, &endp, 10);
    if (endp != e->value && *endp == '\0' && n > declared_frames) {
      declared_frames = n;
      frames_from = "its NUMBER_OF_FRAMES tag";
    }
  }
  if (declared_frames > packets)
    throw Error("the file is truncated: " + frames_from + " declares " + std::to_string(declared_frames) +
                " frames, " + std::to_string(packets) + " could be read (the last read: frame " + std::to_string(last) +
                ")");
  if (end_ts == AV_NOPTS_VALUE || idx.tb_den == 0) return;
  const bool estimated = fmt_->duration_estimation_method == AVFMT_DURATION_FROM_BITRATE;
  double declared = -1;
  std::string from;
  if (st->duration > 0 && st->duration != AV_NOPTS_VALUE && !estimated) {
    declared = static_cast<double>(st->duration) * av_q2d(st->time_base);
    from = "the stream's header";
  } else if (const AVDictionaryEntry* e = ff.av_dict_get(st->metadata, "DURATION", nullptr, 0)) {
    int h = 0, m = 0;
    double sec = 0;
    if (std::sscanf(e->value, "%d:%d:%lf", &h, &m, &sec) == 3 && h >= 0 && m >= 0 && sec >= 0) {
      declared = h * 3600.0 + m * 60.0 + sec;
      from = "its DURATION tag";
    }
  } else if (fmt_->nb_streams == 1 && fmt_->duration > 0 && fmt_->duration != AV_NOPTS_VALUE && !estimated) {
    declared = static_cast<double>(fmt_->duration) / AV_TIME_BASE;
    from = "the container";
  }
  if (declared <= 0) return;
  const double tb = av_q2d(st->time_base);
  const double end = static_cast<double>(end_ts) * tb;
  double start = 0;
  if (!idx.pts.empty()) start = static_cast<double>(*std::min_element(idx.pts.begin(), idx.pts.end())) * tb;
  const double period = idx.fps > 0 ? 1.0 / idx.fps : idx.frames > 1 ? (end - start) / static_cast<double>(idx.frames) : 0.5;
  const double tolerance = std::max(3 * period, 0.1);
  if (end + tolerance < declared) {
    char msg[256];
    std::snprintf(msg, sizeof msg, "the file is truncated: its video frames end at %.3f s (frame %lld, the last read), "
                  "%s declares %.3f s", end, static_cast<long long>(last), from.c_str(), declared);
    throw Error(msg);
  }
}

int64_t VideoDecoder::FrameOfPts(int64_t pts) const {
  const auto& v = index_->pts;
  auto it = std::lower_bound(v.begin(), v.end(), pts);
  if (it == v.end() || *it != pts) return -1;
  return it - v.begin();
}

void VideoDecoder::Decode(std::span<const int64_t> frames, VideoColor color,
                          const std::function<uint8_t*(size_t)>& dst) {
  const VideoIndex& idx = Index();
  if (frames.empty()) return;
  for (size_t i = 0; i < frames.size(); ++i)
    if (frames[i] < 0 || frames[i] >= idx.frames || (i > 0 && frames[i] <= frames[i - 1]))
      throw Error("internal: frames to decode must be ascending, distinct and within the stream's " +
                  std::to_string(idx.frames));
  std::vector<char> done(frames.size(), 0);
  std::vector<int64_t> tries;  // keyframes to start from, the last -1 (the stream's start)
  if (idx.by_timestamp) {
    const int64_t target = idx.pts[static_cast<size_t>(frames[0])];
    int64_t key = -1;
    for (size_t k = 0; k < idx.key_pts.size(); ++k)
      if (idx.key_pts[k] != AV_NOPTS_VALUE && idx.key_pts[k] <= target) key = static_cast<int64_t>(k);
    if (key > 0) tries.push_back(key);
    if (key > 1) tries.push_back(key - 1);
  }
  tries.push_back(-1);
  for (int64_t key : tries) {
    if (!DecodePass(key, frames, color, dst, done)) continue;
    if (std::all_of(done.begin(), done.end(), [](char c) { return c != 0; })) return;
  }
  for (size_t i = 0; i < frames.size(); ++i)
    if (!done[i])
      throw Error("frame " + std::to_string(frames[i]) + " of the " + std::to_string(idx.frames) +
                  "-frame stream could not be decoded (the stream is corrupt or ends early)");
}

bool VideoDecoder::DecodePass(int64_t key, std::span<const int64_t> frames, VideoColor color,
                              const std::function<uint8_t*(size_t)>& dst, std::vector<char>& done) {
  const FfmpegLibrary& ff = Ffmpeg();
  const VideoIndex& idx = *index_;
  if (key < 0) {
    if (!fresh_) Open();
  } else {
    const int rc = ff.av_seek_frame(fmt_, stream_, idx.key_dts[static_cast<size_t>(key)], AVSEEK_FLAG_BACKWARD);
    if (rc < 0) return false;
    ff.avcodec_flush_buffers(codec_);
  }
  fresh_ = false;
  ++starts_;
  const int64_t last = frames.back();
  std::vector<int64_t> wanted_pts;  // ascending, as `frames`
  if (idx.by_timestamp)
    for (int64_t f : frames) wanted_pts.push_back(idx.pts[static_cast<size_t>(f)]);
  int64_t counted = 0;  // frames output so far (counting mode, from the start)
  int64_t last_frame = -1;  // the last frame identified
  bool first_packet = true, eof = false;
  auto frame_of_packet = [&](const AVPacket* p) {
    if (!idx.by_timestamp || p->pts == AV_NOPTS_VALUE) return counted;
    const auto& v = idx.pts;
    return static_cast<int64_t>(std::upper_bound(v.begin(), v.end(), p->pts) - v.begin()) - 1;
  };
  while (last_frame < last) {
    if (!eof) {
      int rc = ff.av_read_frame(fmt_, packet_);
      if (rc == AVERROR_EOF) {
        eof = true;
        rc = ff.avcodec_send_packet(codec_, nullptr);
      } else if (rc < 0) {
        throw Error("the file is truncated or corrupt: reading failed after frame " + std::to_string(last_frame) +
                    ": " + AvErrorText(rc));
      } else {
        if (packet_->stream_index != stream_) {
          ff.av_packet_unref(packet_);
          continue;
        }
        if (first_packet && key >= 0) {
          first_packet = false;
          const int64_t dts = packet_->dts != AV_NOPTS_VALUE ? packet_->dts : packet_->pts;
          if (dts == AV_NOPTS_VALUE || dts > idx.key_dts[static_cast<size_t>(key)]) {  // landed late
            ff.av_packet_unref(packet_);
            return false;
          }
        }
        first_packet = false;
        const int64_t at = frame_of_packet(packet_);
        // Frames not requested (before the clip, between strided frames) are decoded only as
        // references for the requested ones: a frame no other refers to (a non-reference
        // B-frame) is not decoded at all. Bit-exact: nothing decoded afterwards reads it.
        codec_->skip_frame = idx.by_timestamp && packet_->pts != AV_NOPTS_VALUE &&
                                     !std::binary_search(wanted_pts.begin(), wanted_pts.end(), packet_->pts)
                                 ? AVDISCARD_NONREF
                                 : AVDISCARD_DEFAULT;
        rc = ff.avcodec_send_packet(codec_, packet_);
        ff.av_packet_unref(packet_);
        if (rc < 0 && rc != AVERROR(EAGAIN))
          throw Error("corrupt video data: decoding failed at frame " + std::to_string(std::max<int64_t>(at, 0)) +
                      ": " + AvErrorText(rc));
      }
    }
    for (;;) {
      const int rc = ff.avcodec_receive_frame(codec_, frame_);
      if (rc == AVERROR(EAGAIN)) break;
      if (rc == AVERROR_EOF) return true;
      if (rc < 0)
        throw Error("corrupt video data: decoding failed after frame " + std::to_string(last_frame) + ": " +
                    AvErrorText(rc));
      int64_t n;
      if (idx.by_timestamp) {
        const int64_t ts = frame_->pts != AV_NOPTS_VALUE ? frame_->pts : frame_->best_effort_timestamp;
        n = ts == AV_NOPTS_VALUE ? -1 : FrameOfPts(ts);
      } else {
        n = counted++;
      }
      if (n >= 0) {
        last_frame = std::max(last_frame, n);
        auto it = std::lower_bound(frames.begin(), frames.end(), n);
        if (it != frames.end() && *it == n) {
          const size_t i = static_cast<size_t>(it - frames.begin());
          if (!done[i]) {
            if ((frame_->flags & AV_FRAME_FLAG_CORRUPT) || frame_->decode_error_flags)
              throw Error("corrupt video data: frame " + std::to_string(n) +
                          " was decoded from damaged data (the decoder concealed errors in it)");
            Convert(frame_, n, color, dst(i));
            done[i] = 1;
          }
        }
      }
      ff.av_frame_unref(frame_);
      if (last_frame >= last) return true;
    }
    if (eof && last_frame < last) {
      // Drained: avcodec_receive_frame returned EAGAIN after the flush packet (should not happen).
      return true;
    }
  }
  return true;
}

void VideoDecoder::DecodeNext(int64_t count, VideoColor color, const std::function<uint8_t*(size_t)>& dst) {
  size_t got = 0;
  DecodeNextWith(count, [&](const AVFrame* f, int64_t n) { Convert(f, n, color, dst(got++)); });
}

void VideoDecoder::DecodeNextWith(int64_t count, const std::function<void(const AVFrame*, int64_t)>& take) {
  const FfmpegLibrary& ff = Ffmpeg();
  const VideoIndex& idx = Index();
  if (count <= 0) return;
  if (next_ + count > idx.frames)
    throw Error("internal: frames " + std::to_string(next_) + " to " + std::to_string(next_ + count - 1) +
                " asked of the " + std::to_string(idx.frames) + "-frame stream");
  if (!streaming_) {
    if (!fresh_) Open();  // the index pass read the stream: back to its start
    fresh_ = false;
    streaming_ = true;
    ++starts_;
    codec_->skip_frame = AVDISCARD_DEFAULT;
  }
  auto missing = [&](const std::string& why) {
    return Error("frame " + std::to_string(next_) + " of the " + std::to_string(idx.frames) +
                 "-frame stream could not be decoded (" + why + ")");
  };
  for (int64_t got = 0; got < count;) {
    int rc = ff.avcodec_receive_frame(codec_, frame_);
    if (rc == 0) {
      int64_t n;
      if (idx.by_timestamp) {
        const int64_t ts = frame_->pts != AV_NOPTS_VALUE ? frame_->pts : frame_->best_effort_timestamp;
        n = ts == AV_NOPTS_VALUE ? -1 : FrameOfPts(ts);
      } else {
        n = counted_++;
      }
      if (n > next_) {
        ff.av_frame_unref(frame_);
        throw missing("the decoder went on to frame " + std::to_string(n) + ": the stream is corrupt");
      }
      if (n == next_) {
        if ((frame_->flags & AV_FRAME_FLAG_CORRUPT) || frame_->decode_error_flags) {
          ff.av_frame_unref(frame_);
          throw Error("corrupt video data: frame " + std::to_string(n) +
                      " was decoded from damaged data (the decoder concealed errors in it)");
        }
        try {
          take(frame_, n);
        } catch (...) {
          ff.av_frame_unref(frame_);
          throw;
        }
        ++got;
        ++next_;
      }
      ff.av_frame_unref(frame_);  // n < next_ or -1: not a frame of the index (as Decode skips it)
      continue;
    }
    if (rc == AVERROR_EOF) throw missing("the stream is corrupt or ends early");
    if (rc != AVERROR(EAGAIN))
      throw Error("corrupt video data: decoding failed at frame " + std::to_string(next_) + ": " + AvErrorText(rc));
    if (flushed_) throw missing("the decoder returned nothing after the end of the stream");
    rc = ff.av_read_frame(fmt_, packet_);
    if (rc == AVERROR_EOF) {
      flushed_ = true;
      ff.avcodec_send_packet(codec_, nullptr);
      continue;
    }
    if (rc < 0)
      throw Error("the file is truncated or corrupt: reading failed at frame " + std::to_string(next_) + ": " +
                  AvErrorText(rc));
    if (packet_->stream_index != stream_) {
      ff.av_packet_unref(packet_);
      continue;
    }
    int64_t at = next_;  // the packet's frame, where its timestamp tells
    if (idx.by_timestamp && packet_->pts != AV_NOPTS_VALUE)
      at = std::max<int64_t>(std::upper_bound(idx.pts.begin(), idx.pts.end(), packet_->pts) - idx.pts.begin() - 1, 0);
    rc = ff.avcodec_send_packet(codec_, packet_);  // never EAGAIN: every frame ready was received
    ff.av_packet_unref(packet_);
    if (rc < 0 && rc != AVERROR(EAGAIN))
      throw Error("corrupt video data: decoding failed at frame " + std::to_string(at) + ": " + AvErrorText(rc));
  }
}

}  // namespace sluice::kernels
