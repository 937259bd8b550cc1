// The .npy header parser (versions, dtypes, orders, malformed headers) and readers.numpy without a
// ROI (whole arrays, Fortran order transposed), driven directly through its schema.
#include <gtest/gtest.h>

#include <cstring>

#include "readers/numpy/npy_array.h"
#include "readers/numpy/npy_header.h"
#include "readers_test_util.h"

namespace sluice {
namespace {

using testing::ErrorOf;
using testing::OpRunner;
using testing::TempDir;

// A header as NumPy writes it: magic, version, length, dict padded with spaces to a multiple of 64.
std::string Header(const std::string& dict, int major = 1) {
  const size_t pre = major == 1 ? 10 : 12;
  std::string d = dict;
  while ((pre + d.size() + 1) % 64 != 0) d += ' ';
  d += '\n';
  std::string h = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  const uint32_t len = static_cast<uint32_t>(d.size());
  for (size_t b = 0; b < (major == 1 ? 2u : 4u); ++b) h += static_cast<char>((len >> (8 * b)) & 0xff);
  return h + d;
}

std::string Dict(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

TEST(NpyHeader, VersionsAndOrders) {
  for (int v = 1; v <= 3; ++v) {
    for (bool f : {false, true}) {
      const std::string h = Header(Dict("<f4", f, "(3, 4)"), v);
      const NpyHeader p = ParseNpyHeader(h, "a.npy");
      EXPECT_EQ(p.version_major, v);
      EXPECT_EQ(p.dtype, DType::kFloat32);
      EXPECT_EQ(p.fortran_order, f);
      EXPECT_EQ(p.shape, (std::vector<int64_t>{3, 4}));
      EXPECT_EQ(p.data_offset, static_cast<int64_t>(h.size()));
      EXPECT_EQ(p.data_offset % 64, 0);
    }
  }
}

TEST(NpyHeader, EveryDtype) {
  const std::pair<const char*, DType> cases[] = {
      {"|u1", DType::kUInt8},   {"|i1", DType::kInt8},    {"<u2", DType::kUInt16}, {"<i2", DType::kInt16},
      {"<i4", DType::kInt32},   {"<i8", DType::kInt64},   {"<f2", DType::kFloat16}, {"<f4", DType::kFloat32},
      {"<f8", DType::kFloat64}, {"|b1", DType::kBool},    {"=f4", DType::kFloat32}};
  for (const auto& [d, t] : cases) EXPECT_EQ(ParseNpyHeader(Header(Dict(d, false, "(2,)")), "a.npy").dtype, t) << d;
  for (const char* d : {"<u4", "<u8", "<c8", "<c16", "|O", "<U3", "|S4", "|V8", "<M8[ns]", "<f16"}) {
    const std::string e = ErrorOf([&] { ParseNpyHeader(Header(Dict(d, false, "(2,)")), "x/a.npy"); });
    EXPECT_NE(e.find("x/a.npy"), std::string::npos) << e;
    EXPECT_NE(e.find("unsupported dtype"), std::string::npos) << e;
  }
  const std::string e = ErrorOf([&] { ParseNpyHeader(Header(Dict(">i4", false, "(2,)")), "b.npy"); });
  EXPECT_NE(e.find("big-endian"), std::string::npos) << e;
  EXPECT_NE(e.find("b.npy"), std::string::npos) << e;
}

TEST(NpyHeader, Shapes) {
  EXPECT_TRUE(ParseNpyHeader(Header(Dict("<f4", false, "()")), "a").shape.empty());
  EXPECT_EQ(ParseNpyHeader(Header(Dict("<f4", false, "()")), "a").num_elements(), 1);
  EXPECT_EQ(ParseNpyHeader(Header(Dict("<f4", false, "(0, 5)")), "a").shape, (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(ParseNpyHeader(Header(Dict("<f4", false, "(7,)")), "a").shape, (std::vector<int64_t>{7}));
  EXPECT_EQ(ParseNpyHeader(Header(Dict("<f4", false, "(2, 3, 4, 5)")), "a").num_elements(), 120);
  // Key order and double quotes are accepted.
  const auto p = ParseNpyHeader(Header("{\"shape\": (2,), \"fortran_order\": True, \"descr\": \"<i2\"}"), "a");
  EXPECT_EQ(p.dtype, DType::kInt16);
  EXPECT_TRUE(p.fortran_order);
}

TEST(NpyHeader, MalformedHeadersAreClearErrors) {
  const std::string good = Header(Dict("<f4", false, "(3, 4)"));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "bad magic"},
      {"\x93NUMPX" + good.substr(6), "bad magic"},
      {good.substr(0, 9), "truncated"},
      {good.substr(0, 40), "truncated"},
      {std::string("\x93NUMPY\x04\x00", 8) + good.substr(8), "version"},
      {std::string("\x93NUMPY\x01\x01", 8) + good.substr(8), "version"},
      {Header("{'descr': '<f4', 'shape': (3,)}"), "missing key 'fortran_order'"},
      {Header("{'descr': '<f4', 'fortran_order': False}"), "missing key 'shape'"},
      {Header("{'fortran_order': False, 'shape': (3,)}"), "missing key 'descr'"},
      {Header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,)}"), "True or False"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}"), "non-negative integer"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (3 4)}"), "expected ','"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}"), "unexpected key"},
      {Header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}"), "duplicate"},
      {Header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}"), "structured"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999)}"), "too large"},
      // Empty (a zero dimension) but with strides that overflow: found by fuzz_npy_header.
      {Header("{'descr': '<f2', 'fortran_order': False, 'shape': (44073709551615, 688272227689, 0, 2)}"), "too large"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} junk"), "after the dict"},
      {Header("{'descr': '<f4, 'fortran_order': False"), ""},
      {Header("'descr'"), "'{'"},
  };
  for (const auto& [bytes, why] : bad) {
    const auto& header = bytes;  // clang 14 cannot capture a structured binding
    const std::string e = ErrorOf([&] { ParseNpyHeader(header, "dir/bad.npy"); });
    EXPECT_NE(e.find("dir/bad.npy"), std::string::npos) << e;
    EXPECT_NE(e.find(why), std::string::npos) << "want '" << why << "' in: " << e;
  }
  // Every prefix of a good header is an error, never a crash.
  for (size_t k = 0; k < good.size(); ++k) EXPECT_FALSE(ErrorOf([&] { ParseNpyHeader(good.substr(0, k), "p"); }).empty());
}

TEST(NpyHeader, CopyBoxPermutedTransposes) {
  // A (2, 3) array stored in Fortran order is the C-order (3, 2) array of its transpose.
  const int32_t fortran[6] = {0, 3, 1, 4, 2, 5};  // a = [[0, 1, 2], [3, 4, 5]]
  int32_t out[6] = {};
  CopyBoxPermuted(reinterpret_cast<const char*>(fortran), {3, 2}, {1, 0}, reinterpret_cast<char*>(out), {2, 3}, {0, 0}, 4);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], i);
}

// Padding converts fill_value to the array's dtype by cast's rules: for float16, round to nearest
// with ties to even. Each value lies halfway between two float16 values; rounding ties up (what the
// reader did before) gives the odd neighbour.
TEST(NpyArray, BoxPaddingRoundsFloat16FillToNearestEven) {
  const std::string file = Header(Dict("<f2", false, "(2,)")) + std::string(4, '\0');
  const MemorySource src(file.data(), file.size(), "f16.npy");
  const NpyHeader h = ParseNpyHeader(file, "f16.npy");
  const std::pair<double, uint16_t> ties[] = {
      {1.0 + 1.0 / 2048, 0x3c00},         // between 1 (0x3c00) and 1 + 2^-10 (0x3c01)
      {1.0 + 3.0 / 2048, 0x3c02},         // between 0x3c01 and 0x3c02
      {-(2048.0 + 1.0), 0xe800},          // between -2048 (0xe800) and -2050 (0xe801)
      {2.5 / (1 << 24), 0x0002},          // subnormal: between 2 and 3 units of 2^-24
      {0.5 / (1 << 24), 0x0000},          // between 0 and the smallest subnormal
  };
  std::vector<char> scratch;
  for (const auto& [value, bits] : ties) {
    uint16_t out[4] = {1, 1, 1, 1};
    // The box [-1, 3) of a 2-element array: one padded element at each end.
    ReadNpyBox(src, h, {-1}, {4}, value, reinterpret_cast<char*>(out), scratch);
    EXPECT_EQ(out[0], bits) << value;
    EXPECT_EQ(out[3], bits) << value;
    EXPECT_EQ(out[1], 0) << value;
  }
}

void WriteNpy(const std::string& path, const std::string& dict, const std::string& data, int major = 1) {
  testing::WriteFile(path, Header(dict, major) + data);
}

TEST(NumpyReaderOp, ReadsWholeArraysCAndFortran) {
  TempDir dir;
  std::string c_data, f_data;
  const int32_t a[6] = {0, 1, 2, 3, 4, 5}, fa[6] = {0, 3, 1, 4, 2, 5};
  c_data.assign(reinterpret_cast<const char*>(a), sizeof(a));
  f_data.assign(reinterpret_cast<const char*>(fa), sizeof(fa));
  WriteNpy(dir / "a.npy", Dict("<i4", false, "(2, 3)"), c_data);
  WriteNpy(dir / "sub/b.npy", Dict("<i4", true, "(2, 3)"), f_data, 2);
  WriteNpy(dir / "c.txt", Dict("<i4", false, "(2, 3)"), c_data);
  OpRunner r("readers.numpy", {{"file_root", Value(dir.path())}}, 2);
  auto& o = r.Next();
  ASSERT_EQ(o[0].num_samples(), 2);
  EXPECT_EQ(o[0].dtype(), DType::kInt32);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(o[0].shape(i), (TensorShape{2, 3}));
    EXPECT_EQ(r.Bytes(0, i), c_data) << i;
  }
  EXPECT_NE(o[0].source(1).path.find("sub/b.npy"), std::string::npos);
}

TEST(NumpyReaderOp, ErrorsNameReaderFileAndReason) {
  TempDir dir;
  WriteNpy(dir / "a.npy", Dict("<i4", false, "(100,)"), std::string(8, '\0'));  // truncated data
  OpRunner r("readers.numpy", {{"file_root", Value(dir.path())}}, 1);
  const std::string e = ErrorOf([&] { r.Next(); });
  EXPECT_NE(e.find("readers.numpy"), std::string::npos) << e;
  EXPECT_NE(e.find("a.npy"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  TempDir empty;
  const std::string e2 = ErrorOf([&] { OpRunner("readers.numpy", {{"file_root", Value(empty.path())}}, 1); });
  EXPECT_NE(e2.find("file_filter"), std::string::npos) << e2;
}

}  // namespace
}  // namespace sluice
