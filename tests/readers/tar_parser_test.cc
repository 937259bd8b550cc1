// The tar parser and the WebDataset grouping over archives from GNU tar, Python tarfile and
// crafted/corrupted bytes; the index from sluice-wds2idx vs. an independent Python writer.
#include <gtest/gtest.h>

#include <functional>

#include "readers/storage/file_source.h"
#include "readers/webdataset/tar_parser.h"
#include "readers/webdataset/wds_index.h"
#include "readers_test_util.h"
#include "tar_builder.h"

namespace sluice {
namespace {

using testing::ErrorOf;

using testing::Content;
using testing::StagedMember;
using testing::TempDir;

std::vector<TarEntry> ParseAll(const std::string& bytes) {
  MemorySource src(bytes.data(), bytes.size(), "mem.tar");
  TarReader r(src);
  std::vector<TarEntry> out;
  TarEntry e;
  while (r.Next(&e)) out.push_back(e);
  return out;
}

const std::string kLongBase = std::string(120, 'x');  // a base name longer than ustar's 100 bytes
const std::string kLongDir = "deep_" + std::string(60, 'd') + "/" + std::string(50, 'e');  // needs ustar's prefix

std::vector<StagedMember> DatasetMembers(bool long_base_names) {
  std::vector<StagedMember> m;
  m.push_back({"a", "", StagedMember::kDir});
  m.push_back({"a/000001.jpg", Content(1000, 1)});
  m.push_back({"a/000001.cls", "7\n"});
  m.push_back({"a/000001.json", "{}"});
  m.push_back({"a/.DS_Store", Content(10, 2)});               // hidden: ignored
  m.push_back({"a/000002.jpg", Content(512, 3)});             // exactly one block
  m.push_back({"a/000002.cls", ""});                          // empty member
  m.push_back({"a/000003.jpg", "", StagedMember::kSymlink, "000001.jpg"});  // not regular: ignored
  m.push_back({"a/000003.cls", "3"});
  m.push_back({"README", "no extension"});                    // no extension: ignored
  m.push_back({"b/sample.left.png", Content(700, 4)});        // extension "left.png"
  m.push_back({"b/sample.right.jpg", Content(1300, 5)});
  m.push_back({kLongDir + "/k.jpg", Content(33, 6)});         // > 100 bytes in total
  m.push_back({kLongDir + "/k.cls", "1"});
  if (long_base_names) {
    m.push_back({"long/" + kLongBase + ".jpg", Content(2000, 7)});
    m.push_back({"long/" + kLongBase + ".cls", "2"});
  }
  m.push_back({".hidden.jpg", Content(5, 8)});
  return m;
}

void CheckSamples(const std::vector<WdsSample>& s, bool long_base_names, const std::string& tar_bytes) {
  ASSERT_EQ(s.size(), long_base_names ? 6u : 5u);
  EXPECT_EQ(s[0].key, "a/000001");
  ASSERT_EQ(s[0].components.size(), 3u);
  EXPECT_EQ(s[0].components[0].ext, "jpg");
  EXPECT_EQ(s[0].components[0].size, 1000);
  EXPECT_EQ(s[0].components[0].member, "a/000001.jpg");
  EXPECT_EQ(tar_bytes.substr(static_cast<size_t>(s[0].components[0].offset), 1000), Content(1000, 1));
  EXPECT_EQ(s[0].components[1].ext, "cls");
  EXPECT_EQ(s[0].components[2].ext, "json");
  EXPECT_EQ(s[1].key, "a/000002");
  ASSERT_EQ(s[1].components.size(), 2u);
  EXPECT_EQ(s[1].components[1].size, 0);
  EXPECT_EQ(s[2].key, "a/000003");
  ASSERT_EQ(s[2].components.size(), 1u);  // the symlink .jpg is not a component
  EXPECT_EQ(s[2].components[0].ext, "cls");
  EXPECT_EQ(s[3].key, "b/sample");
  EXPECT_EQ(s[3].components[0].ext, "left.png");
  EXPECT_EQ(s[3].components[1].ext, "right.jpg");
  EXPECT_EQ(tar_bytes.substr(static_cast<size_t>(s[3].components[1].offset), 1300), Content(1300, 5));
  EXPECT_EQ(s[4].key, kLongDir + "/k");
  EXPECT_EQ(s[4].components[0].member, kLongDir + "/k.jpg");
  EXPECT_EQ(tar_bytes.substr(static_cast<size_t>(s[4].components[0].offset), 33), Content(33, 6));
  if (long_base_names) {
    EXPECT_EQ(s[5].key, "long/" + kLongBase);
    EXPECT_EQ(tar_bytes.substr(static_cast<size_t>(s[5].components[0].offset), 2000), Content(2000, 7));
  }
  for (const auto& smp : s)
    for (const auto& c : smp.components) EXPECT_EQ(c.offset % 512, 0);
}

struct WriterCase {
  const char* writer;  // "gnu-tar" or "python"
  const char* format;
  bool long_base_names;
};

class TarWriters : public ::testing::TestWithParam<WriterCase> {};

TEST_P(TarWriters, ParsesGroupsAndIndexesLikePython) {
  const WriterCase c = GetParam();
  TempDir dir;
  const auto members = DatasetMembers(c.long_base_names);
  testing::Stage(dir / "stage", members, dir / "list.txt");
  const std::string tar = dir / "data.tar";
  if (std::string(c.writer) == "gnu-tar") testing::GnuTar(tar, c.format, dir / "stage", dir / "list.txt");
  else testing::PythonTar(dir.path(), tar, c.format, dir / "stage", dir / "list.txt");
  const std::string bytes = testing::ReadFile(tar);
  ASSERT_GT(bytes.size(), 0u);

  for (bool mmap : {true, false}) {
    FileSource src(tar, mmap, mmap);
    CheckSamples(ScanTarSamples(src), c.long_base_names, bytes);
  }
  // Every entry is seen, including the directory and the symlink.
  const auto entries = ParseAll(bytes);
  ASSERT_EQ(entries.size(), members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    std::string want = members[i].name;
    std::string got = entries[i].name;
    if (members[i].kind == StagedMember::kDir) {
      EXPECT_EQ(entries[i].type, '5');
      if (!got.empty() && got.back() == '/') got.pop_back();
    }
    EXPECT_EQ(got, want);
    if (members[i].kind == StagedMember::kSymlink) {
      EXPECT_EQ(entries[i].type, '2');
      EXPECT_EQ(entries[i].linkname, members[i].target);
    }
  }
  // Our index equals the independent writer's, byte for byte.
  FileSource src(tar, false, false);
  const std::string ours = WriteWdsIndex(ScanTarSamples(src));
  EXPECT_EQ(ours, testing::PythonIndex(dir.path(), tar));
  // ... and parses back to the same samples.
  const auto parsed = ParseWdsIndex(ours, "ours.idx", static_cast<int64_t>(bytes.size()));
  CheckSamples(parsed, c.long_base_names, bytes);
  // The command-line tool writes the same text, to a file and to stdout.
  const std::string tool = std::string(SLUICE_BINARY_DIR) + "/sluice-wds2idx";
  if (::access(tool.c_str(), X_OK) == 0) {
    ASSERT_EQ(0, testing::Sh("'" + tool + "' '" + tar + "' '" + (dir / "tool.idx") + "'"));
    EXPECT_EQ(testing::ReadFile(dir / "tool.idx"), ours);
    ASSERT_EQ(0, testing::Sh("'" + tool + "' '" + tar + "' > '" + (dir / "stdout.idx") + "'"));
    EXPECT_EQ(testing::ReadFile(dir / "stdout.idx"), ours);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, TarWriters,
    ::testing::Values(WriterCase{"gnu-tar", "gnu", true}, WriterCase{"gnu-tar", "posix", true},
                      WriterCase{"gnu-tar", "ustar", false}, WriterCase{"gnu-tar", "oldgnu", true},
                      WriterCase{"python", "PAX_FORMAT", true}, WriterCase{"python", "GNU_FORMAT", true},
                      WriterCase{"python", "USTAR_FORMAT", false}),
    [](const ::testing::TestParamInfo<WriterCase>& i) {
      std::string n = std::string(i.param.writer) + "_" + i.param.format;
      for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(TarParser, NumbersOctalAndBase256) {
  int64_t v = 0;
  EXPECT_TRUE(ParseTarNumber("00000001750\0", 12, &v));
  EXPECT_EQ(v, 1000);
  EXPECT_TRUE(ParseTarNumber("     1750 \0\0", 12, &v));
  EXPECT_EQ(v, 1000);
  EXPECT_TRUE(ParseTarNumber("\0\0\0\0\0\0\0\0\0\0\0\0", 12, &v));
  EXPECT_EQ(v, 0);
  EXPECT_FALSE(ParseTarNumber("0000000175x\0", 12, &v));
  EXPECT_FALSE(ParseTarNumber("00000 01750\0", 12, &v));
  const char b256[12] = {'\x80', 0, 0, 0, 0, 0, 0, 0, 0, 0, '\x03', '\xe8'};
  EXPECT_TRUE(ParseTarNumber(b256, 12, &v));
  EXPECT_EQ(v, 1000);
  const char big[12] = {'\x80', 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0};  // 8 GiB
  EXPECT_TRUE(ParseTarNumber(big, 12, &v));
  EXPECT_EQ(v, int64_t{8} << 30);
  const char neg[12] = {'\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff'};
  EXPECT_FALSE(ParseTarNumber(neg, 12, &v));
  const char huge[12] = {'\x80', 0x7f, '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff'};
  EXPECT_FALSE(ParseTarNumber(huge, 12, &v));
}

TEST(TarParser, Base256SizeInAHeader) {
  const std::string data = Content(1000, 9);
  const std::string field("\x80\0\0\0\0\0\0\0\0\0\x03\xe8", 12);
  const std::string tar = testing::TarHeader("x.bin", 0, '0', &field) + testing::Padded(data) +
                          testing::TarMember("y.bin", "y") + testing::TarEnd();
  const auto e = ParseAll(tar);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].size, 1000);
  EXPECT_EQ(e[1].name, "y.bin");
  EXPECT_EQ(e[1].data_offset, 512 + 1024 + 512);
}

TEST(TarParser, PaxPathAndSizeAndGlobalHeaders) {
  const std::string pax = "31 path=dir/renamed.sample.jpg\n" "12 size=700\n" "8 x=yzw\n";
  ASSERT_EQ(std::string("31 path=dir/renamed.sample.jpg\n").size(), 31u);
  const std::string global = "19 path=global.txt\n";
  const std::string tar = testing::TarMember("pax_global", global, 'g') + testing::TarMember("PaxHeader/x", pax, 'x') +
                          testing::TarHeader("short.jpg", 5) + testing::Padded(Content(700, 1)) +
                          testing::TarMember("after.txt", "abc") + testing::TarEnd();
  const auto e = ParseAll(tar);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].name, "dir/renamed.sample.jpg");
  EXPECT_EQ(e[0].size, 700);  // PAX size wins over the header's 5
  EXPECT_EQ(e[1].name, "after.txt");  // overrides apply to one member only
  EXPECT_EQ(e[1].size, 3);
}

TEST(TarParser, GnuLongNameAndLink) {
  const std::string name = std::string(300, 'n') + ".jpg";
  const std::string link = std::string(200, 'l');
  const std::string tar = testing::TarMember("././@LongLink", name + '\0', 'L') +
                          testing::TarMember("././@LongLink", link + '\0', 'K') + testing::TarMember("trunc", "data") +
                          testing::TarMember("next.txt", "n") + testing::TarEnd();
  const auto e = ParseAll(tar);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].name, name);
  EXPECT_EQ(e[0].linkname, link);
  EXPECT_EQ(e[1].name, "next.txt");
  EXPECT_EQ(e[1].linkname, "");
}

TEST(TarParser, EndOfArchiveVariants) {
  EXPECT_TRUE(ParseAll("").empty());                         // empty file
  EXPECT_TRUE(ParseAll(testing::TarEnd()).empty());          // only the end marker
  EXPECT_EQ(ParseAll(testing::TarMember("a.b", "x")).size(), 1u);  // no end marker
  // Data after the end marker is not read.
  EXPECT_EQ(ParseAll(testing::TarMember("a.b", "x") + testing::TarEnd() + "garbage").size(), 1u);
}

TEST(TarParser, CorruptedAndTruncatedArchivesAreClearErrors) {
  const std::string good = testing::TarMember("a.jpg", Content(2000, 1)) + testing::TarMember("b.jpg", Content(100, 2)) +
                           testing::TarEnd();
  ASSERT_EQ(ParseAll(good).size(), 2u);
  // Ends inside the first member's data.
  std::string msg = ErrorOf([&] { ParseAll(good.substr(0, 1000)); });
  EXPECT_NE(msg.find("mem.tar"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mid-member 'a.jpg'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 0"), std::string::npos) << msg;
  // Ends inside the second header.
  msg = ErrorOf([&] { ParseAll(good.substr(0, 512 + 2048 + 100)); });
  EXPECT_NE(msg.find("mid-header"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 2560"), std::string::npos) << msg;
  // A flipped byte in a header.
  std::string bad = good;
  bad[2560 + 10] ^= 0x20;
  msg = ErrorOf([&] { ParseAll(bad); });
  EXPECT_NE(msg.find("checksum"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 2560"), std::string::npos) << msg;
  // Garbage.
  msg = ErrorOf([&] { ParseAll(Content(4096, 3)); });
  EXPECT_NE(msg.find("offset 0"), std::string::npos) << msg;
  // A long name whose data is cut off, a PAX header with a lying length, a huge size.
  msg = ErrorOf([&] { ParseAll(testing::TarHeader("././@LongLink", 5000, 'L') + std::string(512, 'x')); });
  EXPECT_NE(msg.find("GNU long name"), std::string::npos) << msg;
  msg = ErrorOf([&] { ParseAll(testing::TarMember("p", "99 path=x\n", 'x') + testing::TarMember("a", "")); });
  EXPECT_NE(msg.find("PAX"), std::string::npos) << msg;
  msg = ErrorOf([&] { ParseAll(testing::TarMember("p", "11 size=-5\n", 'x') + testing::TarMember("a", "")); });
  EXPECT_NE(msg.find("PAX size"), std::string::npos) << msg;
  msg = ErrorOf([&] { ParseAll(testing::TarHeader("big", int64_t{1} << 32) + testing::TarEnd()); });
  EXPECT_NE(msg.find("mid-member 'big'"), std::string::npos) << msg;
  // An extended header with no member after it.
  msg = ErrorOf([&] { ParseAll(testing::TarMember("././@LongLink", "name\0", 'L')); });
  EXPECT_NE(msg.find("extended header"), std::string::npos) << msg;
}

TEST(TarParser, TruncatedRealArchiveFromGnuTar) {
  TempDir dir;
  testing::Stage(dir / "stage", DatasetMembers(true), dir / "list.txt");
  testing::GnuTar(dir / "t.tar", "gnu", dir / "stage", dir / "list.txt");
  const std::string bytes = testing::ReadFile(dir / "t.tar");
  // Every cut point inside the members (not in the end-of-archive padding) fails cleanly or,
  // at exact member boundaries, returns a prefix of the samples.
  FileSource full(dir / "t.tar", false, false);
  TarReader r(full);
  TarEntry e;
  int64_t last_end = 0;
  while (r.Next(&e)) last_end = r.offset();
  for (int64_t cut = 1; cut < last_end; cut += 97) {
    const std::string part = bytes.substr(0, static_cast<size_t>(cut));
    MemorySource src(part.data(), part.size(), dir / "t.tar");
    try {
      EXPECT_LE(ScanTarSamples(src).size(), 6u);  // a clean cut between members
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(dir / "t.tar"), std::string::npos);
    }
  }
}

TEST(WdsIndex, SplitMemberName) {
  auto m = SplitMemberName("dir.v2/sub/abc.left.png");
  EXPECT_TRUE(m.is_component);
  EXPECT_EQ(m.key, "dir.v2/sub/abc");
  EXPECT_EQ(m.ext, "left.png");
  EXPECT_FALSE(SplitMemberName("dir/.hidden.jpg").is_component);
  EXPECT_FALSE(SplitMemberName(".x").is_component);
  EXPECT_FALSE(SplitMemberName("dir/noext").is_component);
  EXPECT_FALSE(SplitMemberName("dir/").is_component);
  m = SplitMemberName("./a.jpg");
  EXPECT_TRUE(m.is_component);
  EXPECT_EQ(m.key, "./a");
  m = SplitMemberName("a.");
  EXPECT_TRUE(m.is_component);
  EXPECT_EQ(m.ext, "");
}

TEST(WdsIndex, ParsesV12AndV11) {
  const std::string v12 = "v1.2 2\njpg 512 100 a.jpg cls 1024 1 a.cls\njpg 2048 5 b.jpg\n";
  auto s = ParseWdsIndex(v12, "x.idx", 4096);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].key, "a");
  EXPECT_EQ(s[0].components[1].ext, "cls");
  EXPECT_EQ(s[0].components[1].offset, 1024);
  EXPECT_EQ(s[0].components[1].member, "a.cls");
  EXPECT_EQ(s[1].components[0].size, 5);
  EXPECT_EQ(WriteWdsIndex(s), v12);
  const std::string v11 = "v1.1 2\njpg 512 100 cls 1024 1\r\n\njpg 2048 5\n";
  s = ParseWdsIndex(v11, "x.idx", -1);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].components.size(), 2u);
  EXPECT_EQ(s[0].components[1].member, "");
  EXPECT_EQ(s[1].components[0].offset, 2048);
}

TEST(WdsIndex, MalformedIndicesNameFileAndLine) {
  struct Case { std::string text; int line; std::string what; };
  const std::vector<Case> cases = {
      {"", 1, "version"},
      {"jpg 512 100 a.jpg\n", 1, "version"},
      {"v1.0 1\njpg 512 100\n", 1, "unsupported"},
      {"v1.2\njpg 512 100 a.jpg\n", 1, "num_samples"},
      {"v1.2 x\n", 1, "num_samples"},
      {"v1.2 1\njpg 512 100 a.jpg\njpg 1024 1 b.jpg\n", 3, "more samples"},
      {"v1.2 3\njpg 512 100 a.jpg\njpg 1024 1 b.jpg\n", 3, "declares 3"},
      {"v1.2 1\njpg 512 100\n", 2, "groups of 4"},
      {"v1.2 1\njpg abc 100 a.jpg\n", 2, "not a number"},
      {"v1.2 1\njpg 512 -1 a.jpg\n", 2, "not a number"},
      {"v1.2 1\njpg 99999999999999999999999 1 a.jpg\n", 2, "not a number"},
      {"v1.2 2\njpg 512 1 a.jpg\njpg 700 1 b.jpg\n", 3, "multiple of the tar block size"},
      {"v1.2 1\njpg 512 5000 a.jpg\n", 2, "outside the archive"},
      {"v1.2 1\njpg 8192 1 a.jpg\n", 2, "outside the archive"},
      {"v1.2 2\njpg 512 1000 a.jpg\njpg 1024 1 b.jpg\n", 3, "overlaps"},
      {"v1.2 2\njpg 1024 10 a.jpg\njpg 1024 10 b.jpg\n", 3, "overlaps"},
  };
  for (const Case& c : cases) {
    const std::string msg = ErrorOf([&] { ParseWdsIndex(c.text, "/data/shard.idx", 4096); });
    EXPECT_NE(msg.find("/data/shard.idx"), std::string::npos) << c.text << " -> " << msg;
    EXPECT_NE(msg.find("line " + std::to_string(c.line)), std::string::npos) << c.text << " -> " << msg;
    EXPECT_NE(msg.find(c.what), std::string::npos) << c.text << " -> " << msg;
  }
}

TEST(WdsIndex, HugeValuesWithoutArchiveSizeDoNotOverflow) {
  const std::string msg = ErrorOf([] {
    ParseWdsIndex("v1.2 2\njpg 512 9223372036854775807 a.jpg\njpg 1024 1 b.jpg\n", "big.idx", -1);
  });
  EXPECT_NE(msg.find("overlaps"), std::string::npos) << msg;
}

TEST(WdsIndex, WriterRefusesWhitespaceInNames) {
  WdsSample s;
  s.key = "a b";
  s.components.push_back({"jpg", 512, 1, "a b.jpg", 0});
  EXPECT_THROW(WriteWdsIndex({s}), Error);
}

TEST(WdsIndexTool, ErrorsAndUsage) {
  const std::string tool = std::string(SLUICE_BINARY_DIR) + "/sluice-wds2idx";
  if (::access(tool.c_str(), X_OK) != 0) GTEST_SKIP() << "sluice-wds2idx not built";
  TempDir dir;
  EXPECT_NE(0, testing::Sh("'" + tool + "' 2>/dev/null"));
  EXPECT_NE(0, testing::Sh("'" + tool + "' '" + (dir / "missing.tar") + "' 2>'" + (dir / "err.txt") + "'"));
  EXPECT_NE(testing::ReadFile(dir / "err.txt").find("missing.tar"), std::string::npos);
  testing::WriteFile(dir / "bad.tar", testing::TarMember("a.jpg", Content(3000, 1)).substr(0, 2000));
  EXPECT_NE(0, testing::Sh("'" + tool + "' '" + (dir / "bad.tar") + "' '" + (dir / "bad.idx") + "' 2>'" +
                           (dir / "err.txt") + "'"));
  EXPECT_NE(testing::ReadFile(dir / "err.txt").find("mid-member"), std::string::npos);
  EXPECT_NE(0, ::access((dir / "bad.idx").c_str(), F_OK));  // nothing half-written
}

}  // namespace
}  // namespace sluice
