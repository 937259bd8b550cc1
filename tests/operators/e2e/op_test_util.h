// A small harness for operator tests: build a pipeline around an operator, feed it samples or
// files, and read outputs back as plain vectors.
#pragma once
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace sluice::testing {

inline std::string ImagePath(const std::string& name) {
  return std::string(SLUICE_SOURCE_DIR) + "/tests/data/images/" + name;
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

inline void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A fresh temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("sluice_op_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
  static inline int counter_ = 0;
};

inline PipelineOptions Options(int batch, int threads = 2, int64_t seed = 7) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = seed;
  return o;
}

// Copies one output sample to a vector of T.
template <typename T>
std::vector<T> SampleData(const Batch& b, int i) {
  std::vector<T> v(b.nbytes(i) / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(i), b.nbytes(i));
  return v;
}

// All bytes of all outputs of a run, for determinism comparisons.
inline std::vector<uint8_t> AllBytes(const std::vector<Batch>& outs) {
  std::vector<uint8_t> all;
  for (const auto& b : outs)
    for (int i = 0; i < b.num_samples(); ++i) {
      const auto* p = static_cast<const uint8_t*>(b.data(i));
      all.insert(all.end(), p, p + b.nbytes(i));
      for (int64_t d : b.shape(i).dims()) all.push_back(static_cast<uint8_t>(d));
    }
  return all;
}

// Expects `fn` to throw sluice::Error whose message contains every fragment.
template <typename Fn>
void ExpectError(Fn&& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << fragments[0] << "'";
  } catch (const Error& e) {
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

}  // namespace sluice::testing
