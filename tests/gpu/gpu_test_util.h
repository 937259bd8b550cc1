// Helpers for the GPU tests: skipping without a device, copying batches back to the host,
// building CPU-vs-GPU comparison pipelines over fed images.
#pragma once
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/cuda/device.h"
#include "kernels/decode/image_decoder.h"

#ifdef SLUICE_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace sluice::gputest {

inline bool HaveGpu() {
  static const bool have = cuda::DeviceCount() > 0;
  return have;
}

#define SLUICE_REQUIRE_GPU()                                   \
  do {                                                         \
    if (!::sluice::gputest::HaveGpu()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

// The bytes of sample i, copied to the host when the batch lives on the device.
inline std::vector<uint8_t> HostBytes(const Batch& b, int i) {
  std::vector<uint8_t> out(b.nbytes(i));
  if (out.empty()) return out;
  if (b.device() == "gpu") {
#ifdef SLUICE_WITH_CUDA
    // The batch may still be in the making on the pipeline's stream: order the legacy default
    // stream, which cudaMemcpy uses, after it.
    b.WaitOn(cudaStreamLegacy);
    if (cudaMemcpy(out.data(), b.data(i), out.size(), cudaMemcpyDeviceToHost) != cudaSuccess)
      throw std::runtime_error("cudaMemcpy failed");
#endif
  } else {
    std::memcpy(out.data(), b.data(i), out.size());
  }
  return out;
}

template <typename T>
std::vector<T> HostValues(const Batch& b, int i) {
  const auto bytes = HostBytes(b, i);
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

inline std::string DataPath(const std::string& name) { return std::string(SLUICE_SOURCE_DIR) + "/tests/data/images/" + name; }

inline std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// An HWC uint8 image.
struct Image {
  int h = 0, w = 0, c = 0;
  std::vector<uint8_t> px;
};

inline Image DecodeFile(const std::string& name) {
  const auto bytes = ReadFile(DataPath(name));
  kernels::DecodeParams p;
  const auto plan = kernels::PlanDecode(kernels::PeekImage(bytes), p);
  Image im{plan.height, plan.width, plan.channels, std::vector<uint8_t>(plan.size_bytes())};
  kernels::DecodeImage(bytes, p, im.px.data(), im.px.size());
  return im;
}

inline Image RandomImage(int h, int w, int c, uint32_t seed) {
  std::mt19937 rng(seed);
  Image im{h, w, c, std::vector<uint8_t>(size_t(h) * size_t(w) * size_t(c))};
  // Smooth gradients plus noise: resampling sees both flat areas and edges.
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k)
        im.px[(size_t(y) * size_t(w) + size_t(x)) * size_t(c) + size_t(k)] =
            uint8_t((x * 255 / std::max(1, w - 1) + y * 97 / std::max(1, h - 1) + k * 40 + int(rng() % 32)) % 256);
  return im;
}

// A batch of real photographs (decoded on the host) and synthetic images of odd sizes, all RGB.
inline std::vector<Image> TestImages() {
  std::vector<Image> v;
  for (const char* f : {"photo_500x375.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "orient_6.jpg"}) {
    Image im = DecodeFile(f);
    if (im.c == 3) v.push_back(std::move(im));
  }
  v.push_back(RandomImage(1, 1, 3, 1));
  v.push_back(RandomImage(17, 33, 3, 2));
  v.push_back(RandomImage(300, 7, 3, 3));
  v.push_back(RandomImage(64, 64, 3, 4));
  return v;
}

inline std::vector<Pipeline::ExternalSample> AsSamples(const std::vector<Image>& imgs) {
  std::vector<Pipeline::ExternalSample> s;
  for (const auto& im : imgs) s.push_back({im.px.data(), TensorShape{im.h, im.w, im.c}, DType::kUInt8});
  return s;
}

inline PipelineOptions GpuOptions(int batch, int threads = 2) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.device_id = 0;
  o.seed = 42;
  return o;
}

}  // namespace sluice::gputest
