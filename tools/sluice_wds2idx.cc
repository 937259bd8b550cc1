// sluice-wds2idx: writes the WebDataset index (DALI wds2idx format v1.2) of a tar archive.
//
//   sluice-wds2idx <archive.tar> [index]
//
// Writes to `index` if given, else to stdout. The archive may be a local file, an s3:// object or
// an http(s):// URL. Scans headers only (pread; member data is skipped),
// so indexing is bounded by the number of members, not the archive's size. Exit status 0 on
// success, 1 on an unreadable/malformed archive or a name the format cannot represent, 2 on usage.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <sluice/dataset_index.h>
#include <sluice/error.h>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    std::fprintf(stderr,
                 "usage: %s <archive.tar> [index]\n"
                 "Writes the archive's WebDataset index (v1.2: one line per sample, '<ext> <offset> <size> <name>' "
                 "per component) to `index`, or to stdout.\n",
                 argv[0]);
    return 2;
  }
  try {
    const std::string text = sluice::WebDatasetIndex(argv[1]);
    if (argc == 3) {
      const std::string tmp = std::string(argv[2]) + ".tmp";
      {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw sluice::Error("cannot write " + tmp + ": " + std::strerror(errno));
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.close();
        if (!out) throw sluice::Error("cannot write " + tmp + ": " + std::strerror(errno));
      }
      if (std::rename(tmp.c_str(), argv[2]) != 0) {
        std::remove(tmp.c_str());
        throw sluice::Error(std::string("cannot write ") + argv[2] + ": " + std::strerror(errno));
      }
    } else {
      if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        throw sluice::Error("cannot write to stdout");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sluice-wds2idx: %s\n", e.what());
    return 1;
  }
  return 0;
}
