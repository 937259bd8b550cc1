// IndexFileRoot (the fast file_root listing) against the listing it replaced: one stat per entry
// and one sort of every "class/file" path, written out here as the reference.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <clocale>
#include <cstring>
#include <fstream>

#include "readers/common/file_label_list.h"
#include "readers/common/file_name_filter.h"
#include "readers/common/file_root_index.h"
#include "readers/common/shuffle.h"
#include "readers/storage/url.h"
#include "readers_test_util.h"

namespace sluice {
namespace {

using testing::ErrorOf;
using testing::MakeDirs;
using testing::TempDir;
using testing::WriteFile;

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw Error("cannot open '" + dir + "'");
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

// The listing before IndexFileRoot, verbatim in behaviour.
std::vector<FileLabel> ReferenceListing(const std::string& root, const std::vector<std::string>& filters, bool cs) {
  std::vector<std::string> classes;
  for (const std::string& name : Entries(root)) {
    struct stat st;
    if (::stat(JoinPath(root, name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) classes.push_back(name);
  }
  std::sort(classes.begin(), classes.end());
  std::vector<std::pair<std::string, int32_t>> rel;
  for (size_t c = 0; c < classes.size(); ++c) {
    const std::string dir = JoinPath(root, classes[c]);
    for (const std::string& name : Entries(dir)) {
      struct stat st;
      if (!MatchesAnyFilter(name, filters, cs)) continue;
      if (::stat(JoinPath(dir, name).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      rel.emplace_back(classes[c] + "/" + name, static_cast<int32_t>(c));
    }
  }
  std::sort(rel.begin(), rel.end());
  std::vector<FileLabel> out;
  for (auto& [p, l] : rel) out.push_back({JoinPath(root, p), l});
  return out;
}

// Every kind of entry the listing must tell apart, and class names that sort differently alone
// and followed by '/' ("a" < "a b" but "a b/..." < "a/...").
void MakeTree(const std::string& r) {
  const char* classes[] = {"a", "a b", "a-b", "a.b", "a0", "a~", "A", "b", ".hidden_class", "\xc3\xa9t\xc3\xa9",
                           "zz_empty"};
  int k = 0;
  for (const char* c : classes) {
    if (std::string(c) == "zz_empty") {
      MakeDirs(r + "/" + c);
      continue;
    }
    for (const char* f : {"1.jpg", "2.JPG", "10.jpeg", "x.png", ".hidden.jpg", "note.txt", "noext", "\xc3\xa9.jpg",
                          "a.Jp2", "b.webp", "c.TIFF", "k.jpg\xe2\x80\x8b"})
      WriteFile(r + "/" + c + "/" + f, std::to_string(k++));
  }
  WriteFile(r + "/root_file.jpg", "ignored");
  MakeDirs(r + "/a/sub.jpg");  // a folder named like an image: not a sample
  MakeDirs(r + "/a/nested");
  WriteFile(r + "/a/nested/deep.jpg", "not searched");
  ASSERT_EQ(0, ::symlink((r + "/b/1.jpg").c_str(), (r + "/a/link.jpg").c_str()));         // link to a file: a sample
  ASSERT_EQ(0, ::symlink((r + "/nowhere.jpg").c_str(), (r + "/a/dangling.jpg").c_str()));  // dangling: skipped
  ASSERT_EQ(0, ::symlink((r + "/b").c_str(), (r + "/a/dirlink.jpg").c_str()));            // link to a folder: skipped
  ASSERT_EQ(0, ::mkfifo((r + "/a/fifo.jpg").c_str(), 0644));                              // not a regular file
  ASSERT_EQ(0, ::symlink((r + "/b").c_str(), (r + "/c_link").c_str()));                   // linked class folder
  ASSERT_EQ(0, ::symlink((r + "/nowhere").c_str(), (r + "/d_dangling").c_str()));         // not a class
  ASSERT_EQ(0, ::symlink((r + "/root_file.jpg").c_str(), (r + "/e_filelink").c_str()));   // not a class
}

TEST(FileRootIndex, SameFilesOrderAndLabelsAsTheStatListing) {
  TempDir d;
  MakeTree(d.path());
  for (const bool cs : {false, true}) {
    for (const std::vector<std::string>& filters :
         {DefaultFileFilters(), std::vector<std::string>{"*.txt", "noext", "?.jpg", "[ab].*", "*"},
          std::vector<std::string>{"*.JPG", "\xc3\xa9*"}}) {
      const std::vector<FileLabel> want = ReferenceListing(d.path(), filters, cs);
      ASSERT_FALSE(want.empty());
      for (const int threads : {1, 2, 7}) {
        const FileLabelList got = IndexFileRoot(d.path(), filters, cs, threads);
        EXPECT_EQ(got.ToVector(), want) << "case_sensitive " << cs << ", " << threads << " threads";
        EXPECT_EQ(got.prefix(), d.path() + "/");
      }
      EXPECT_EQ(ListFileRoot(d.path(), filters, cs), want);
    }
  }
  // Spot checks of the reference itself: labels count every class folder, empty or linked.
  const auto files = IndexFileRoot(d.path(), DefaultFileFilters(), false).ToVector();
  auto has = [&](const std::string& rel, int label) {
    return std::find(files.begin(), files.end(), FileLabel{d / rel, label}) != files.end();
  };
  // Classes in byte order: .hidden_class 0, A 1, a 2, "a b" 3, a-b 4, a.b 5, a0 6, a~ 7, b 8,
  // c_link 9, zz_empty 10, "été" 11.
  EXPECT_TRUE(has(".hidden_class/.hidden.jpg", 0));
  EXPECT_TRUE(has("a/link.jpg", 2));
  EXPECT_TRUE(has("a/2.JPG", 2));
  EXPECT_TRUE(has("c_link/1.jpg", 9));
  EXPECT_TRUE(has("\xc3\xa9t\xc3\xa9/\xc3\xa9.jpg", 11));
  EXPECT_FALSE(has("a/dangling.jpg", 2));
  EXPECT_FALSE(has("a/sub.jpg", 2));
  EXPECT_FALSE(has("a/fifo.jpg", 2));
  EXPECT_FALSE(has("a/dirlink.jpg", 2));
  EXPECT_FALSE(has("a/k.jpg\xe2\x80\x8b", 2));
  // "a b/" < "a-b/" < "a.b/" < "a/" < "a0/" < "a~/": the blocks follow the paths, not the labels.
  std::vector<int> block_labels;
  for (const FileLabel& f : files)
    if (block_labels.empty() || block_labels.back() != f.label) block_labels.push_back(f.label);
  EXPECT_EQ(block_labels, (std::vector<int>{0, 1, 3, 4, 5, 2, 6, 7, 8, 9, 11}));
}

TEST(FileRootIndex, RootWithTrailingSlashAndErrorsNameThePath) {
  TempDir d;
  WriteFile(d / "c/x.jpg", "x");
  const FileLabelList l = IndexFileRoot(d.path() + "/", DefaultFileFilters(), false);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l.path(0), d / "c/x.jpg");
  EXPECT_EQ(l.rest(0), "c/x.jpg");

  std::string msg = ErrorOf([&] { IndexFileRoot(d / "nope", DefaultFileFilters(), false); });
  EXPECT_NE(msg.find("cannot open file_root '" + d / "nope" + "': No such file or directory"), std::string::npos)
      << msg;
  msg = ErrorOf([&] { IndexFileRoot(d / "c/x.jpg", DefaultFileFilters(), false); });
  EXPECT_NE(msg.find("cannot open file_root '" + d / "c/x.jpg" + "': Not a directory"), std::string::npos) << msg;
  msg = ErrorOf([&] { IndexFileRoot(d.path(), {"*.png"}, false); });
  EXPECT_NE(msg.find("no files matching file_filters [*.png] in the class folders of file_root '" + d.path() +
                     "' (1 class folders)"),
            std::string::npos)
      << msg;
}

TEST(FileRootIndex, UnsearchableClassFolderCountsNoFilesAsWithStat) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions";
  TempDir d;
  WriteFile(d / "a/x.jpg", "x");
  WriteFile(d / "b/y.jpg", "y");
  ASSERT_EQ(0, ::chmod((d / "b").c_str(), 0444));  // readable, not searchable: stat fails inside
  const auto want = ReferenceListing(d.path(), DefaultFileFilters(), false);
  EXPECT_EQ(IndexFileRoot(d.path(), DefaultFileFilters(), false).ToVector(), want);
  EXPECT_EQ(want.size(), 1u);
  ::chmod((d / "b").c_str(), 0755);
}

TEST(FileRootIndex, ManyFoldersOnManyThreadsKeepOneOrder) {
  TempDir d;
  for (int c = 0; c < 40; ++c) {
    const std::string dir = d / ("n" + std::to_string(1000 + c * 7 % 40));
    ASSERT_EQ(0, ::mkdir(dir.c_str(), 0755));
    for (int f = 0; f < 30; ++f) std::ofstream(dir + "/n_" + std::to_string(f * 13 % 30) + ".JPEG") << "x";
  }
  const auto want = ReferenceListing(d.path(), DefaultFileFilters(), false);
  ASSERT_EQ(want.size(), 1200u);
  for (const int threads : {1, 3, 8, 0}) EXPECT_EQ(IndexFileRoot(d.path(), DefaultFileFilters(), false, threads).ToVector(), want);
}

// Names within a folder sort in byte order (unsigned), whatever they share: a common prefix longer
// than 8 bytes, equal 8-byte heads, one name a prefix of another, bytes >= 0x80.
TEST(FileRootIndex, NamesSortInByteOrder) {
  TempDir d;
  MakeDirs(d / "c");
  for (const char* n : {"p_aaaaaaaa1", "p_aaaaaaaa", "p_aaaaaaaa0", "p_aaaaaaab", "p_\xc3\xa9", "p_Z", "p_",
                        "p_aaaaaaaa1x", "p_aaaaaaaa1\xff", "p_aaaaaaaa1 ", "p_aaaaaaa", "p_\x01"})
    std::ofstream(d / "c" + "/" + n) << n;
  const auto want = ReferenceListing(d.path(), {"*"}, true);
  ASSERT_EQ(want.size(), 12u);
  EXPECT_EQ(IndexFileRoot(d.path(), {"*"}, true).ToVector(), want);
  // A folder whose names share everything but the last byte.
  MakeDirs(d / "e");
  for (int i = 0; i < 20; ++i) std::ofstream(d / "e" + "/n01440764_1000" + std::string(1, static_cast<char>('A' + i * 7 % 20)));
  EXPECT_EQ(IndexFileRoot(d.path(), {"*"}, true).ToVector(), ReferenceListing(d.path(), {"*"}, true));
}

// readers.numpy's listing: every depth, files in the root too, links followed, sorted by relative
// path in byte order; nothing matching is an empty list; a link back up is an error, not a hang.
TEST(FileTree, EveryDepthSortedByRelativePath) {
  TempDir d;
  WriteFile(d / "b.npy", "b");
  WriteFile(d / "a/z.npy", "z");
  WriteFile(d / "a/deep/er/y.npy", "y");
  WriteFile(d / "a-x.npy", "ax");  // '-' sorts before '/': before everything under a/
  WriteFile(d / "a/n.txt", "n");
  WriteFile(d / "other/o.npy", "o");
  ASSERT_EQ(0, ::symlink((d / "other").c_str(), (d / "link").c_str()));
  ASSERT_EQ(0, ::symlink((d / "b.npy").c_str(), (d / "c.npy").c_str()));
  ASSERT_EQ(0, ::symlink((d / "nowhere").c_str(), (d / "dangling.npy").c_str()));
  const std::vector<std::string> want = {d / "a-x.npy", d / "a/deep/er/y.npy", d / "a/z.npy", d / "b.npy",
                                         d / "c.npy",   d / "link/o.npy",      d / "other/o.npy"};
  EXPECT_EQ(ListFileTree(d.path(), {"*.npy"}, true), want);
  EXPECT_EQ(ListFileTree(d.path() + "/", {"*.npy"}, true), want);
  EXPECT_EQ(ListFileTree(d.path(), {"*.NPY"}, true), std::vector<std::string>{});
  EXPECT_EQ(ListFileTree(d.path(), {"?.txt"}, true), std::vector<std::string>{d / "a/n.txt"});

  const std::string missing = ErrorOf([&] { ListFileTree(d / "nope", {"*"}, true); });
  EXPECT_NE(missing.find("cannot open folder '" + d / "nope" + "'"), std::string::npos) << missing;
  ASSERT_EQ(0, ::symlink(d.path().c_str(), (d / "a/deep/up").c_str()));
  const std::string loop = ErrorOf([&] { ListFileTree(d.path(), {"*.npy"}, true); });
  EXPECT_NE(loop.find("folder '" + d / "a/deep/up" + "' is a link to a folder that contains it"), std::string::npos)
      << loop;
}

// FileNameFilter is fnmatch's answer (MatchesAnyFilter) for every name and pattern, in the C locale
// and in a UTF-8 one (where fnmatch folds wide characters).
TEST(FileNameFilter, AgreesWithFnmatch) {
  const std::vector<std::string> names = {
      "a.jpg",   "A.JPG",         "a.JpEg",   ".jpg",      "jpg",       "x.jpg.txt", "x.png",     "X.PnG",
      "noext",   "NOEXT",         ".hidden",  "*.jpg",     "?.jpg",     "[a].jpg",   "a\\.jpg",   "ab",
      "a",       "\xc3\xa9.jpg", "\xc3\x89.JPG", "x.jp\xc4\x9f", "\xff\xfe.jpg", "x.mk\xe2\x84\xaa", "\xe2\x84\xaa",
      "k",       "K",             "x.TIF",    "x.tif",     "I.jpg",     "i.jpg",     "x.webp",    "x.WEBP"};
  const std::vector<std::vector<std::string>> filter_sets = {
      DefaultFileFilters(), {"*"}, {""}, {"noext"}, {"*.mkk"}, {"k"}, {"?.jpg", "[ab]"}, {"a\\.jpg", "\\*.jpg"},
      {"*.JPG", "*.\xc3\xa9"}, {"\xc3\xa9*", "*I*"}, {"*.tif", "*.TIF"}};
  for (const char* locale : {"C", "C.UTF-8"}) {
    if (!std::setlocale(LC_ALL, locale)) continue;
    for (const bool cs : {false, true})
      for (const auto& filters : filter_sets) {
        const FileNameFilter filter(filters, cs);
        for (const std::string& name : names)
          EXPECT_EQ(filter.Matches(name), MatchesAnyFilter(name, filters, cs))
              << locale << " case_sensitive " << cs << " name '" << name << "' first filter '" << filters[0] << "'";
      }
  }
  std::setlocale(LC_ALL, "C");
}

TEST(FileLabelList, StoresPathsFlatAndReorders) {
  FileLabelList l("/root/");
  l.Add("a/1.jpg", 0);
  const uint32_t block = l.AddBlock("b/", "x22.jpgy");
  l.AddFromBlock(block, 1, 6, 1);
  l.Add("c/333.jpg", 2);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l.path(1), "/root/b/22.jpg");
  EXPECT_EQ(l.rest(2), "c/333.jpg");
  std::string s = "old content that is longer";
  l.PathInto(0, &s);
  EXPECT_EQ(s, "/root/a/1.jpg");
  l.Reorder({2, 0, 1});
  EXPECT_EQ(l.ToVector(), (std::vector<FileLabel>{{"/root/c/333.jpg", 2}, {"/root/a/1.jpg", 0}, {"/root/b/22.jpg", 1}}));
  // Shuffle is Reorder by Permute's indices (random_shuffle's list order before the flat list).
  FileLabelList big("/r/");
  for (int i = 0; i < 1000; ++i) big.Add("c" + std::to_string(i % 7) + "/" + std::to_string(i), i % 7);
  FileLabelList gathered = big;
  std::vector<int64_t> perm(big.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  RandomGenerator rng_a(524287), rng_b(524287);
  Permute(&perm, rng_a);
  gathered.Reorder(perm);
  big.Shuffle(rng_b);
  EXPECT_EQ(big.ToVector(), gathered.ToVector());
  EXPECT_NE(big.path(0), "/r/c0/0");
  const std::vector<FileLabel> v = {{"x", 5}, {"/abs/y", -1}};
  EXPECT_EQ(FileLabelList::FromVector(v).ToVector(), v);
  EXPECT_EQ(FileLabelList::FromVector(v).prefix(), "");
}

}  // namespace
}  // namespace sluice
