// Decoding frames of one video stream with FFmpeg (kernels/video/ffmpeg_library.h), from bytes in
// memory (a custom AVIOContext: nothing is copied or written) or from a file.
//
// Frame numbers: frame k is the k-th frame a full decode of the stream outputs (presentation
// order), as PyAV's container.decode(video=0) numbers them. VideoIndex lists every frame's
// presentation timestamp from the packets (one demux pass, no decoding), so a clip starting at
// frame k is found exactly for constant and variable frame rates alike: Decode seeks to the last
// keyframe whose timestamp is at or before frame k's, checks that the demuxer really landed at or
// before that keyframe (else it steps back one keyframe, then to the start of the stream), decodes
// forward and identifies every output frame by its timestamp in the index -- container timestamps
// are used as identities, never converted to frame numbers by a frame rate. Streams without
// timestamps on every packet, or with repeated ones, are decoded from the start, counting frames.
// Packets the container marks as discarded (edit lists) are not frames. Frames not requested
// (before the first one requested, between strided ones) that no other frame refers to
// (non-reference B-frames) are skipped, not decoded (AVDISCARD_NONREF): the decoded frames are the
// same, bit for bit.
//
// Pixels (VideoConversion): kDali converts RGB and YCbCr as DALI 2.4's CPU video decoder does --
// planar 8-bit YUV by kernels/video/yuv_to_rgb.h, bit-identical to DALI's bundled libswscale 10;
// other pixel formats (high bit depth, semi-planar, ...) and YCbCr of full-range sources by the
// loaded libswscale with DALI's flags (SWS_BILINEAR | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND), equal
// to DALI's where the loaded libswscale computes as its own. kPyav converts by libswscale with
// SWS_BILINEAR and swscale's default colorspace details (BT.601, the stream's range not applied),
// into a 16-byte aligned buffer -- exactly what PyAV's VideoFrame.to_ndarray("rgb24" / "gray" /
// "yuv444p") does, hence bit-identical to it. GRAY (a Sluice extension) is PyAV's in both.
// Display rotation metadata is not applied (nor is it by PyAV or DALI).
//
// Errors (sluice::Error; the caller adds the operator and the source): FFmpeg missing, input FFmpeg
// cannot demux (truncated, no moov atom, unknown container), no video stream, a codec this FFmpeg
// cannot decode, a frame size over max_pixels, zero frames, a truncated file (fewer frames than the
// container declares, frames ending before the duration it declares -- a WebM/MKV cut mid-cluster
// demuxes to a clean end of file --, a packet the demuxer flags corrupt, a read error: each naming
// the last frame read), a packet that cannot be read or decoded (naming the frame number), a
// requested frame the decoder flags as corrupt (it concealed damaged data: AV_FRAME_FLAG_CORRUPT or
// decode_error_flags), and a requested frame that does not come out of the decoder.
//
// Sequential reading (DecodeNext): a stream returned from its first frame to its last in order, a
// few frames at a time, by one decoding pass -- no seek, no restart between calls (a streamed
// video is decoded once, whatever its GOP length). Every frame is decoded, as by PyAV's
// container.decode, so the frames are the same bit for bit.
//
// Thread-safety: a VideoDecoder is used by one thread at a time; different ones are independent.
// FFmpeg decodes single-threaded (thread_count = 1: parallelism is across samples) unless opened
// with threads > 1: then FFmpeg's frame threading (slice threading where the codec has no frame
// threading) runs that many threads of its own -- the same frames, bit for bit.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/video/yuv_to_rgb.h"

struct AVFormatContext;
struct AVIOContext;
struct AVCodecContext;
struct AVFrame;
struct AVPacket;
struct SwsContext;

namespace sluice::kernels {

enum class VideoColor { kRGB, kYCbCr, kGray };
// Whose conversion to RGB / YCbCr frames get (see "Pixels" above): DALI's (the default) or PyAV's.
enum class VideoConversion { kDali, kPyav };
inline int VideoChannels(VideoColor c) { return c == VideoColor::kGray ? 1 : 3; }

// The default limit on one frame's pixels (width x height): 2^26 (8192 x 8192).
inline constexpr int64_t kDefaultMaxVideoFramePixels = int64_t{1} << 26;

struct VideoIndex {
  int width = 0, height = 0;
  std::string codec;          // FFmpeg's decoder name ("h264", "hevc", "vp9", "av1", "mpeg4", ...)
  int64_t frames = 0;
  bool by_timestamp = false;  // false: no usable timestamps, frames are counted from the start
  int64_t tb_num = 0, tb_den = 1;  // the stream's time base
  double fps = 0;                  // the stream's average frame rate (0: unknown)
  std::vector<int64_t> pts;        // by_timestamp: each frame's timestamp, ascending
  std::vector<int64_t> key_dts, key_pts;  // the keyframes' packet decode / presentation timestamps
  // Frame k's time in seconds: its timestamp in the time base, else k / fps.
  double Seconds(int64_t frame) const;
};

// Converts decoded frames to packed uint8 pixels, DALI's or PyAV's way (see above). One per thread.
class FrameConverter {
 public:
  explicit FrameConverter(VideoConversion conversion = VideoConversion::kDali) : conversion_(conversion) {}
  ~FrameConverter();
  FrameConverter(const FrameConverter&) = delete;
  FrameConverter& operator=(const FrameConverter&) = delete;
  // `f` must be width x height (else an error naming `frame_number`); out: height x width x channels.
  void Convert(const AVFrame* f, int width, int height, int64_t frame_number, VideoColor color, uint8_t* out);
  void set_conversion(VideoConversion conversion) { conversion_ = conversion; }

 private:
  // Converts by libswscale with `flags` into the aligned scratch buffer, then packs into `out`.
  void ConvertSws(const AVFrame* f, int w, int h, VideoColor color, int flags, uint8_t* out);

  VideoConversion conversion_;
  DaliYuvConverter dali_;
  SwsContext* sws_ = nullptr;
  uint8_t* scratch_ = nullptr;  // av_malloc'd, 16-byte aligned rows (PyAV's layout)
  size_t scratch_bytes_ = 0;
};

class VideoDecoder {
 public:
  // Opens encoded bytes held in memory (they must outlive the decoder) or a file.
  // `threads` > 1: FFmpeg's own decoding threads (see above).
  static std::unique_ptr<VideoDecoder> FromMemory(std::span<const uint8_t> bytes, int64_t max_pixels,
                                                  int threads = 1);
  static std::unique_ptr<VideoDecoder> FromFile(const std::string& path, int64_t max_pixels);
  ~VideoDecoder();
  VideoDecoder(const VideoDecoder&) = delete;
  VideoDecoder& operator=(const VideoDecoder&) = delete;

  // The stream's index: built by one demux pass at the first call, unless given by UseIndex (a
  // reader indexes each file once and reuses it for every clip).
  const VideoIndex& Index();
  void UseIndex(std::shared_ptr<const VideoIndex> index);
  std::shared_ptr<const VideoIndex> SharedIndex();
  // The conversion Decode and DecodeNext apply (default kDali).
  void set_conversion(VideoConversion conversion) { converter_.set_conversion(conversion); }

  // Decodes `frames` (ascending, distinct, each < Index().frames) in `color`: frame frames[i]
  // goes to dst(i), height x width x VideoChannels(color) bytes, rows packed.
  void Decode(std::span<const int64_t> frames, VideoColor color, const std::function<uint8_t*(size_t)>& dst);

  // Sequential reading: decodes the next `count` frames of the stream (from frame next_frame(),
  // 0 at the first call) to dst(0) ... dst(count - 1), continuing the decoding pass the previous
  // call left: the decoder starts once, at the first call. next_frame() + count <= Index().frames.
  // Not to be mixed with Decode on the same decoder. Errors name the frame that failed.
  void DecodeNext(int64_t count, VideoColor color, const std::function<uint8_t*(size_t)>& dst);
  // The same in two steps, to convert on several threads: DecodeNextHeld decodes the next `count`
  // frames and holds them (references to the decoder's buffers, released at the next call);
  // ConvertHeld(i) converts the i-th of them -- thread-safe for different i, each thread with its
  // own FrameConverter.
  void DecodeNextHeld(int64_t count);
  void ConvertHeld(size_t i, VideoColor color, uint8_t* dst, FrameConverter& converter) const;
  int64_t next_frame() const { return next_; }
  // Decoding passes started so far (from the stream's start or from a keyframe, by Decode or by
  // the first DecodeNext): what a test checks to see that a stream is not decoded again.
  int64_t decode_starts() const { return starts_; }

 private:
  VideoDecoder() = default;
  void Open();
  void Close();
  void BuildIndex();
  // Throws naming the last frame read when the container declares more frames or a longer
  // duration than the index pass read (a cut file that demuxes to a clean end).
  void CheckNotTruncated(const VideoIndex& idx, int64_t packets, int64_t end_ts) const;
  // One decoding pass starting at keyframe `key` (-1: the start of the stream); returns false
  // when the demuxer landed after that keyframe (nothing decoded).
  bool DecodePass(int64_t key, std::span<const int64_t> frames, VideoColor color,
                  const std::function<uint8_t*(size_t)>& dst, std::vector<char>& done);
  void Convert(const AVFrame* f, int64_t frame_number, VideoColor color, uint8_t* out) {
    converter_.Convert(f, index_->width, index_->height, frame_number, color, out);
  }
  // Decodes the next `count` frames of the sequential pass, handing each to take(frame, number).
  void DecodeNextWith(int64_t count, const std::function<void(const AVFrame*, int64_t)>& take);
  void ReleaseHeld();
  int64_t FrameOfPts(int64_t pts) const;  // -1 when not a frame of the index

  std::span<const uint8_t> bytes_;
  std::string path_;
  bool from_memory_ = false;
  int64_t max_pixels_ = kDefaultMaxVideoFramePixels;
  int threads_ = 1;  // FFmpeg's decoding threads
  int64_t pos_ = 0;  // read position in bytes_
  AVFormatContext* fmt_ = nullptr;
  AVIOContext* avio_ = nullptr;
  AVCodecContext* codec_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  FrameConverter converter_;
  std::vector<AVFrame*> held_;  // DecodeNextHeld's frames (owned references)
  int64_t held_first_ = 0;      // the frame number of held_[0]
  int stream_ = -1;
  bool fresh_ = true;  // nothing read since Open
  int64_t starts_ = 0;
  // Sequential reading (DecodeNext): whether its pass has started, the next frame it returns, the
  // frames output so far (counting mode), whether the end of the stream was sent to the decoder.
  bool streaming_ = false, flushed_ = false;
  int64_t next_ = 0, counted_ = 0;
  std::shared_ptr<const VideoIndex> index_;

  friend int VideoReadPacket(void*, uint8_t*, int);
  friend int64_t VideoSeek(void*, int64_t, int);
};

}  // namespace sluice::kernels
