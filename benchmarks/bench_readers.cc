// Reader throughput: readers.file and readers.webdataset vs. a plain single-threaded read() of the
// same files, and the time to index tar archives by scanning them.
//
// Dataset: SLUICE_BENCH_DATA (class folders of JPEGs), else $SLUICE_DATA/train, else the checkout's
// sample_data/train (`make demo` builds it), found by looking upwards from the working directory and
// from this executable's folder (build/<dir>/...); the WebDataset shards are taken from
// SLUICE_BENCH_WDS (default: the "wds" folder beside it). Runs from page cache after a warm-up pass.
// Counters: samples/s (items_per_second) and bytes/s.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor_list.h"
#include "core/thread_pool.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/workspace.h"
#include "readers/common/file_name_filter.h"
#include "readers/common/file_root_index.h"
#include "readers/storage/file_source.h"
#include "readers/webdataset/wds_index.h"

namespace sluice {
namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string Parent(std::string d) {
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const size_t slash = d.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : d.substr(0, slash);
}

// sample_data/train in `start` or the nearest folder above it that has one; "" if none.
std::string FindSampleData(std::string start) {
  for (int up = 0; up < 8 && !start.empty(); ++up) {
    if (IsDir(start + "/sample_data/train")) return start + "/sample_data/train";
    if (start == "/") break;
    start = Parent(start);
  }
  return "";
}

std::string DataDir() {
  static const std::string dir = [] {
    if (const char* e = std::getenv("SLUICE_BENCH_DATA")) return std::string(e);
    if (const char* e = std::getenv("SLUICE_DATA")) return std::string(e) + "/train";
    char buf[4096];
    if (::getcwd(buf, sizeof buf)) {
      if (std::string d = FindSampleData(buf); !d.empty()) return d;
    }
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
      if (std::string d = FindSampleData(Parent(std::string(buf, n))); !d.empty()) return d;
    }
    return std::string("sample_data/train");
  }();
  return dir;
}

std::string WdsDir() {
  if (const char* e = std::getenv("SLUICE_BENCH_WDS")) return e;
  return Parent(DataDir()) + "/wds";
}

std::vector<std::string> Glob(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g;
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  return out;
}

const std::vector<FileLabel>* Files() {
  static std::unique_ptr<std::vector<FileLabel>> files = [] {
    try {
      return std::make_unique<std::vector<FileLabel>>(ListFileRoot(DataDir(), DefaultFileFilters(), false));
    } catch (const std::exception&) {
      return std::unique_ptr<std::vector<FileLabel>>();
    }
  }();
  return files.get();
}

// The baseline: open + read + close of every file, one thread, into one reused buffer.
void BM_PlainRead(benchmark::State& state) {
  const auto* files = Files();
  if (!files) {
    state.SkipWithError(("no dataset at " + DataDir() + " (make demo builds sample_data/; or set SLUICE_DATA or SLUICE_BENCH_DATA)").c_str());
    return;
  }
  // range(0) buffers used in turn: 1 = one cache-hot buffer; 64 = a batch's worth of distinct
  // destinations, as a reader that hands out batches must use.
  const size_t nbuf = static_cast<size_t>(state.range(0));
  std::vector<std::vector<char>> bufs(nbuf, std::vector<char>(1 << 20));
  int64_t bytes = 0, items = 0;
  size_t k = 0;
  for (auto _ : state) {
    for (const FileLabel& f : *files) {
      std::vector<char>& buf = bufs[k++ % nbuf];
      const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
      ssize_t r;
      while ((r = ::read(fd, buf.data(), buf.size())) > 0) bytes += r;
      ::close(fd);
      ++items;
    }
  }
  state.SetBytesProcessed(bytes);
  state.SetItemsProcessed(items);
}

// Drives a reader operator like the executor does: Setup + Run per batch.
struct ReaderDriver {
  ThreadPool pool{1, false};
  MemoryConfig memory;
  Workspace ws;
  std::vector<TensorList> outputs;
  std::unique_ptr<Operator> op;

  ReaderDriver(const std::string& name, const std::map<std::string, Value>& args, int batch) {
    const OpSchema& schema = OperatorRegistry::Get().GetSchema(name);
    OpSpec spec;
    spec.op = name;
    spec.name = name + "#bench";
    for (const auto& [k, v] : args) spec.args[k] = CoerceValue(v, schema.FindArg(k)->type);
    outputs.resize(static_cast<size_t>(schema.NumOutputs(spec)));
    op = (*schema.FindFactory("cpu"))(spec);
    ws.batch_size_ = batch;
    ws.pool_ = &pool;
    ws.memory_ = &memory;
    for (auto& o : outputs) ws.outputs_.push_back(&o);
  }
  // One batch; returns its data bytes (output 0).
  int64_t Next() {
    op->Setup(ws);
    op->Run(ws);
    ++ws.iteration_;
    int64_t b = 0;
    for (int i = 0; i < outputs[0].num_samples(); ++i) b += static_cast<int64_t>(outputs[0].sample_bytes(i));
    return b;
  }
};

void RunReader(benchmark::State& state, const std::string& name, const std::map<std::string, Value>& args,
               int64_t epoch) {
  const int batch = static_cast<int>(state.range(0));
  std::unique_ptr<ReaderDriver> d;
  try {
    d = std::make_unique<ReaderDriver>(name, args, batch);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const int64_t batches = (epoch + batch - 1) / batch;  // about one epoch per iteration
  d->Next();  // start the loader
  int64_t bytes = 0, items = 0;
  for (auto _ : state) {
    for (int64_t b = 0; b < batches; ++b) bytes += d->Next();
    items += batches * batch;
  }
  state.SetBytesProcessed(bytes);
  state.SetItemsProcessed(items);
}

void BM_FileReader(benchmark::State& state) {
  const auto* files = Files();
  if (!files) {
    state.SkipWithError(("no dataset at " + DataDir()).c_str());
    return;
  }
  RunReader(state, "readers.file",
            {{"file_root", DataDir()}, {"dont_use_mmap", state.range(1) != 0}, {"prefetch_queue_depth", int64_t{2}}},
            static_cast<int64_t>(files->size()));
}

void BM_FileReaderShuffled(benchmark::State& state) {
  const auto* files = Files();
  if (!files) {
    state.SkipWithError(("no dataset at " + DataDir()).c_str());
    return;
  }
  RunReader(state, "readers.file",
            {{"file_root", DataDir()}, {"random_shuffle", true}, {"seed", int64_t{1}}, {"dont_use_mmap", state.range(1) != 0}},
            static_cast<int64_t>(files->size()));
}

void BM_WebdatasetReader(benchmark::State& state) {
  const auto tars = Glob(WdsDir() + "/*.tar");
  if (tars.empty()) {
    state.SkipWithError(("no WebDataset shards in " + WdsDir() + " (set SLUICE_BENCH_WDS)").c_str());
    return;
  }
  std::vector<std::string> idx;
  int64_t n = 0;
  for (const auto& t : tars) {
    idx.push_back(t.substr(0, t.size() - 4) + ".idx");
    FileSource src(t, false, false);
    n += static_cast<int64_t>(ScanTarSamples(src).size());
  }
  RunReader(state, "readers.webdataset",
            {{"paths", tars}, {"index_paths", idx}, {"ext", std::vector<std::string>{"jpg", "cls"}},
             {"dont_use_mmap", state.range(1) != 0}, {"prefetch_queue_depth", int64_t{2}}},
            n);
}

// Building the index without an index file: header scan with pread (what sluice-wds2idx does).
void BM_WdsIndexScan(benchmark::State& state) {
  const auto tars = Glob(WdsDir() + "/*.tar");
  if (tars.empty()) {
    state.SkipWithError(("no WebDataset shards in " + WdsDir()).c_str());
    return;
  }
  int64_t bytes = 0, samples = 0;
  for (auto _ : state) {
    for (const auto& t : tars) {
      FileSource src(t, false, false);
      bytes += src.size();
      samples += static_cast<int64_t>(ScanTarSamples(src).size());
    }
  }
  state.SetBytesProcessed(bytes);
  state.SetItemsProcessed(samples);
  state.counters["s_per_GB"] = benchmark::Counter(static_cast<double>(bytes) / 1e9,
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_PlainRead)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
// Args: batch size, dont_use_mmap.
BENCHMARK(BM_FileReader)->Args({64, 0})->Args({64, 1})->Args({256, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FileReaderShuffled)->Args({64, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WebdatasetReader)->Args({64, 0})->Args({64, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WdsIndexScan)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
