// Reader faults injected while a pipeline runs: files deleted, unreadable or replaced mid-epoch,
// archives truncated or rewritten in place, indices pointing past their archive, empty datasets.
// Each is a clear error naming the reader, the path and what is wrong, or, with
// on_error="replace", a whole-row replacement: every output row stays one coherent sample.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include <string>
#include <vector>

#include "readers/readers_test_util.h"
#include "readers/tar_builder.h"

namespace sluice {
namespace {

using testing::TempDir;

PipelineOptions Opts(int batch, int threads, int depth = 2) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = 7;
  o.cpu_queue_depth = depth;
  return o;
}

std::string Bytes(const Batch& b, int i) { return {static_cast<const char*>(b.data(i)), b.nbytes(i)}; }
int Label(const Batch& b, int i) { return *static_cast<const int32_t*>(b.data(i)); }

// Eight files whose content names their label ("label=3 ..."), so a row can be checked for
// coherence from its bytes alone.
struct LabelledFiles {
  TempDir dir;
  std::vector<std::string> paths;
  std::vector<int64_t> labels;
  LabelledFiles() {
    for (int i = 0; i < 8; ++i) {
      paths.push_back(dir / ("f" + std::to_string(i) + ".bin"));
      labels.push_back(100 + i);
      testing::WriteFile(paths.back(), "label=" + std::to_string(100 + i) + " " + std::string(40 + i, 'x'));
    }
  }
};

std::unique_ptr<Pipeline> FilePipeline(const LabelledFiles& f, const std::string& on_error, int threads = 1, int depth = 1) {
  auto p = std::make_unique<Pipeline>(Opts(4, threads, depth));
  auto outs = p->AddOperator(OperatorDef("readers.file")
                                 .Name("Reader")
                                 .Arg("files", f.paths)
                                 .Arg("labels", f.labels)
                                 .Arg("on_error", on_error));
  p->SetOutputs(outs);
  p->Build();
  return p;
}

// Every row is one file: its bytes are those written for its label, and its source (in both
// outputs) is that file.
void ExpectCoherentRows(const std::vector<Batch>& out) {
  for (int i = 0; i < out[0].num_samples(); ++i) {
    const int label = Label(out[1], i);
    EXPECT_EQ(Bytes(out[0], i), "label=" + std::to_string(label) + " " + std::string(static_cast<size_t>(label - 60), 'x'))
        << "row " << i;
    const std::string& path = out[0].source(i).path;
    EXPECT_EQ(path.substr(path.rfind('/') + 1), "f" + std::to_string(label - 100) + ".bin") << "row " << i;
    EXPECT_EQ(path, out[1].source(i).path) << "row " << i;
  }
}

TEST(ReaderFaults, FileDeletedMidEpochIsAnErrorNamingReaderAndPath) {
  LabelledFiles f;
  auto p = FilePipeline(f, "raise");
  ExpectCoherentRows(p->Run());  // batch 0 (files 0-3); batch 1 may be prefetched already
  ASSERT_EQ(0, ::unlink(f.paths[6].c_str()));
  // Depth 1 + the reader's own queue of 1: batch 1 may be read already; the second epoch is not.
  std::string err;
  for (int i = 0; i < 4 && err.empty(); ++i) err = testing::ErrorOf([&] { p->Run(); });
  EXPECT_NE(err.find("[Reader]"), std::string::npos) << err;
  EXPECT_NE(err.find(f.paths[6]), std::string::npos) << err;
  EXPECT_NE(err.find("No such file or directory"), std::string::npos) << err;
}

TEST(ReaderFaults, FileDeletedMidEpochIsReplacedWithItsWholeRow) {
  LabelledFiles f;
  for (int threads : {1, 2}) {
    auto p = FilePipeline(f, "replace", threads, 1);
    ExpectCoherentRows(p->Run());
    ASSERT_EQ(0, ::unlink(f.paths[5].c_str()));
    bool replaced = false;
    for (int i = 0; i < 4; ++i) {  // two epochs: batch 1 may have been read before the unlink
      auto out = p->Run();
      ASSERT_EQ(out[0].num_samples(), 4);
      ExpectCoherentRows(out);
    }
    for (const auto& rec : p->GetErrorLog()) {
      replaced = true;
      EXPECT_EQ(rec.op, "Reader");
      EXPECT_EQ(rec.path, f.paths[5]);
      EXPECT_EQ(rec.source, f.paths[5]);
      EXPECT_EQ(rec.sample, 1);  // f5 is row 1 of the odd batches
      EXPECT_EQ(rec.replaced_by, 2);
      EXPECT_EQ(rec.iteration % 2, 1);
      EXPECT_NE(rec.error.find("No such file or directory"), std::string::npos) << rec.error;
    }
    EXPECT_TRUE(replaced);
    int64_t counted = 0;
    for (const auto& op : p->GetExecutorStatistics().operators)
      if (op.name == "Reader") counted = op.replaced_samples;
    EXPECT_EQ(counted, static_cast<int64_t>(p->GetErrorLog().size()));
    testing::WriteFile(f.paths[5], "label=105 " + std::string(45, 'x'));
  }
}

TEST(ReaderFaults, UnreadableFilesAreErrorsNotHangs) {
  LabelledFiles f;
  // A FIFO where a file was would block open() until a writer came; a folder is not a file.
  ASSERT_EQ(0, ::unlink(f.paths[1].c_str()));
  ASSERT_EQ(0, ::mkfifo(f.paths[1].c_str(), 0644));
  auto p = FilePipeline(f, "raise");
  std::string err = testing::ErrorOf([&] { p->Run(); });
  EXPECT_NE(err.find("[Reader]"), std::string::npos) << err;
  EXPECT_NE(err.find("not a regular file: " + f.paths[1]), std::string::npos) << err;
  ASSERT_EQ(0, ::unlink(f.paths[1].c_str()));
  ASSERT_EQ(0, ::mkdir(f.paths[1].c_str(), 0755));
  p = FilePipeline(f, "raise");
  err = testing::ErrorOf([&] { p->Run(); });
  EXPECT_NE(err.find("not a regular file: " + f.paths[1]), std::string::npos) << err;
  if (::geteuid() != 0) {  // root reads a mode-000 file anyway
    ASSERT_EQ(0, ::rmdir(f.paths[1].c_str()));
    testing::WriteFile(f.paths[1], "label=101 x");
    ASSERT_EQ(0, ::chmod(f.paths[1].c_str(), 0));
    p = FilePipeline(f, "raise");
    err = testing::ErrorOf([&] { p->Run(); });
    EXPECT_NE(err.find("Permission denied"), std::string::npos) << err;
  }
  // With replace, the row goes and the batch stays full.
  p = FilePipeline(f, "replace");
  auto out = p->Run();
  ExpectCoherentRows(out);
  ASSERT_FALSE(p->GetErrorLog().empty());
  EXPECT_EQ(p->GetErrorLog()[0].path, f.paths[1]);
}

TEST(ReaderFaults, EveryFileOfABatchGoneIsAnError) {
  LabelledFiles f;
  for (int i = 0; i < 4; ++i) ASSERT_EQ(0, ::unlink(f.paths[static_cast<size_t>(i)].c_str()));
  auto p = FilePipeline(f, "replace");
  const std::string err = testing::ErrorOf([&] { p->Run(); });
  EXPECT_NE(err.find("[Reader]"), std::string::npos) << err;
  EXPECT_NE(err.find("every sample of the batch failed to read"), std::string::npos) << err;
  EXPECT_NE(err.find(f.paths[0]), std::string::npos) << err;
}

TEST(ReaderFaults, EmptyDatasetsAreErrorsNamingTheReader) {
  TempDir dir;
  testing::WriteFile(dir / "list.txt", "\n\n");
  auto build = [](const OperatorDef& def) {
    return testing::ErrorOf([&] {
      Pipeline p(Opts(2, 1));
      p.SetOutputs(p.AddOperator(def));
      p.Build();
    });
  };
  std::string err = build(OperatorDef("readers.file").Name("R").Arg("file_list", dir / "list.txt"));
  EXPECT_NE(err.find("[R]"), std::string::npos) << err;
  EXPECT_NE(err.find("file_list '" + dir / "list.txt" + "' lists no files"), std::string::npos) << err;
  // A class folder with no image files in it.
  testing::WriteFile(dir / "root/cat/readme.txt", "not an image");
  err = build(OperatorDef("readers.file").Name("R").Arg("file_root", dir / "root"));
  EXPECT_NE(err.find("[R]"), std::string::npos) << err;
  EXPECT_NE(err.find("no files matching file_filters"), std::string::npos) << err;
  EXPECT_NE(err.find(dir / "root"), std::string::npos) << err;
  err = build(OperatorDef("readers.file").Name("R").Arg("files", std::vector<std::string>{}));
  EXPECT_NE(err.find("files"), std::string::npos) << err;
  EXPECT_NE(err.find("is empty"), std::string::npos) << err;
}

// A WebDataset shard of 8 samples (key.txt holds "label=<k>", key.cls the label as text).
struct Shard {
  TempDir dir;
  std::string tar;
  Shard() {
    tar = dir / "shard.tar";
    std::string bytes;
    for (int k = 0; k < 8; ++k) {
      const std::string key = "s" + std::to_string(k);
      bytes += testing::TarMember(key + ".txt", "label=" + std::to_string(100 + k) + std::string(600, 'y'));
      bytes += testing::TarMember(key + ".cls", std::to_string(100 + k));
    }
    bytes += testing::TarEnd();
    testing::WriteFile(tar, bytes);
  }
};

std::unique_ptr<Pipeline> ShardPipeline(const Shard& s, const std::string& on_error, const std::vector<std::string>& index = {},
                                        bool mmap = true, int64_t max_member_bytes = int64_t{1} << 30) {
  auto p = std::make_unique<Pipeline>(Opts(4, 1, 1));
  auto outs = p->AddOperator(OperatorDef("readers.webdataset")
                                 .Name("Shards")
                                 .Arg("paths", std::vector<std::string>{s.tar})
                                 .Arg("index_paths", index)
                                 .Arg("ext", std::vector<std::string>{"txt", "cls"})
                                 .Arg("dont_use_mmap", !mmap)
                                 .Arg("max_member_bytes", max_member_bytes)
                                 .Arg("on_error", on_error));
  p->SetOutputs(outs);
  p->Build();
  return p;
}

TEST(ReaderFaults, ShardTruncatedMidEpochIsAnErrorNotASigbus) {
  for (bool mmap : {true, false}) {
    Shard s;
    auto p = ShardPipeline(s, "raise", {}, mmap);
    p->Run();
    ASSERT_EQ(0, ::truncate(s.tar.c_str(), 2048));
    std::string err;
    for (int i = 0; i < 4 && err.empty(); ++i) err = testing::ErrorOf([&] { p->Run(); });
    EXPECT_NE(err.find("[Shards]"), std::string::npos) << err;
    EXPECT_NE(err.find(s.tar), std::string::npos) << err;
    // Found by the check before the read, or (the loader reads ahead) by a read already under way.
    const bool said = err.find(" changed size since it was opened (") != std::string::npos ||
                      err.find("the file shrank while being read") != std::string::npos;
    EXPECT_TRUE(said) << err;
  }
}

TEST(ReaderFaults, ShardRewrittenInPlaceIsAnErrorButReplacedByRenameKeepsItsContent) {
  {
    Shard s;
    auto p = ShardPipeline(s, "raise");
    p->Run();
    // Same size, other bytes: offsets of the old index would read other members' data.
    std::string bytes = testing::ReadFile(s.tar);
    std::reverse(bytes.begin() + 512, bytes.end() - 1024);
    ::sleep(0);
    struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
    testing::WriteFile(s.tar, bytes);
    ASSERT_EQ(0, ::utimensat(AT_FDCWD, s.tar.c_str(), later, 0));  // a new mtime even on coarse clocks
    std::string err;
    for (int i = 0; i < 4 && err.empty(); ++i) err = testing::ErrorOf([&] { p->Run(); });
    EXPECT_NE(err.find("[Shards]"), std::string::npos) << err;
    EXPECT_NE(err.find(s.tar + " was modified since it was opened"), std::string::npos) << err;
  }
  {
    Shard s;
    auto p = ShardPipeline(s, "raise");
    p->Run();
    testing::WriteFile(s.dir / "new.tar", testing::TarMember("z.txt", "other") + testing::TarEnd());
    ASSERT_EQ(0, ::rename((s.dir / "new.tar").c_str(), s.tar.c_str()));
    for (int i = 0; i < 4; ++i) {
      auto out = p->Run();  // the archive as it was opened
      for (int r = 0; r < 4; ++r)
        EXPECT_EQ(Bytes(out[0], r).substr(6, 3), Bytes(out[1], r)) << "iteration " << i << " row " << r;
    }
  }
}

TEST(ReaderFaults, ShardTruncatedMidEpochWithReplaceKeepsRowsCoherentUntilNothingIsLeft) {
  Shard s;
  auto p = ShardPipeline(s, "replace", {}, false);
  p->Run();
  ASSERT_EQ(0, ::truncate(s.tar.c_str(), 2048));
  // Every read of the changed archive fails: a whole batch of failures is an error.
  std::string err;
  for (int i = 0; i < 4 && err.empty(); ++i) err = testing::ErrorOf([&] { p->Run(); });
  EXPECT_NE(err.find("every sample of the batch failed to read"), std::string::npos) << err;
  EXPECT_NE(err.find(s.tar), std::string::npos) << err;
}

TEST(ReaderFaults, MembersOverMaxMemberBytesAreNeverAllocated) {
  Shard big;  // s0..s7.txt: 606..., s5.txt made bigger below
  {
    std::string bytes;
    for (int k = 0; k < 8; ++k) {
      const std::string key = "s" + std::to_string(k);
      bytes += testing::TarMember(key + ".txt", "label=" + std::to_string(100 + k) + std::string(k == 5 ? 5000 : 600, 'y'));
      bytes += testing::TarMember(key + ".cls", std::to_string(100 + k));
    }
    testing::WriteFile(big.tar, bytes + testing::TarEnd());
  }
  auto p = ShardPipeline(big, "raise", {}, true, 1000);
  p->Run();
  const std::string err = testing::ErrorOf([&] { p->Run(); });
  EXPECT_NE(err.find("[Shards]"), std::string::npos) << err;
  EXPECT_NE(err.find("member s5.txt is 5009 bytes, more than max_member_bytes = 1000"), std::string::npos) << err;
  EXPECT_NE(err.find(big.tar + ":s5.txt"), std::string::npos) << err;
  auto q = ShardPipeline(big, "replace", {}, true, 1000);
  q->Run();
  auto out = q->Run();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(Bytes(out[0], r).substr(6, 3), Bytes(out[1], r)) << "row " << r;
  ASSERT_EQ(q->GetErrorLog().size(), 1u);
  EXPECT_EQ(q->GetErrorLog()[0].member, "s5.txt");
  EXPECT_EQ(q->GetErrorLog()[0].sample, 1);
}

TEST(ReaderFaults, IndexPointingPastTheArchiveIsAnErrorAtBuild) {
  Shard s;
  // DALI's v1.2 index: one line per sample, "<ext> <offset> <size> <name>" per component.
  testing::WriteFile(s.dir / "bad.idx",
                     "v1.2 1\ntxt 512 606 s0.txt cls 99840 3 s0.cls\n");
  const std::string err = testing::ErrorOf([&] {
    Pipeline p(Opts(2, 1));
    p.SetOutputs(p.AddOperator(OperatorDef("readers.webdataset")
                                   .Name("Shards")
                                   .Arg("paths", std::vector<std::string>{s.tar})
                                   .Arg("index_paths", std::vector<std::string>{s.dir / "bad.idx"})
                                   .Arg("ext", std::vector<std::string>{"txt", "cls"})));
    p.Build();
  });
  EXPECT_NE(err.find("[Shards]"), std::string::npos) << err;
  EXPECT_NE(err.find("bad.idx"), std::string::npos) << err;
  EXPECT_NE(err.find("lies outside the archive"), std::string::npos) << err;
}

}  // namespace
}  // namespace sluice
