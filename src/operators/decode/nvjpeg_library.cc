#ifdef SLUICE_WITH_NVJPEG
#include "operators/decode/nvjpeg_library.h"

#include <dlfcn.h>
#include <library_types.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace sluice::gpu {
namespace {

#define SLUICE_STR2(x) #x
#define SLUICE_STR(x) SLUICE_STR2(x)
const std::string kSoname = "libnvjpeg.so." SLUICE_STR(NVJPEG_VER_MAJOR);

std::vector<std::string> Candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("SLUICE_NVJPEG_LIBRARY"); env && *env) c.emplace_back(env);
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&LoadNvjpeg), &self) && self.dli_fname) {
    // The extension sits in <site-packages>/sluice/; the wheel's library in <site-packages>/nvidia/.
    const std::filesystem::path dir = std::filesystem::path(self.dli_fname).parent_path();
    const std::string rel = "nvidia/cu" SLUICE_STR(NVJPEG_VER_MAJOR) "/lib/" + kSoname;
    for (const auto& base : {dir.parent_path(), dir}) c.push_back((base / rel).string());
  }
#ifdef SLUICE_NVJPEG_LIBRARY_DIR
  c.push_back(std::string(SLUICE_NVJPEG_LIBRARY_DIR) + "/" + kSoname);
#endif
  c.push_back(kSoname);
  return c;
}

NvjpegLoad Open() {
  NvjpegLoad result;
  std::string tried;
  for (const std::string& path : Candidates()) {
    // A bare soname goes to the loader's search; a path must exist (dlerror's text would be noise).
    if (path.find('/') != std::string::npos && !std::filesystem::exists(path)) continue;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      tried += "\n  " + path + ": " + (e ? e : "dlopen failed");
      continue;
    }
    auto* lib = new NvjpegLibrary;  // lives as long as the process (the handle is never closed)
    lib->path = path;
    std::string missing;
#define SLUICE_NVJPEG_RESOLVE(name)                                       \
  lib->name = reinterpret_cast<decltype(&::name)>(dlsym(h, #name));        \
  if (!lib->name) missing += std::string(missing.empty() ? "" : ", ") + #name;
    SLUICE_NVJPEG_SYMBOLS(SLUICE_NVJPEG_RESOLVE)
#undef SLUICE_NVJPEG_RESOLVE
    if (!missing.empty()) {
      tried += "\n  " + path + ": lacks " + missing;
      delete lib;
      continue;
    }
    lib->nvjpegGetProperty(MAJOR_VERSION, &lib->major);
    lib->nvjpegGetProperty(MINOR_VERSION, &lib->minor);
    lib->nvjpegGetProperty(PATCH_LEVEL, &lib->patch);
    if (lib->major != NVJPEG_VER_MAJOR) {
      tried += "\n  " + path + ": version " + std::to_string(lib->major) + "." + std::to_string(lib->minor) +
               ", but Sluice was built against nvjpeg.h " SLUICE_STR(NVJPEG_VER_MAJOR) "." SLUICE_STR(NVJPEG_VER_MINOR);
      delete lib;
      continue;
    }
    result.library = lib;
    return result;
  }
  result.error = "libnvjpeg (" + kSoname + ") was not found; install it with `pip install nvidia-nvjpeg` or the CUDA " +
                 "toolkit, or set SLUICE_NVJPEG_LIBRARY" + (tried.empty() ? "" : "; tried:" + tried);
  return result;
}

}  // namespace

const NvjpegLoad& LoadNvjpeg() {
  static const NvjpegLoad load = Open();
  return load;
}

const char* NvjpegStatusName(nvjpegStatus_t s) {
  switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG: return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
  }
  return "NVJPEG_STATUS_UNKNOWN";
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_NVJPEG
