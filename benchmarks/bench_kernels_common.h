// Shared helpers of the kernel benchmarks (header only; each bench_kernels_*.cc is one executable).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice::bench {

// The repository (CMake passes SLUICE_SOURCE_DIR; __FILE__ is relative under ccache's base_dir, so it
// is only the fallback).
inline std::string SourceRoot() {
#ifdef SLUICE_SOURCE_DIR
  return SLUICE_SOURCE_DIR;
#else
  const std::string here = __FILE__;  // <repo>/benchmarks/bench_kernels_common.h
  return here.substr(0, here.rfind("/benchmarks/"));
#endif
}

// $SLUICE_BENCH_IMAGE, else the synthetic 500x375 photo-like JPEG committed with the tests.
inline std::string BenchImagePath() {
  if (const char* env = std::getenv("SLUICE_BENCH_IMAGE"); env && *env) return env;
  return SourceRoot() + "/tests/data/images/photo_500x375.jpg";
}

inline std::vector<uint8_t> ReadBenchImage() {
  std::ifstream f(BenchImagePath(), std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + BenchImagePath());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace sluice::bench
