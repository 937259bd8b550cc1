// Helpers shared by the kernel tests: test-data paths, file reading, TurboJPEG reference decode.
#pragma once
#include <turbojpeg.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/decode/image_decoder.h"

namespace sluice::kernels::testing {

inline std::string DataPath(const std::string& name) { return std::string(SLUICE_SOURCE_DIR) + "/tests/data/images/" + name; }

inline std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}
inline std::vector<uint8_t> ReadImage(const std::string& name) { return ReadFile(DataPath(name)); }

struct Image {
  int h = 0, w = 0, c = 0;
  std::vector<uint8_t> data;
  uint8_t at(int y, int x, int ch) const { return data[(size_t(y) * w + x) * c + ch]; }
};

inline Image Decode(const std::vector<uint8_t>& bytes, const DecodeParams& p = {}) {
  const DecodePlan plan = PlanDecode(PeekImage(bytes), p);
  Image img{plan.height, plan.width, plan.channels, std::vector<uint8_t>(plan.size_bytes())};
  DecodeImage(bytes, p, img.data.data(), img.data.size());
  return img;
}

inline Image Crop(const Image& img, int x, int y, int w, int h) {
  Image o{h, w, img.c, std::vector<uint8_t>(size_t(w) * h * img.c)};
  for (int r = 0; r < h; ++r)
    std::copy_n(&img.data[(size_t(y + r) * img.w + x) * img.c], size_t(w) * img.c, &o.data[size_t(r) * w * img.c]);
  return o;
}

// TurboJPEG reference: tjDecompress2 with default flags (ISLOW IDCT, fancy upsampling) at the
// scaling factor num/8.
inline Image TjDecode(const std::vector<uint8_t>& bytes, int pf, int num = 8) {
  tjhandle h = tjInitDecompress();
  int w, hh, subsamp, cs;
  if (tjDecompressHeader3(h, bytes.data(), bytes.size(), &w, &hh, &subsamp, &cs) != 0) {
    tjDestroy(h);
    throw std::runtime_error("tj header");
  }
  tjscalingfactor sf{num, 8};
  const int sw = TJSCALED(w, sf), sh = TJSCALED(hh, sf);
  Image img{sh, sw, tjPixelSize[pf], std::vector<uint8_t>(size_t(sw) * sh * tjPixelSize[pf])};
  const int rc = tjDecompress2(h, bytes.data(), bytes.size(), img.data.data(), sw, 0, sh, pf, 0);
  tjDestroy(h);
  if (rc != 0) throw std::runtime_error("tjDecompress2 failed");
  return img;
}

inline int MaxAbsDiff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  int m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::abs(int(a[i]) - int(b[i])));
  return m;
}
inline double MeanAbsDiff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += std::abs(int(a[i]) - int(b[i]));
  return a.empty() ? 0 : s / double(a.size());
}
inline double Psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) se += double(int(a[i]) - int(b[i])) * (int(a[i]) - int(b[i]));
  if (se == 0) return 1e9;
  return 10 * std::log10(255.0 * 255.0 / (se / double(a.size())));
}

}  // namespace sluice::kernels::testing
