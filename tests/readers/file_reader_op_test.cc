// readers.file as an operator (driven directly through its schema and a workspace).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "readers/file/file_reader.h"
#include "readers_test_util.h"

namespace sluice {
namespace {

using testing::ErrorOf;

using testing::Content;
using testing::OpRunner;
using testing::TempDir;
using Args = std::map<std::string, Value>;

// 13 files in 3 classes (5, 4, 4): c0/00.jpg ... with distinct contents.
struct Dataset {
  TempDir dir;
  std::vector<std::string> paths;
  std::vector<int> labels;
  Dataset() {
    int k = 0;
    for (int c = 0; c < 3; ++c) {
      for (int i = 0; i < (c == 0 ? 5 : 4); ++i, ++k) {
        char name[64];
        std::snprintf(name, sizeof(name), "c%d/%02d.jpg", c, i);
        // One file is big enough to be read through mmap (kFileReaderMmapMinBytes).
        const size_t size = k == 6 ? (size_t{3} << 19) : 100 + static_cast<size_t>(k) * 37;
        testing::WriteFile(dir / name, Content(size, static_cast<unsigned>(k)));
        paths.push_back(dir / name);
        labels.push_back(c);
      }
    }
  }
  std::string root() const { return dir.path(); }
};

// Runs `batches` batches; returns (path, label) per sample and checks bytes against the files.
std::vector<std::pair<std::string, int>> Read(OpRunner& r, int batches) {
  std::vector<std::pair<std::string, int>> out;
  for (int b = 0; b < batches; ++b) {
    auto& o = r.Next();
    EXPECT_EQ(o[0].dtype(), DType::kUInt8);
    EXPECT_EQ(o[1].dtype(), DType::kInt32);
    for (int i = 0; i < o[0].num_samples(); ++i) {
      const std::string path = o[0].source(i).path;
      EXPECT_EQ(o[0].shape(i).ndim(), 1);
      EXPECT_EQ(o[1].shape(i), (TensorShape{1}));
      EXPECT_EQ(r.Bytes(0, i), testing::ReadFile(path)) << path;
      out.emplace_back(path, *o[1].sample<int32_t>(i));
    }
  }
  return out;
}

TEST(FileReaderOp, ReadsFileRootInOrderAcrossEpochs) {
  Dataset d;
  for (bool mmap_off : {false, true}) {
    for (bool read_ahead : {false, true}) {
      OpRunner r("readers.file", Args{{"file_root", d.root()}, {"dont_use_mmap", mmap_off}, {"read_ahead", read_ahead}}, 4);
      const auto got = Read(r, 7);  // 28 samples: two epochs and a bit
      ASSERT_EQ(got.size(), 28u);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].first, d.paths[i % 13]);
        EXPECT_EQ(got[i].second, d.labels[i % 13]);
      }
      const ReaderMeta m = *r.op().reader_meta();
      EXPECT_EQ(m.epoch_size, 13);
      EXPECT_EQ(m.epoch_size_padded, 13);
    }
  }
}

TEST(FileReaderOp, ShardsRotateAndPad) {
  Dataset d;
  OpRunner r("readers.file",
             Args{{"file_root", d.root()}, {"num_shards", 3}, {"shard_id", 1}, {"pad_last_batch", true}}, 4);
  const ReaderMeta m = *r.op().reader_meta();
  EXPECT_EQ(m.epoch_size, 13);
  EXPECT_EQ(m.epoch_size_padded, 15);
  EXPECT_EQ(m.number_of_shards, 3);
  EXPECT_EQ(m.shard_id, 1);
  EXPECT_TRUE(m.pad_last_batch);
  const auto got = Read(r, 4);  // epoch 0: shard 1 = [4, 8) padded to 8; epoch 1: shard 2 = [8, 13)
  std::vector<std::string> expect = {d.paths[4], d.paths[5], d.paths[6], d.paths[7], d.paths[7], d.paths[7],
                                     d.paths[7], d.paths[7], d.paths[8], d.paths[9], d.paths[10], d.paths[11],
                                     d.paths[12], d.paths[12], d.paths[12], d.paths[12]};
  for (size_t i = 0; i < expect.size(); ++i) EXPECT_EQ(got[i].first, expect[i]) << i;
}

std::vector<std::string> PathsOf(const std::vector<std::pair<std::string, int>>& v) {
  std::vector<std::string> p;
  for (auto& x : v) p.push_back(x.first);
  return p;
}

TEST(FileReaderOp, ShuffleIsDeterministicPerSeedAndIndependentOfThreads) {
  Dataset d;
  auto run = [&](Args extra, uint64_t op_seed, int threads) {
    Args a{{"file_root", d.root()}, {"random_shuffle", true}, {"initial_fill", 6}};
    for (auto& [k, v] : extra) a[k] = v;
    OpRunner r("readers.file", a, 5, op_seed, threads);
    return PathsOf(Read(r, 6));
  };
  const auto a = run({}, 11, 1);
  EXPECT_EQ(a, run({}, 11, 3));                // same pipeline seed, other thread count
  EXPECT_NE(a, run({}, 12, 1));                // other pipeline seed
  const auto s = run({{"seed", 77}}, 11, 1);  // the reader's own seed wins over the pipeline's
  EXPECT_EQ(s, run({{"seed", 77}}, 999, 2));
  // Each epoch (13 samples) is a permutation of the dataset.
  for (int e = 0; e < 2; ++e) {
    std::vector<std::string> epoch(a.begin() + e * 13, a.begin() + (e + 1) * 13);
    std::sort(epoch.begin(), epoch.end());
    EXPECT_EQ(epoch, d.paths);
  }
}

TEST(FileReaderOp, RandomShuffleShufflesTheListOnceIdenticallyOnAllShards) {
  Dataset d;
  std::vector<std::string> all;
  for (int id = 0; id < 2; ++id) {
    OpRunner r("readers.file", Args{{"file_root", d.root()}, {"random_shuffle", true}, {"initial_fill", 1},
                                    {"num_shards", 2}, {"shard_id", id}, {"stick_to_shard", true}},
               1);
    const auto p = PathsOf(Read(r, id == 0 ? 6 : 7));
    all.insert(all.end(), p.begin(), p.end());
  }
  EXPECT_NE(all, d.paths);  // shuffled before sharding ...
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, d.paths);  // ... yet the shards are disjoint and cover the dataset
}

TEST(FileReaderOp, ShuffleAfterEpoch) {
  Dataset d;
  OpRunner r("readers.file", Args{{"file_root", d.root()}, {"shuffle_after_epoch", true}}, 13);
  EXPECT_TRUE(r.op().reader_meta()->stick_to_shard);
  const auto e0 = PathsOf(Read(r, 1)), e1 = PathsOf(Read(r, 1));
  EXPECT_NE(e0, e1);
  auto s0 = e0, s1 = e1;
  std::sort(s0.begin(), s0.end());
  std::sort(s1.begin(), s1.end());
  EXPECT_EQ(s0, d.paths);
  EXPECT_EQ(s1, d.paths);
  EXPECT_THROW(OpRunner("readers.file", Args{{"file_root", d.root()}, {"shuffle_after_epoch", true},
                                             {"random_shuffle", true}}),
               Error);
}

TEST(FileReaderOp, FileListWithSpacesAndFilesWithLabels) {
  TempDir dir;
  testing::WriteFile(dir / "imgs/my cat.jpg", "cat");
  testing::WriteFile(dir / "imgs/dog.jpg", "dog");
  testing::WriteFile(dir / "list.txt", "imgs/my cat.jpg 3\n\nimgs/dog.jpg 1\n");
  OpRunner r("readers.file", Args{{"file_list", dir / "list.txt"}}, 2);
  auto got = Read(r, 1);
  EXPECT_EQ(got[0], (std::pair<std::string, int>{dir / "imgs/my cat.jpg", 3}));
  EXPECT_EQ(got[1], (std::pair<std::string, int>{dir / "imgs/dog.jpg", 1}));

  OpRunner f("readers.file", Args{{"files", std::vector<std::string>{"imgs/dog.jpg", "imgs/my cat.jpg"}},
                                  {"file_root", dir.path()}},
             2);
  got = Read(f, 1);
  EXPECT_EQ(got[0], (std::pair<std::string, int>{dir / "imgs/dog.jpg", 0}));
  EXPECT_EQ(got[1], (std::pair<std::string, int>{dir / "imgs/my cat.jpg", 1}));
  OpRunner l("readers.file", Args{{"files", std::vector<std::string>{dir / "imgs/dog.jpg"}},
                                  {"labels", std::vector<int64_t>{42}}},
             1);
  EXPECT_EQ(Read(l, 1)[0].second, 42);
}

TEST(FileReaderOp, ArgumentAndDatasetErrors) {
  Dataset d;
  TempDir empty;
  auto err = [](Args a) { return ErrorOf([&] { OpRunner r("readers.file", a, 2); r.Next(); }); };
  EXPECT_NE(err({}).find("file_root"), std::string::npos);
  EXPECT_NE(err({{"labels", std::vector<int64_t>{1}}, {"file_root", d.root()}}).find("labels"), std::string::npos);
  EXPECT_NE(err({{"files", std::vector<std::string>{"a"}}, {"file_list", "l.txt"}}).find("file_list"), std::string::npos);
  EXPECT_NE(err({{"files", std::vector<std::string>{"a", "b"}}, {"labels", std::vector<int64_t>{1}}}).find("labels"),
            std::string::npos);
  std::string msg = err({{"file_root", empty / "missing"}});
  EXPECT_NE(msg.find(empty / "missing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("readers.file#0"), std::string::npos) << msg;
  msg = err({{"file_root", empty.path()}});
  EXPECT_NE(msg.find(empty.path()), std::string::npos) << msg;
  msg = err({{"file_root", d.root()}, {"num_shards", 14}, {"shard_id", 0}});
  EXPECT_NE(msg.find("more shards"), std::string::npos) << msg;
  EXPECT_NE(err({{"file_root", d.root()}, {"num_shards", 2}, {"shard_id", 2}}).find("shard_id"), std::string::npos);
  EXPECT_NE(err({{"file_root", d.root()}, {"prefetch_queue_depth", 0}}).find("prefetch_queue_depth"), std::string::npos);
  // A file that disappears is reported at read time, naming it.
  msg = err({{"files", std::vector<std::string>{d.paths[0], empty / "gone.jpg"}}});
  EXPECT_NE(msg.find(empty / "gone.jpg"), std::string::npos) << msg;
}

TEST(FileReaderOp, LazyInitDefersListing) {
  TempDir dir;
  OpRunner r("readers.file", Args{{"file_root", dir / "later"}, {"lazy_init", true}}, 1);  // no error yet
  testing::WriteFile(dir / "later/c/a.jpg", "a");
  EXPECT_EQ(r.op().reader_meta()->epoch_size, 1);
  EXPECT_EQ(Read(r, 1)[0].first, dir / "later/c/a.jpg");
  EXPECT_THROW(OpRunner("readers.file", Args{{"file_root", dir / "never"}}), Error);
}

TEST(FileReaderOp, SerializeRestoreReproducesTheRest) {
  Dataset d;
  const Args a{{"file_root", d.root()}, {"random_shuffle", true}, {"initial_fill", 4}, {"num_shards", 2},
               {"shard_id", 1}, {"pad_last_batch", true}, {"prefetch_queue_depth", 2}};
  for (int k : {0, 1, 2, 5}) {
    OpRunner r1("readers.file", a, 3, 5);
    Read(r1, k);
    const std::string state = r1.as<FileReader>().SerializeState();
    const auto rest = PathsOf(Read(r1, 6));
    // A fresh reader restored before its first batch ...
    OpRunner r2("readers.file", a, 3, 5);
    r2.as<FileReader>().RestoreState(state);
    EXPECT_EQ(PathsOf(Read(r2, 6)), rest) << state;
    // ... and one restored mid-stream.
    OpRunner r3("readers.file", a, 3, 5);
    Read(r3, 3);
    r3.as<FileReader>().RestoreState(state);
    EXPECT_EQ(PathsOf(Read(r3, 6)), rest) << state;
    EXPECT_EQ(r3.as<FileReader>().SerializeState(), r1.as<FileReader>().SerializeState());
  }
  OpRunner r4("readers.file", a, 3, 5);
  Read(r4, 1);
  EXPECT_THROW(r4.as<FileReader>().RestoreState("sluice-reader-state-v1 nonsense"), Error);
  Read(r4, 1);  // still works
}

TEST(FileReaderOp, DestructionIsPromptWithAFullQueue) {
  Dataset d;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    OpRunner r("readers.file", Args{{"file_root", d.root()}, {"prefetch_queue_depth", 4}}, 8);
    r.Next();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(FileReaderOp, BatchSizeChangeContinuesTheStream) {
  Dataset d;
  OpRunner r("readers.file", Args{{"file_root", d.root()}}, 4);
  auto a = PathsOf(Read(r, 1));
  r.set_batch_size(3);
  auto b = PathsOf(Read(r, 1));
  a.insert(a.end(), b.begin(), b.end());
  EXPECT_EQ(a, std::vector<std::string>(d.paths.begin(), d.paths.begin() + 7));
}

}  // namespace
}  // namespace sluice
