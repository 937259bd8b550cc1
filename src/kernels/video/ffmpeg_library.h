// FFmpeg (libavformat, libavcodec, libavutil, libswscale), opened at run time.
//
// Sluice compiles against FFmpeg's headers but links none of its libraries: the first video
// operation dlopen()s the sonames of the major versions the headers declare (libavcodec.so.59, ...
// for Debian 12's FFmpeg 5.1) and resolves the functions below. So libsluice, the Python extension
// and the wheel load and run without FFmpeg (every image and audio operator), the wheel vendors
// none of it (no GPL encoders come along, nothing is added to its size), and a video operator run
// without FFmpeg fails with an error naming what to install. SLUICE_FFMPEG_LIBRARY_DIR (a folder
// holding the four libraries) is tried before the loader's search path.
//
// Thread-safety: LoadFfmpeg() is safe to call from any thread (a function-local static); the
// libraries stay loaded for the life of the process.
#pragma once
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace sluice::kernels {

#define SLUICE_AVUTIL_SYMBOLS(X) \
  X(av_frame_alloc)              \
  X(av_frame_free)               \
  X(av_frame_unref)              \
  X(av_frame_clone)              \
  X(av_strerror)                 \
  X(av_log_set_level)            \
  X(av_log_set_callback)         \
  X(av_malloc)                   \
  X(av_free)                     \
  X(av_get_pix_fmt_name)         \
  X(av_dict_get)                 \
  X(avutil_version)
#define SLUICE_AVCODEC_SYMBOLS(X)  \
  X(avcodec_find_decoder)          \
  X(avcodec_alloc_context3)        \
  X(avcodec_free_context)          \
  X(avcodec_parameters_to_context) \
  X(avcodec_open2)                 \
  X(avcodec_send_packet)           \
  X(avcodec_receive_frame)         \
  X(avcodec_flush_buffers)         \
  X(av_packet_alloc)               \
  X(av_packet_free)                \
  X(av_packet_unref)               \
  X(avcodec_get_name)              \
  X(avcodec_version)
#define SLUICE_AVFORMAT_SYMBOLS(X) \
  X(avformat_alloc_context)        \
  X(avformat_open_input)           \
  X(avformat_find_stream_info)     \
  X(avformat_close_input)          \
  X(av_read_frame)                 \
  X(av_seek_frame)                 \
  X(avio_alloc_context)            \
  X(avio_context_free)             \
  X(avformat_version)
#define SLUICE_SWSCALE_SYMBOLS(X) \
  X(sws_getCachedContext)         \
  X(sws_scale)                    \
  X(sws_freeContext)              \
  X(swscale_version)

struct FfmpegLibrary {
#define SLUICE_FFMPEG_MEMBER(name) decltype(&::name) name = nullptr;
  SLUICE_AVUTIL_SYMBOLS(SLUICE_FFMPEG_MEMBER)
  SLUICE_AVCODEC_SYMBOLS(SLUICE_FFMPEG_MEMBER)
  SLUICE_AVFORMAT_SYMBOLS(SLUICE_FFMPEG_MEMBER)
  SLUICE_SWSCALE_SYMBOLS(SLUICE_FFMPEG_MEMBER)
#undef SLUICE_FFMPEG_MEMBER
  std::string description;  // "libavcodec 59.37.100, ..." as loaded
};

// The loaded libraries; throws sluice::Error (every call, same text) when they cannot be loaded:
// which sonames were tried, why each failed, and the Debian package names to install.
const FfmpegLibrary& Ffmpeg();

// Makes FFmpeg's logging silent, process-wide (av_log_set_callback with a callback that does
// nothing): Sluice reports errors itself, with the file and the frame. Called by every decoder
// open, because a library in the same process may have installed its own callback since -- PyAV
// does at import, one that takes Python's GIL, which from Sluice's threads deadlocks a pipeline
// or aborts the interpreter at exit ("FATAL: exception not rethrown").
void SilenceFfmpegLog(const FfmpegLibrary& ff);

// Whether FFmpeg can be loaded (never throws); the reason in *why otherwise.
bool FfmpegAvailable(std::string* why = nullptr);

// FFmpeg's text for an AVERROR code.
std::string AvErrorText(int code);

}  // namespace sluice::kernels
