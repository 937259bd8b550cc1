// The readers' dataset listing: file_root traversal, file_list parsing (with labels and paths only),
// files + labels.
#include <gtest/gtest.h>

#include "readers/common/file_list.h"
#include "readers/common/file_name_filter.h"
#include "readers/common/file_root_index.h"
#include "readers_test_util.h"

namespace sluice {
namespace {

using testing::ErrorOf;
using testing::TempDir;
using testing::WriteFile;

TEST(FileRoot, ClassesInByteOrderFilesSortedLikeDali) {
  TempDir d;
  const std::string r = d.path();
  WriteFile(r + "/b/2.jpg", "b2");
  WriteFile(r + "/b/1.png", "b1");
  WriteFile(r + "/a/x.jpg", "ax");
  WriteFile(r + "/a/y.JPG", "ay");       // filters are case-insensitive by default
  WriteFile(r + "/a/z.txt", "az");       // not an image
  WriteFile(r + "/a/nested/w.jpg", "w");  // class folders are not searched recursively
  WriteFile(r + "/A/q.webp", "Aq");
  WriteFile(r + "/a b/s p.jpeg", "ab");
  WriteFile(r + "/root.jpg", "r");       // files in file_root itself are ignored
  testing::MakeDirs(r + "/c_empty");
  ASSERT_EQ(0, ::symlink((r + "/b/2.jpg").c_str(), (r + "/b/3.jpg").c_str()));
  ASSERT_EQ(0, ::symlink((r + "/nowhere").c_str(), (r + "/b/4.jpg").c_str()));  // dangling: skipped

  const auto files = ListFileRoot(r, DefaultFileFilters(), false);
  // Classes: "A" (0) < "a" (1) < "a b" (2) < "b" (3) < "c_empty" (4); the whole list is sorted by
  // relative path, so "a b/..." (space < '/') comes before "a/...".
  const std::vector<FileLabel> expect = {
      {r + "/A/q.webp", 0}, {r + "/a b/s p.jpeg", 2}, {r + "/a/x.jpg", 1}, {r + "/a/y.JPG", 1},
      {r + "/b/1.png", 3},  {r + "/b/2.jpg", 3},      {r + "/b/3.jpg", 3},
  };
  EXPECT_EQ(files, expect);

  const auto cs = ListFileRoot(r, DefaultFileFilters(), true);
  EXPECT_EQ(cs.size(), expect.size() - 1);  // y.JPG no longer matches
  const auto txt = ListFileRoot(r, {"*.txt"}, false);
  ASSERT_EQ(txt.size(), 1u);
  EXPECT_EQ(txt[0], (FileLabel{r + "/a/z.txt", 1}));
  EXPECT_TRUE(MatchesAnyFilter("IMG.Jpeg", DefaultFileFilters(), false));
  EXPECT_FALSE(MatchesAnyFilter("IMG.Jpeg", DefaultFileFilters(), true));
}

TEST(FileRoot, MissingOrEmptyFoldersNameThePath) {
  TempDir d;
  std::string msg = ErrorOf([&] { ListFileRoot(d / "nope", DefaultFileFilters(), false); });
  EXPECT_NE(msg.find(d / "nope"), std::string::npos) << msg;
  msg = ErrorOf([&] { ListFileRoot(d.path(), DefaultFileFilters(), false); });
  EXPECT_NE(msg.find(d.path()), std::string::npos) << msg;
  testing::MakeDirs(d / "cls");
  WriteFile(d / "cls/readme.txt", "x");
  msg = ErrorOf([&] { ListFileRoot(d.path(), DefaultFileFilters(), false); });
  EXPECT_NE(msg.find("no files matching"), std::string::npos) << msg;
  EXPECT_NE(msg.find(d.path()), std::string::npos) << msg;
}

TEST(FileList, ParsesFromTheEnd) {
  const std::string text =
      "a.jpg 0\n"
      "  dir with spaces/my photo 1.jpg   12  \r\n"
      "\n"
      "   \t \n"
      "/abs/path.png\t-3\n"
      "tab\tsep.jpg\t4";  // no trailing newline
  const auto f = ParseFileList(text, "list.txt", "/base/");
  const std::vector<FileLabel> expect = {{"/base/a.jpg", 0},
                                         {"/base/dir with spaces/my photo 1.jpg", 12},
                                         {"/abs/path.png", -3},
                                         {"/base/tab\tsep.jpg", 4}};
  EXPECT_EQ(f, expect);
  EXPECT_EQ(ParseFileList("x 1\n", "l", "")[0].path, "x");
}

TEST(FileList, BadLinesNameTheLine) {
  for (const auto& [text, line] : std::vector<std::pair<std::string, int>>{
           {"a.jpg 0\nb.jpg\n", 2},
           {"a.jpg 0\n\n\nb.jpg one\n", 4},
           {"a.jpg 1.5\n", 1},
           {"7\n", 1},
           {"a.jpg 0\nb.jpg 99999999999\n", 2},
           {"a.jpg 0x10\n", 1}}) {
    const std::string& list = text;  // clang 14 cannot capture a structured binding
    const std::string msg = ErrorOf([&] { ParseFileList(list, "/data/list.txt", ""); });
    EXPECT_NE(msg.find("/data/list.txt, line " + std::to_string(line)), std::string::npos) << text << " -> " << msg;
  }
}

TEST(FileList, PathsRelativeToTheListOrFileRoot) {
  TempDir d;
  WriteFile(d / "lists/train.txt", "img/1.jpg 5\n");
  auto f = ReadFileList(d / "lists/train.txt", "");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].path, d / "lists/img/1.jpg");
  f = ReadFileList(d / "lists/train.txt", "/root/x");
  EXPECT_EQ(f[0].path, "/root/x/img/1.jpg");
  std::string msg = ErrorOf([&] { ReadFileList(d / "lists/none.txt", ""); });
  EXPECT_NE(msg.find(d / "lists/none.txt"), std::string::npos);
  WriteFile(d / "empty.txt", "\n\n");
  msg = ErrorOf([&] { ReadFileList(d / "empty.txt", ""); });
  EXPECT_NE(msg.find(d / "empty.txt"), std::string::npos);
}

TEST(FileList, PathListsHaveOnePathPerLine) {
  const std::string text = "a.npy\n  dir with spaces/b 1.npy  \r\n\n \t \n/abs/c.npy";
  const std::vector<std::string> want = {"/base/a.npy", "/base/dir with spaces/b 1.npy", "/abs/c.npy"};
  EXPECT_EQ(ParsePathList(text, "/base/"), want);
  EXPECT_EQ(ParsePathList("x\n", ""), std::vector<std::string>{"x"});
  TempDir d;
  WriteFile(d / "lists/l.txt", "sub/1.npy\n");
  EXPECT_EQ(ReadPathList(d / "lists/l.txt", ""), std::vector<std::string>{d / "lists/sub/1.npy"});
  EXPECT_EQ(ReadPathList(d / "lists/l.txt", "/root"), std::vector<std::string>{"/root/sub/1.npy"});
  WriteFile(d / "empty.txt", " \n");
  const std::string msg = ErrorOf([&] { ReadPathList(d / "empty.txt", ""); });
  EXPECT_NE(msg.find("file_list '" + d / "empty.txt" + "' lists no files"), std::string::npos) << msg;
}

TEST(FileList, FilesWithLabels) {
  auto f = FilesWithLabels({"a", "b"}, {}, "");
  EXPECT_EQ(f, (std::vector<FileLabel>{{"a", 0}, {"b", 1}}));
  f = FilesWithLabels({"a", "/b"}, {7, 8}, "/r");
  EXPECT_EQ(f, (std::vector<FileLabel>{{"/r/a", 7}, {"/b", 8}}));
  EXPECT_THROW(FilesWithLabels({"a", "b"}, {1}, ""), Error);
}

}  // namespace
}  // namespace sluice
