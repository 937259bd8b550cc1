// readers.webdataset as an operator, over archives built with GNU tar.
#include <gtest/gtest.h>

#include <glob.h>

#include "readers/webdataset/wds_index.h"
#include "readers/webdataset/webdataset_reader.h"
#include "readers_test_util.h"
#include "tar_builder.h"

namespace sluice {
namespace {

using testing::ErrorOf;

using testing::Content;
using testing::OpRunner;
using testing::StagedMember;
using testing::TempDir;
using Args = std::map<std::string, Value>;
using Strings = std::vector<std::string>;

// Archive: s0 {jpg, cls}, s1 {jpg, cls, txt}, s2 {png, cls} (no jpg), s3 {JPG, cls}, s4 {jpg} (no cls),
// with a directory and a hidden file in between.
struct Archive {
  TempDir dir;
  std::string tar, idx;
  explicit Archive(const std::string& format = "gnu") {
    std::vector<StagedMember> m = {
        {"d", "", StagedMember::kDir},
        {"d/s0.jpg", Content(400, 0)},  {"d/s0.cls", "0000"},
        {"d/s1.jpg", Content(1000, 1)}, {"d/s1.cls", "1111"}, {"d/s1.txt", "text"},
        {"d/.hidden.jpg", "h"},
        {"d/s2.png", Content(64, 2)},   {"d/s2.cls", "2222"},
        {"d/s3.JPG", Content(80, 3)},   {"d/s3.cls", "3333"},
        {"d/s4.jpg", Content(12, 4)},
    };
    testing::Stage(dir / "stage", m, dir / "list.txt");
    tar = dir / "data.tar";
    testing::GnuTar(tar, format, dir / "stage", dir / "list.txt");
    idx = dir / "data.idx";
    FileSource src(tar, false, false);
    testing::WriteFile(idx, WriteWdsIndex(ScanTarSamples(src)));
  }
};

struct Sample {
  std::vector<std::string> bytes;
  std::vector<SourceInfo> src;
};

std::vector<Sample> ReadAll(OpRunner& r, int n_out, int batches) {
  std::vector<Sample> out;
  for (int b = 0; b < batches; ++b) {
    auto& o = r.Next();
    for (int i = 0; i < o[0].num_samples(); ++i) {
      Sample s;
      for (int k = 0; k < n_out; ++k) {
        s.bytes.push_back(r.Bytes(k, i));
        s.src.push_back(o[static_cast<size_t>(k)].source(i));
      }
      out.push_back(s);
    }
  }
  return out;
}

TEST(WebdatasetOp, OutputsPerExtWithIndexOrScan) {
  Archive a;
  for (bool with_index : {true, false}) {
    for (bool mmap_off : {false, true}) {
      Args args{{"paths", a.tar}, {"ext", Strings{"jpg;png", "cls"}}, {"dont_use_mmap", mmap_off}};
      if (with_index) args["index_paths"] = a.idx;
      ::testing::internal::CaptureStderr();
      OpRunner r("readers.webdataset", args, 5);
      const std::string log = ::testing::internal::GetCapturedStderr();
      EXPECT_EQ(log.find("no index file") != std::string::npos, !with_index) << log;
      EXPECT_EQ(r.op().reader_meta()->epoch_size, 5);
      const auto s = ReadAll(r, 2, 1);
      ASSERT_EQ(s.size(), 5u);
      EXPECT_EQ(s[0].bytes[0], Content(400, 0));
      EXPECT_EQ(s[0].bytes[1], "0000");
      EXPECT_EQ(s[1].bytes[0], Content(1000, 1));
      EXPECT_EQ(s[2].bytes[0], Content(64, 2));  // png alternative
      EXPECT_EQ(s[3].bytes[0], "");              // "JPG" does not match "jpg" (case-sensitive)
      EXPECT_EQ(s[4].bytes[1], "");              // missing cls: empty
      EXPECT_EQ(s[1].src[0].path, a.tar);
      EXPECT_EQ(s[1].src[0].member, "d/s1.jpg");
      EXPECT_EQ(testing::ReadFile(a.tar).substr(static_cast<size_t>(s[1].src[0].offset), 1000), Content(1000, 1));
      EXPECT_EQ(s[4].src[1].member, "d/s4");  // a missing component names the sample
      EXPECT_EQ(s[4].src[1].offset, -1);
    }
  }
}

TEST(WebdatasetOp, MissingComponentBehaviours) {
  Archive a;
  {
    OpRunner r("readers.webdataset", Args{{"paths", a.tar}, {"index_paths", a.idx}, {"ext", Strings{"jpg", "cls"}},
                                          {"missing_component_behavior", "SKIP"}},
               2);
    EXPECT_EQ(r.op().reader_meta()->epoch_size, 2);  // s0 and s1; s2, s3 lack jpg, s4 lacks cls
    const auto s = ReadAll(r, 2, 2);
    EXPECT_EQ(s[0].src[0].member, "d/s0.jpg");
    EXPECT_EQ(s[1].src[0].member, "d/s1.jpg");
    EXPECT_EQ(s[2].src[0].member, "d/s0.jpg");  // next epoch
  }
  {
    OpRunner r("readers.webdataset", Args{{"paths", a.tar}, {"ext", Strings{"jpg"}}, {"missing_component_behavior", "empty"}},
               5);
    const auto s = ReadAll(r, 1, 1);
    EXPECT_EQ(s[2].bytes[0], "");
    EXPECT_EQ(r.Next()[0].shape(2), (TensorShape{0}));
  }
  const std::string msg = ErrorOf([&] {
    OpRunner r("readers.webdataset", Args{{"paths", a.tar}, {"index_paths", a.idx}, {"ext", Strings{"jpg", "cls"}},
                                          {"missing_component_behavior", "Error"}});
  });
  EXPECT_NE(msg.find(a.tar), std::string::npos) << msg;
  EXPECT_NE(msg.find("'d/s2'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'jpg'"), std::string::npos) << msg;
  EXPECT_NE(ErrorOf([&] { OpRunner r("readers.webdataset", Args{{"paths", a.tar}, {"ext", "jpg"},
                                                                  {"missing_component_behavior", "ignore"}}); })
                .find("missing_component_behavior"),
            std::string::npos);
}

TEST(WebdatasetOp, CaseInsensitiveExtensionsAndDuplicates) {
  Archive a;
  ::testing::internal::CaptureStderr();
  OpRunner r("readers.webdataset", Args{{"paths", a.tar}, {"index_paths", a.idx}, {"ext", Strings{"JPG", "cls;txt"}},
                                        {"case_sensitive_extensions", false}},
             5);
  const std::string log = ::testing::internal::GetCapturedStderr();
  const auto s = ReadAll(r, 2, 1);
  EXPECT_EQ(s[3].bytes[0], Content(80, 3));  // s3.JPG matches "JPG" ignoring case
  EXPECT_EQ(s[0].bytes[0], Content(400, 0));
  EXPECT_EQ(s[1].bytes[1], "1111");  // cls and txt both match: the first one wins ...
  EXPECT_NE(log.find("first one is used"), std::string::npos) << log;  // ... with a warning
  EXPECT_EQ(log.find("first one is used"), log.rfind("first one is used"));  // once
}

TEST(WebdatasetOp, Dtypes) {
  Archive a;
  OpRunner r("readers.webdataset", Args{{"paths", a.tar}, {"ext", Strings{"cls"}}, {"dtypes", Strings{"int32"}},
                                        {"missing_component_behavior", "skip"}},
             4);
  auto& o = r.Next();
  EXPECT_EQ(o[0].dtype(), DType::kInt32);
  EXPECT_EQ(o[0].shape(0), (TensorShape{1}));
  EXPECT_EQ(*o[0].sample<int32_t>(0), 0x30303030);
  const std::string msg = ErrorOf([&] {
    OpRunner x("readers.webdataset", Args{{"paths", a.tar}, {"ext", Strings{"jpg", "cls"}},
                                          {"dtypes", Strings{"uint8", "int64"}}});
  });
  EXPECT_NE(msg.find("d/s0.cls"), std::string::npos) << msg;
  EXPECT_NE(msg.find("int64"), std::string::npos) << msg;
  EXPECT_NE(ErrorOf([&] { OpRunner x("readers.webdataset", Args{{"paths", a.tar}, {"ext", Strings{"jpg", "cls"}},
                                                                 {"dtypes", Strings{"uint8"}}}); })
                .find("dtypes"),
            std::string::npos);
}

TEST(WebdatasetOp, ShardsAcrossArchives) {
  Archive a, b("posix");
  OpRunner r0("readers.webdataset", Args{{"paths", Strings{a.tar, b.tar}}, {"ext", Strings{"cls"}},
                                         {"num_shards", 2}, {"shard_id", 1}, {"stick_to_shard", true}},
              4);
  const auto meta = *r0.op().reader_meta();
  EXPECT_EQ(meta.epoch_size, 10);
  const auto s = ReadAll(r0, 1, 1);  // samples [5, 10): the second archive
  for (const auto& x : s) EXPECT_EQ(x.src[0].path, b.tar);
}

TEST(WebdatasetOp, BadInputsAreClearErrors) {
  Archive a;
  TempDir d;
  auto err = [](Args args) { return ErrorOf([&] { OpRunner r("readers.webdataset", args, 2); r.Next(); }); };
  std::string msg = err({{"paths", d / "missing.tar"}, {"ext", "jpg"}});
  EXPECT_NE(msg.find(d / "missing.tar"), std::string::npos) << msg;
  msg = err({{"paths", Strings{a.tar, a.tar}}, {"index_paths", a.idx}, {"ext", "jpg"}});
  EXPECT_NE(msg.find("index_paths"), std::string::npos) << msg;
  testing::WriteFile(d / "garbage.idx", "hello world\n");
  msg = err({{"paths", a.tar}, {"index_paths", d / "garbage.idx"}, {"ext", "jpg"}});
  EXPECT_NE(msg.find(d / "garbage.idx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 1"), std::string::npos) << msg;
  testing::WriteFile(d / "past.idx", "v1.2 1\njpg 1048576 10 x.jpg\n");
  msg = err({{"paths", a.tar}, {"index_paths", d / "past.idx"}, {"ext", "jpg"}});
  EXPECT_NE(msg.find("outside the archive"), std::string::npos) << msg;
  msg = err({{"paths", a.tar}, {"index_paths", d / "nope.idx"}, {"ext", "jpg"}});
  EXPECT_NE(msg.find(d / "nope.idx"), std::string::npos) << msg;
  // A truncated archive without an index.
  testing::WriteFile(d / "cut.tar", testing::ReadFile(a.tar).substr(0, 1800));
  msg = err({{"paths", d / "cut.tar"}, {"ext", "jpg"}});
  EXPECT_NE(msg.find(d / "cut.tar"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset"), std::string::npos) << msg;
  // An archive without any matching sample.
  msg = err({{"paths", a.tar}, {"ext", "webp"}, {"missing_component_behavior", "skip"}});
  EXPECT_NE(msg.find("no samples"), std::string::npos) << msg;
  testing::WriteFile(d / "empty.tar", "");
  msg = err({{"paths", d / "empty.tar"}, {"ext", "jpg"}});
  EXPECT_NE(msg.find(d / "empty.tar"), std::string::npos) << msg;
  EXPECT_NE(err({{"paths", a.tar}, {"ext", ";"}}).find("ext"), std::string::npos);
}

// The sample set's shards (scripts/make_sample_data.sh, Python tarfile with its own wds2idx index):
// built here, small (4 classes x 16 images, 20 per shard), so the test never depends on a data set
// being somewhere on the machine. The script needs the Debian photo packages (scripts/install_deps.sh).
TEST(WebdatasetOp, SampleDataShards) {
  TempDir dir;
  const std::string cmd = "SLUICE_SAMPLE_DATA_NO_APT=1 bash '" + std::string(SLUICE_SOURCE_DIR) +
                          "/scripts/make_sample_data.sh' --small --force --jobs 1 '" + dir / "data" +
                          "' > '" + dir / "log.txt" + "' 2>&1";
  ASSERT_EQ(0, testing::Sh(cmd)) << cmd << "\n" << testing::ReadFile(dir / "log.txt");
  glob_t g;
  ASSERT_EQ(0, ::glob((dir / "data/wds/*.tar").c_str(), 0, nullptr, &g));
  ASSERT_EQ(g.gl_pathc, 4u);
  Strings tars, idxs;
  for (size_t i = 0; i < g.gl_pathc; ++i) {
    tars.push_back(g.gl_pathv[i]);
    idxs.push_back(tars.back().substr(0, tars.back().size() - 4) + ".idx");
  }
  ::globfree(&g);
  // Our index of each shard equals the dataset builder's (Python) index.
  for (size_t i = 0; i < tars.size(); ++i) {
    FileSource src(tars[i], false, false);
    EXPECT_EQ(WriteWdsIndex(ScanTarSamples(src)), testing::ReadFile(idxs[i])) << tars[i];
  }
  OpRunner r("readers.webdataset", Args{{"paths", tars}, {"index_paths", idxs}, {"ext", Strings{"jpg", "cls"}},
                                        {"missing_component_behavior", "error"}},
             32);
  EXPECT_EQ(r.op().reader_meta()->epoch_size, 64);
  auto& o = r.Next();
  ASSERT_EQ(o[0].num_samples(), 32);
  for (int i = 0; i < o[0].num_samples(); ++i) {
    EXPECT_GT(o[0].sample_bytes(i), 2u);
    EXPECT_EQ(*o[0].sample<uint8_t>(i), 0xFF);  // JPEG SOI
    ASSERT_EQ(o[1].sample_bytes(i), 1u);         // the class index in ASCII
    EXPECT_TRUE(*o[1].sample<uint8_t>(i) >= '0' && *o[1].sample<uint8_t>(i) <= '3');
  }
}

}  // namespace
}  // namespace sluice
