// Helpers for the readers' tests: temporary folders, files, tar archives built at run time with
// GNU tar or Python's tarfile, and driving a reader operator without a pipeline.
#pragma once
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <sluice/error.h>

#include "core/tensor_list.h"
#include "core/thread_pool.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/workspace.h"

namespace sluice::testing {

// The message of the sluice::Error that `f` throws, or "" if it throws none.
inline std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/sluice_readers_XXXXXX";
    char* p = ::mkdtemp(tmpl);
    if (!p) throw std::runtime_error("mkdtemp failed");
    path_ = p;
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

inline void MakeDirs(const std::string& path) {
  ASSERT_EQ(0, std::system(("mkdir -p '" + path + "'").c_str())) << path;
}

inline void WriteFile(const std::string& path, const std::string& content) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos) MakeDirs(path.substr(0, slash));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
  ASSERT_TRUE(f.good()) << path;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

// Runs a Python 3 script (the system interpreter: tarfile is in the standard library).
inline int RunPython(const std::string& dir, const std::string& script, const std::string& args = "") {
  const std::string file = dir + "/script.py";
  std::ofstream(file) << script;
  return Sh("/usr/bin/python3 '" + file + "' " + args);
}

// Deterministic content for a member: `n` bytes derived from `seed`.
inline std::string Content(size_t n, unsigned seed) {
  std::string s(n, '\0');
  unsigned x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    s[i] = static_cast<char>(x >> 16);
  }
  return s;
}

// A reader operator driven directly: builds the spec through the registry (coercing the arguments
// to the schema's types like the pipeline does) and runs batches with a private workspace.
class OpRunner {
 public:
  OpRunner(const std::string& op, std::map<std::string, Value> args, int batch_size = 1, uint64_t op_seed = 1234,
           int num_threads = 1)
      : pool_(num_threads, false) {
    const OpSchema& schema = OperatorRegistry::Get().GetSchema(op);
    OpSpec spec;
    spec.op = op;
    spec.name = op + "#0";
    for (auto& [k, v] : args) {
      const ArgSchema* a = schema.FindArg(k);
      if (!a) throw Error("test: unknown argument " + k);
      spec.args[k] = CoerceValue(v, a->type);
    }
    const int n_out = schema.NumOutputs(spec);
    op_ = (*schema.FindFactory("cpu"))(spec);
    outputs_.resize(static_cast<size_t>(n_out));
    ws_.batch_size_ = batch_size;
    ws_.op_seed_ = op_seed;
    ws_.pool_ = &pool_;
    ws_.memory_ = &memory_;
    for (auto& o : outputs_) ws_.outputs_.push_back(&o);
  }

  Operator& op() { return *op_; }
  template <typename T> T& as() { return dynamic_cast<T&>(*op_); }
  void set_batch_size(int b) { ws_.batch_size_ = b; }

  // Runs one batch; returns the outputs (valid until the next call).
  std::vector<TensorList>& Next() {
    auto descs = op_->Setup(ws_);
    EXPECT_TRUE(descs.empty());
    op_->Run(ws_);
    ++ws_.iteration_;
    return outputs_;
  }
  // The bytes of output `o`, sample `i`, as a string.
  std::string Bytes(int o, int i) {
    const TensorList& t = outputs_[static_cast<size_t>(o)];
    return std::string(static_cast<const char*>(t.raw_sample(i)), t.sample_bytes(i));
  }

 private:
  ThreadPool pool_;
  MemoryConfig memory_;
  Workspace ws_;
  std::vector<TensorList> outputs_;
  std::unique_ptr<Operator> op_;
};

}  // namespace sluice::testing
