// ReaderOperator's loader thread: prefetch depth, error propagation, prompt cancellation, and the
// zero-copy hand-off, with a probe reader whose samples are their indices.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <chrono>
#include <thread>

#include "readers/common/reader_operator.h"
#include "readers_test_util.h"

namespace sluice {
namespace {

using testing::OpRunner;
using Args = std::map<std::string, Value>;

struct ProbeState {
  std::atomic<int> batches_read{0};
  std::atomic<int> fail_at{-1};
  std::atomic<int> sleep_ms{0};
};
ProbeState g_probe;

// N = `n` samples; output 0 holds each sample's index as int64.
class ProbeReader : public ReaderOperator {
 public:
  explicit ProbeReader(const OpSpec& spec) : ReaderOperator(spec), n_(Arg<int64_t>("n")) { InitEagerly(); }
  ~ProbeReader() override { StopLoader(); }

 protected:
  int64_t InitDataset() override { return n_; }
  std::string DatasetName() const override { return "probe"; }
  int NumOutputs() const override { return 1; }
  void ReadBatch(const std::vector<int64_t>& idx, std::vector<TensorList>& outs, const MemoryConfig& cfg) override {
    const int k = g_probe.batches_read.fetch_add(1);
    if (g_probe.sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(g_probe.sleep_ms.load()));
    if (k == g_probe.fail_at) throw Error("probe failure in batch " + std::to_string(k));
    std::vector<TensorShape> shapes(idx.size(), TensorShape{1});
    outs[0].Resize(shapes, DType::kInt64, cfg, true);
    for (size_t i = 0; i < idx.size(); ++i) *outs[0].mutable_sample<int64_t>(static_cast<int>(i)) = idx[i];
  }

 private:
  int64_t n_;
};

struct RegisterProbe {
  RegisterProbe() {
    auto& r = OperatorRegistry::Get();
    if (r.Find("testing.reader_probe")) return;
    OpSchema s("testing.reader_probe");
    s.Doc("test reader").Output("index", "sample index").Arg("n", ArgType::kInt, int64_t{10}, "samples");
    AddCommonReaderArgs(s);
    s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<ProbeReader>(spec); });
    r.Register(std::move(s));
  }
};

class Loader : public ::testing::Test {
 protected:
  void SetUp() override {
    static RegisterProbe once;
    g_probe.batches_read = 0;
    g_probe.fail_at = -1;
    g_probe.sleep_ms = 0;
  }
};

std::vector<int64_t> Indices(const TensorList& t) {
  std::vector<int64_t> v;
  for (int i = 0; i < t.num_samples(); ++i) v.push_back(*t.sample<int64_t>(i));
  return v;
}

TEST_F(Loader, RunsAheadByExactlyThePrefetchDepth) {
  for (int depth : {1, 3}) {
    g_probe.batches_read = 0;
    OpRunner r("testing.reader_probe", Args{{"prefetch_queue_depth", depth}}, 2);
    EXPECT_EQ(g_probe.batches_read.load(), 0);  // nothing before the first batch is asked for
    EXPECT_EQ(Indices(r.Next()[0]), (std::vector<int64_t>{0, 1}));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (g_probe.batches_read.load() < 1 + depth && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // One handed out, `depth` ready, none being filled beyond that.
    EXPECT_EQ(g_probe.batches_read.load(), 1 + depth) << "depth " << depth;
    EXPECT_EQ(Indices(r.Next()[0]), (std::vector<int64_t>{2, 3}));
  }
}

TEST_F(Loader, ErrorsReachSetupAndStick) {
  g_probe.fail_at = 2;
  OpRunner r("testing.reader_probe", Args{}, 2);
  r.Next();
  r.Next();
  for (int k = 0; k < 2; ++k) {
    try {
      r.Next();
      FAIL() << "expected the loader's error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("probe failure in batch 2"), std::string::npos) << e.what();
      EXPECT_EQ(e.context().op, "testing.reader_probe#0");
    }
  }
}

TEST_F(Loader, DestructionInterruptsASlowLoaderPromptly) {
  g_probe.sleep_ms = 400;
  auto r = std::make_unique<OpRunner>("testing.reader_probe", Args{{"prefetch_queue_depth", 4}}, 2);
  r->Next();
  const auto t0 = std::chrono::steady_clock::now();
  r.reset();  // the loader is inside a 400 ms batch: it stops after it, not after filling 4 more
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.2);
}

TEST_F(Loader, HandsOverWithoutCopying) {
  OpRunner r("testing.reader_probe", Args{{"n", 100}}, 4);
  std::set<const void*> seen;
  for (int i = 0; i < 20; ++i) seen.insert(r.Next()[0].raw_sample(0));
  // The same few buffers circulate between the loader and the consumer.
  EXPECT_LE(seen.size(), 4u);
}

TEST_F(Loader, SerializeBeforeStartWithPipelineSeed) {
  OpRunner a("testing.reader_probe", Args{{"n", 50}, {"random_shuffle", true}, {"initial_fill", 8}}, 3, 77);
  const std::string s0 = a.as<ProbeReader>().SerializeState();
  EXPECT_NE(s0.find("seed=*"), std::string::npos) << s0;
  const auto first = Indices(a.Next()[0]);
  OpRunner b("testing.reader_probe", Args{{"n", 50}, {"random_shuffle", true}, {"initial_fill", 8}}, 3, 77);
  b.as<ProbeReader>().RestoreState(s0);
  EXPECT_EQ(Indices(b.Next()[0]), first);
}

TEST_F(Loader, SerializeFromAnotherThreadWhileRunning) {
  OpRunner r("testing.reader_probe", Args{{"n", 37}, {"random_shuffle", true}, {"seed", 3}}, 4);
  std::atomic<bool> done{false};
  std::atomic<int> count{0};
  std::vector<std::string> states;  // the thread's until it is joined
  std::thread t([&] {
    while (!done) {
      states.push_back(r.as<ProbeReader>().SerializeState());
      ++count;
    }
  });
  for (int i = 0; i < 50 || count.load() < 3; ++i) r.Next();  // overlap with the thread for sure
  done = true;
  t.join();
  ASSERT_FALSE(states.empty());
  OpRunner other("testing.reader_probe", Args{{"n", 37}, {"random_shuffle", true}, {"seed", 3}}, 4);
  for (const std::string& s : {states.front(), states.back()}) EXPECT_NO_THROW(other.as<ProbeReader>().RestoreState(s));
}

}  // namespace
}  // namespace sluice
