// The readers inside a sluice::Pipeline: outputs, metadata, determinism across thread counts,
// errors, and the DALI last-batch table at the reader level.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <chrono>

#include "readers/readers_test_util.h"
#include "readers/tar_builder.h"

namespace sluice {
namespace {

using testing::Content;
using testing::TempDir;

PipelineOptions Opts(int batch, int threads, int64_t seed = 42) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = seed;
  return o;
}

struct Files7 {
  TempDir dir;
  std::vector<std::string> paths;
  Files7() {
    for (int i = 1; i <= 7; ++i) {
      paths.push_back(dir / ("c/" + std::to_string(i) + ".jpg"));
      testing::WriteFile(paths.back(), Content(50 + static_cast<size_t>(i), static_cast<unsigned>(i)));
    }
  }
};

std::vector<std::string> Names(const Batch& b) {
  std::vector<std::string> v;
  for (int i = 0; i < b.num_samples(); ++i) {
    const std::string& p = b.source(i).path;
    v.push_back(p.substr(p.rfind('/') + 1, p.rfind('.') - p.rfind('/') - 1));
  }
  return v;
}

std::vector<std::vector<std::string>> RunFiles(const Files7& f, bool pad, int batches) {
  Pipeline p(Opts(2, 2));
  auto outs = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("files", f.paths).Arg("pad_last_batch", pad));
  EXPECT_EQ(outs.size(), 2u);
  p.SetOutputs(outs);
  p.Build();
  std::vector<std::vector<std::string>> got;
  for (int i = 0; i < batches; ++i) {
    auto out = p.Run();
    got.push_back(Names(out[0]));
    for (int s = 0; s < out[0].num_samples(); ++s) {
      EXPECT_EQ(std::string(static_cast<const char*>(out[0].data(s)), out[0].nbytes(s)), testing::ReadFile(out[0].source(s).path));
      EXPECT_EQ(out[1].dtype(), DType::kInt32);
    }
  }
  return got;
}

// DALI's iterator table for dataset [1..7], batch 2, one shard, at the reader's level: with
// pad_last_batch the last batch is [7, 7] and the next epoch starts at [1, 2]; without it the
// last batch wraps to [7, 1] and the next epoch starts at [2, 3].
TEST(ReaderPipeline, LastBatchTable) {
  Files7 f;
  using V = std::vector<std::vector<std::string>>;
  EXPECT_EQ(RunFiles(f, true, 5), (V{{"1", "2"}, {"3", "4"}, {"5", "6"}, {"7", "7"}, {"1", "2"}}));
  EXPECT_EQ(RunFiles(f, false, 5), (V{{"1", "2"}, {"3", "4"}, {"5", "6"}, {"7", "1"}, {"2", "3"}}));
}

TEST(ReaderPipeline, MetaAndEpochSize) {
  Files7 f;
  Pipeline p(Opts(2, 1));
  auto outs = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("files", f.paths).Arg("num_shards", int64_t{2})
                                .Arg("shard_id", int64_t{1}).Arg("pad_last_batch", true));
  p.SetOutputs(outs);
  p.Build();
  const ReaderMeta m = p.GetReaderMeta("Reader");
  EXPECT_EQ(m.epoch_size, 7);
  EXPECT_EQ(m.epoch_size_padded, 8);
  EXPECT_EQ(m.number_of_shards, 2);
  EXPECT_EQ(m.shard_id, 1);
  EXPECT_EQ(p.EpochSize("Reader"), 8);
  EXPECT_EQ(Names(p.Run()[0]), (std::vector<std::string>{"4", "5"}));  // shard 1 = [3, 7)
}

std::vector<std::string> ShuffledRun(const Files7& f, int threads, int64_t seed, bool async) {
  PipelineOptions o = Opts(3, threads, seed);
  o.exec_async = async;
  o.exec_pipelined = async;
  Pipeline p(o);
  auto outs = p.AddOperator(OperatorDef("readers.file").Arg("files", f.paths).Arg("random_shuffle", true)
                                .Arg("initial_fill", int64_t{4}).Arg("prefetch_queue_depth", int64_t{2}));
  p.SetOutputs({outs[0]});
  p.Build();
  std::vector<std::string> all;
  for (int i = 0; i < 7; ++i) {
    auto n = Names(p.Run()[0]);
    all.insert(all.end(), n.begin(), n.end());
  }
  return all;
}

TEST(ReaderPipeline, ShuffleDependsOnlyOnTheSeed) {
  Files7 f;
  const auto ref = ShuffledRun(f, 1, 5, true);
  EXPECT_EQ(ShuffledRun(f, 3, 5, true), ref);
  EXPECT_EQ(ShuffledRun(f, 2, 5, false), ref);
  EXPECT_NE(ShuffledRun(f, 1, 6, true), ref);
}

TEST(ReaderPipeline, WebdatasetOutputsPerExt) {
  TempDir dir;
  std::vector<testing::StagedMember> m;
  for (int i = 0; i < 6; ++i) {
    m.push_back({"s" + std::to_string(i) + ".jpg", Content(100 + static_cast<size_t>(i), static_cast<unsigned>(i))});
    m.push_back({"s" + std::to_string(i) + ".cls", std::to_string(i)});
    m.push_back({"s" + std::to_string(i) + ".json", "{}"});
  }
  testing::Stage(dir / "stage", m, dir / "list.txt");
  testing::GnuTar(dir / "a.tar", "posix", dir / "stage", dir / "list.txt");
  Pipeline p(Opts(4, 2));
  auto outs = p.AddOperator(OperatorDef("readers.webdataset").Name("wds").Arg("paths", dir / "a.tar")
                                .Arg("ext", std::vector<std::string>{"jpg", "cls", "json;txt"}));
  ASSERT_EQ(outs.size(), 3u);
  p.SetOutputs(outs);
  ::testing::internal::CaptureStderr();
  p.Build();
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.EpochSize("wds"), 6);
  auto b = p.Run();
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].num_samples(), 4);
  EXPECT_EQ(std::string(static_cast<const char*>(b[0].data(2)), b[0].nbytes(2)), Content(102, 2));
  EXPECT_EQ(std::string(static_cast<const char*>(b[1].data(3)), b[1].nbytes(3)), "3");
  EXPECT_EQ(b[1].source(3).member, "s3.cls");
  EXPECT_EQ(b[2].source(0).member, "s0.json");
  EXPECT_NE(b[0].source(1).ToString().find("a.tar:s1.jpg @offset"), std::string::npos);
}

TEST(ReaderPipeline, ErrorsNameTheOperatorAndPath) {
  TempDir dir;
  Pipeline p(Opts(2, 1));
  try {
    auto outs = p.AddOperator(OperatorDef("readers.file").Name("R").Arg("file_root", dir / "missing"));
    p.SetOutputs(outs);
    p.Build();
    p.Run();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir / "missing"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("R"), std::string::npos) << e.what();
  }
}

TEST(ReaderPipeline, DestroyedPromptlyWhileRunningAhead) {
  Files7 f;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    Pipeline p(Opts(2, 2));
    auto outs = p.AddOperator(OperatorDef("readers.file").Arg("files", f.paths).Arg("prefetch_queue_depth", int64_t{3}));
    p.SetOutputs(outs);
    p.Build();
    p.Run();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

}  // namespace
}  // namespace sluice
