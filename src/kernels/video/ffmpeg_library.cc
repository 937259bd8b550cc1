#include "kernels/video/ffmpeg_library.h"

#include <dlfcn.h>

#include <cstdarg>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include <sluice/error.h>

namespace sluice::kernels {
namespace {

#define SLUICE_STR2(x) #x
#define SLUICE_STR(x) SLUICE_STR2(x)

struct Load {
  const FfmpegLibrary* library = nullptr;
  std::string error;
};

// Opens one library by soname, trying SLUICE_FFMPEG_LIBRARY_DIR first. Returns null and appends
// to *tried on failure.
void* OpenOne(const std::string& soname, std::string* tried) {
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("SLUICE_FFMPEG_LIBRARY_DIR"); dir && *dir)
    candidates.push_back((std::filesystem::path(dir) / soname).string());
  candidates.push_back(soname);
  for (const std::string& path : candidates) {
    if (path.find('/') != std::string::npos && !std::filesystem::exists(path)) continue;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    const char* e = dlerror();
    *tried += "\n  " + path + ": " + (e ? e : "dlopen failed");
  }
  return nullptr;
}

std::string VersionText(unsigned v) {
  return std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff);
}

Load Open() {
  Load result;
  std::string tried;
  const std::string names[4] = {"libavutil.so." SLUICE_STR(LIBAVUTIL_VERSION_MAJOR),
                                 "libavcodec.so." SLUICE_STR(LIBAVCODEC_VERSION_MAJOR),
                                 "libavformat.so." SLUICE_STR(LIBAVFORMAT_VERSION_MAJOR),
                                 "libswscale.so." SLUICE_STR(LIBSWSCALE_VERSION_MAJOR)};
  void* handles[4] = {};
  for (int i = 0; i < 4; ++i) handles[i] = OpenOne(names[i], &tried);
  auto* lib = new FfmpegLibrary;  // lives as long as the process (the handles are never closed)
  std::string missing;
  const auto resolve = [&](int which, const char* name) -> void* {
    void* p = handles[which] ? dlsym(handles[which], name) : nullptr;
    if (!p && handles[which]) missing += std::string(missing.empty() ? "" : ", ") + name;
    return p;
  };
#define SLUICE_FFMPEG_RESOLVE(which, name) lib->name = reinterpret_cast<decltype(&::name)>(resolve(which, #name));
#define SLUICE_R0(name) SLUICE_FFMPEG_RESOLVE(0, name)
#define SLUICE_R1(name) SLUICE_FFMPEG_RESOLVE(1, name)
#define SLUICE_R2(name) SLUICE_FFMPEG_RESOLVE(2, name)
#define SLUICE_R3(name) SLUICE_FFMPEG_RESOLVE(3, name)
  SLUICE_AVUTIL_SYMBOLS(SLUICE_R0)
  SLUICE_AVCODEC_SYMBOLS(SLUICE_R1)
  SLUICE_AVFORMAT_SYMBOLS(SLUICE_R2)
  SLUICE_SWSCALE_SYMBOLS(SLUICE_R3)
#undef SLUICE_R0
#undef SLUICE_R1
#undef SLUICE_R2
#undef SLUICE_R3
#undef SLUICE_FFMPEG_RESOLVE
  const bool all_open = handles[0] && handles[1] && handles[2] && handles[3];
  if (!all_open || !missing.empty()) {
    delete lib;
    result.error = "FFmpeg's libraries (" + names[0] + ", " + names[1] + ", " + names[2] + ", " + names[3] +
                   ") could not be loaded; the video operators need them: install them (Debian/Ubuntu: apt-get "
                   "install libavformat59 libavcodec59 libavutil57 libswscale6, or FFmpeg 5.1's libraries under "
                   "another name) or point SLUICE_FFMPEG_LIBRARY_DIR at a folder holding them" +
                   (tried.empty() ? "" : "; tried:" + tried) + (missing.empty() ? "" : "\n  missing symbols: " + missing);
    return result;
  }
  SilenceFfmpegLog(*lib);
  lib->description = "libavformat " + VersionText(lib->avformat_version()) + ", libavcodec " +
                     VersionText(lib->avcodec_version()) + ", libavutil " + VersionText(lib->avutil_version()) +
                     ", libswscale " + VersionText(lib->swscale_version());
  result.library = lib;
  return result;
}

void NoLog(void*, int, const char*, va_list) {}

const Load& Loaded() {
  static const Load load = Open();
  return load;
}

}  // namespace

const FfmpegLibrary& Ffmpeg() {
  const Load& l = Loaded();
  if (!l.library) throw Error(l.error);
  return *l.library;
}

void SilenceFfmpegLog(const FfmpegLibrary& ff) {
  // FFmpeg's log settings are plain globals: set them one thread at a time.
  static std::mutex mu;
  std::lock_guard lock(mu);
  ff.av_log_set_level(AV_LOG_QUIET);
  ff.av_log_set_callback(&NoLog);
}

bool FfmpegAvailable(std::string* why) {
  const Load& l = Loaded();
  if (!l.library && why) *why = l.error;
  return l.library != nullptr;
}

std::string AvErrorText(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  if (Ffmpeg().av_strerror(code, buf, sizeof buf) < 0) return "error " + std::to_string(code);
  return buf;
}

}  // namespace sluice::kernels
