// TFRecord framing (CRC32C, masked CRCs, truncation), DALI's tfrecord2idx index format, the
// tf.train.Example decoder, and readers.tfrecord as an operator.
#include <gtest/gtest.h>

#include <cstring>

#include "readers/storage/file_source.h"
#include "readers/tfrecord/tf_example.h"
#include "readers/tfrecord/tfrecord_format.h"
#include "readers/tfrecord/tfrecord_reader.h"
#include "readers_test_util.h"

namespace sluice {
namespace {

using testing::ErrorOf;
using testing::OpRunner;
using testing::TempDir;
using Args = std::map<std::string, Value>;
using Strings = std::vector<std::string>;
using Ints = std::vector<int64_t>;

// ---- A small writer of the wire format and the framing ----
std::string Varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
  return s;
}
std::string Field(int num, int wire, const std::string& payload) {
  std::string s = Varint(static_cast<uint64_t>(num) << 3 | static_cast<uint64_t>(wire));
  if (wire == 2) s += Varint(payload.size());
  return s + payload;
}
std::string Le(uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}
std::string Frame(const std::string& data) {
  const std::string len = Le(data.size(), 8);
  return len + Le(MaskCrc32c(Crc32c(len.data(), 8)), 4) + data + Le(MaskCrc32c(Crc32c(data.data(), data.size())), 4);
}
std::string Entry(const std::string& key, const std::string& feature) {
  return Field(1, 2, Field(1, 2, key) + Field(2, 2, feature));
}
std::string Int64s(const std::vector<int64_t>& v, bool packed) {
  std::string body;
  if (packed) {
    std::string p;
    for (int64_t x : v) p += Varint(static_cast<uint64_t>(x));
    body = Field(1, 2, p);
  } else {
    for (int64_t x : v) body += Field(1, 0, Varint(static_cast<uint64_t>(x)));
  }
  return Field(3, 2, body);
}
std::string Floats(const std::vector<float>& v, bool packed) {
  std::string body, p;
  for (float f : v) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (packed) p += Le(u, 4);
    else body += Field(1, 5, Le(u, 4));
  }
  if (packed) body = Field(1, 2, p);
  return Field(2, 2, body);
}
std::string Bytes(const Strings& v) {
  std::string body;
  for (const auto& s : v) body += Field(1, 2, s);
  return Field(1, 2, body);
}
std::string ExampleOf(const std::string& entries) { return Field(1, 2, entries); }
const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(Crc32c, KnownVectors) {
  // RFC 3720 (iSCSI) B.4 and the standard check value.
  EXPECT_EQ(Crc32c("123456789", 9), 0xe3069283u);
  EXPECT_EQ(Crc32c("", 0), 0u);
  std::string zeros(32, '\0'), ones(32, '\xff'), inc(32, 0);
  for (int i = 0; i < 32; ++i) inc[static_cast<size_t>(i)] = static_cast<char>(i);
  EXPECT_EQ(Crc32c(zeros.data(), 32), 0x8a9136aau);
  EXPECT_EQ(Crc32c(ones.data(), 32), 0x62a8ab43u);
  EXPECT_EQ(Crc32c(inc.data(), 32), 0x46dd794eu);
  // Continuation equals one pass.
  EXPECT_EQ(Crc32c("6789", 4, Crc32c("12345", 5)), 0xe3069283u);
}

TEST(Crc32c, Mask) {
  EXPECT_EQ(MaskCrc32c(0), 0xa282ead8u);
  const uint32_t c = 0x12345678u;
  EXPECT_EQ(MaskCrc32c(c), ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

TEST(TfRecordFormat, ScanAndIndexRoundTrip) {
  const std::string a = Frame("hello"), b = Frame(""), c = Frame(std::string(1000, 'x'));
  const std::string file = a + b + c;
  MemorySource src(file.data(), file.size(), "mem.tfrecord");
  const auto recs = ScanTfRecords(src);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0], (TfRecordEntry{0, 21}));
  EXPECT_EQ(recs[1], (TfRecordEntry{21, 16}));
  EXPECT_EQ(recs[2], (TfRecordEntry{37, 1016}));
  const std::string idx = WriteTfRecordIndex(recs);
  EXPECT_EQ(idx, "0 21\n21 16\n37 1016\n");
  EXPECT_EQ(ParseTfRecordIndex(idx, "i", static_cast<int64_t>(file.size())), recs);
  for (const auto& r : recs) CheckTfRecord(U8(file) + r.offset, static_cast<size_t>(r.size), "f", r.offset);
  EXPECT_TRUE(ScanTfRecords(MemorySource(file.data(), 0, "empty")).empty());
}

TEST(TfRecordFormat, CorruptionNamesFileAndOffset) {
  std::string file = Frame("abc") + Frame("defgh");
  std::string bad = file;
  bad[19 + 13] ^= 1;  // data of the second record (at offset 19)
  EXPECT_NE(ErrorOf([&] { ScanTfRecords(MemorySource(bad.data(), bad.size(), "f.tfr")); }).find(
                "'f.tfr', record at byte offset 19: data CRC mismatch"),
            std::string::npos);
  EXPECT_NO_THROW(ScanTfRecords(MemorySource(bad.data(), bad.size(), "f.tfr"), /*check_data=*/false));
  bad = file;
  bad[19 + 8] ^= 1;  // length CRC
  EXPECT_NE(ErrorOf([&] { ScanTfRecords(MemorySource(bad.data(), bad.size(), "f.tfr")); }).find(
                "byte offset 19: length CRC mismatch"),
            std::string::npos);
  for (size_t cut : {size_t{20}, size_t{25}, file.size() - 1}) {
    const std::string e = ErrorOf([&] { ScanTfRecords(MemorySource(file.data(), cut, "f.tfr")); });
    EXPECT_NE(e.find("byte offset 19: truncated record"), std::string::npos) << e;
  }
  // A length that would overflow.
  std::string huge = Le(~uint64_t{0}, 8);
  huge += Le(MaskCrc32c(Crc32c(huge.data(), 8)), 4) + "xxxx";
  EXPECT_NE(ErrorOf([&] { ScanTfRecords(MemorySource(huge.data(), huge.size(), "h")); }).find("truncated"),
            std::string::npos);
  // CheckTfRecord: an index size that disagrees with the length field.
  EXPECT_NE(ErrorOf([&] { CheckTfRecord(U8(file), 20, "f.tfr", 0); }).find("length field says 3"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { CheckTfRecord(U8(file), 5, "f.tfr", 7); }).find("byte offset 7: truncated"), std::string::npos);
}

TEST(TfRecordIndex, ChecksEveryLine) {
  EXPECT_EQ(ParseTfRecordIndex("0 16\n\n16\t20\r\n", "i", 36).size(), 2u);
  EXPECT_EQ(ParseTfRecordIndex("0 16", "i", 16).size(), 1u);  // no final newline
  auto err = [](std::string_view text, int64_t size) { return ErrorOf([&] { ParseTfRecordIndex(text, "x.idx", size); }); };
  EXPECT_NE(err("0 16\n16 x\n", 100).find("'x.idx', line 2"), std::string::npos);
  EXPECT_NE(err("0\n", 100).find("line 1"), std::string::npos);
  EXPECT_NE(err("-1 16\n", 100).find("line 1"), std::string::npos);
  EXPECT_NE(err("0 16 7\n", 100).find("unexpected text"), std::string::npos);
  EXPECT_NE(err("0 15\n", 100).find("less than the 16 bytes"), std::string::npos);
  EXPECT_NE(err("90 16\n", 100).find("past the end"), std::string::npos);
  EXPECT_NE(err("9223372036854775807 16\n", 100).find("past the end"), std::string::npos);
  EXPECT_NE(err("0 99999999999999999999\n", 100).find("line 1"), std::string::npos);
  EXPECT_NE(err("0 20\n10 20\n", 100).find("overlaps"), std::string::npos);
}

TEST(TfExample, DecodesEveryKindPackedAndNot) {
  for (bool packed : {true, false}) {
    const std::string ex = ExampleOf(Entry("i", Int64s({1, -2, INT64_MIN, INT64_MAX}, packed)) +
                                     Entry("f", Floats({1.5f, -0.25f}, packed)) + Entry("b", Bytes({"ab", "", "c"})));
    const auto all = ParseTfExampleAll(U8(ex), ex.size());
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].first, "i");
    EXPECT_EQ(all[0].second.kind, TfFeatureKind::kInt64);
    EXPECT_EQ(all[0].second.ints, (Ints{1, -2, INT64_MIN, INT64_MAX}));
    EXPECT_EQ(all[1].second.floats, (std::vector<float>{1.5f, -0.25f}));
    ASSERT_EQ(all[2].second.bytes.size(), 3u);
    EXPECT_EQ(all[2].second.bytes[0], "ab");
    EXPECT_EQ(all[2].second.bytes[1], "");
    const auto sel = ParseTfExample(U8(ex), ex.size(), {"b", "missing", "i"});
    EXPECT_EQ(sel[0].kind, TfFeatureKind::kBytes);
    EXPECT_EQ(sel[1].kind, TfFeatureKind::kNone);
    EXPECT_EQ(sel[2].ints.size(), 4u);
  }
}

TEST(TfExample, MergeRulesAndUnknownFields) {
  // Unknown fields at every level are skipped; a repeated key keeps the last value; a list field
  // seen twice merges; the empty Example has no features.
  const std::string unknown = Field(7, 0, Varint(5)) + Field(8, 1, std::string(8, 'z')) + Field(9, 5, "zzzz");
  const std::string ex = unknown + ExampleOf(unknown + Entry("k", Int64s({1}, true)) + Entry("k", Int64s({2, 3}, true)) +
                                             Entry("m", Int64s({4}, true) + Int64s({5}, false))) +
                         ExampleOf(Entry("n", Floats({}, true)));
  const auto all = ParseTfExampleAll(U8(ex), ex.size());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].second.ints, (Ints{2, 3}));
  EXPECT_EQ(all[1].second.ints, (Ints{4, 5}));
  EXPECT_EQ(all[2].second.kind, TfFeatureKind::kFloat);
  EXPECT_EQ(all[2].second.count(), 0u);
  EXPECT_TRUE(ParseTfExampleAll(nullptr, 0).empty());
}

TEST(TfExample, MalformedIsAnErrorNeverACrash) {
  const std::string good = ExampleOf(Entry("k", Int64s({1, 2}, true)) + Entry("f", Floats({1.f}, true)));
  // Every truncation of a valid message either parses (a prefix can be valid) or throws sluice::Error.
  for (size_t n = 0; n < good.size(); ++n) {
    try {
      ParseTfExampleAll(U8(good), n);
    } catch (const Error&) {
    }
  }
  auto err = [](const std::string& s) { return ErrorOf([&] { ParseTfExampleAll(U8(s), s.size()); }); };
  EXPECT_NE(err("\x0a\x05\x01").find("runs past its end"), std::string::npos);
  EXPECT_NE(err("\x0a").find("truncated varint"), std::string::npos);
  EXPECT_NE(err(std::string("\x10") + std::string(11, '\xff')).find("varint longer"), std::string::npos);
  EXPECT_NE(err("\x0b").find("wire type 3"), std::string::npos);
  EXPECT_NE(err(std::string(1, '\0')).find("field number 0"), std::string::npos);
  EXPECT_NE(err(ExampleOf(Entry("f", Field(2, 2, Field(1, 2, "abc"))))).find("not a multiple of 4"), std::string::npos);
  EXPECT_NE(err(ExampleOf(Entry("f", Field(1, 0, "\x01")))).find("wire type 0"), std::string::npos);
}

TEST(TfFeatureToTensor, ShapesDefaultsAndMismatches) {
  TfFeatureSpec fixed{"x", true, TfFeatureSpec::Type::kInt64, {2, 2}, 7, 0, ""};
  TfFeature f;
  std::vector<uint8_t> out;
  EXPECT_EQ(TfFeatureToTensor(fixed, f, out), (TensorShape{2, 2}));  // absent: defaults
  ASSERT_EQ(out.size(), 32u);
  int64_t v;
  std::memcpy(&v, out.data() + 24, 8);
  EXPECT_EQ(v, 7);
  f.kind = TfFeatureKind::kInt64;
  f.ints = {1, 2, 3};
  EXPECT_NE(ErrorOf([&] { TfFeatureToTensor(fixed, f, out); }).find("has 3 values but"), std::string::npos);
  TfFeatureSpec scalar{"s", true, TfFeatureSpec::Type::kFloat32, {}, 0, 2.5, ""};
  out.clear();
  EXPECT_EQ(TfFeatureToTensor(scalar, TfFeature{}, out), (TensorShape{1}));
  TfFeatureSpec str{"b", false, TfFeatureSpec::Type::kString, {}, 0, 0, "dflt"};
  out.clear();
  EXPECT_EQ(TfFeatureToTensor(str, TfFeature{}, out), (TensorShape{4}));
  EXPECT_EQ(std::string(out.begin(), out.end()), "dflt");
  EXPECT_NE(ErrorOf([&] { TfFeatureToTensor(str, f, out); }).find("declared string but the record holds a int64_list"),
            std::string::npos);
}

TEST(TfRecordReaderOp, ReadsRecordsAndReportsCorruption) {
  TempDir dir;
  std::string file;
  std::vector<std::string> recs;
  for (int i = 0; i < 5; ++i) {
    recs.push_back(Frame(ExampleOf(Entry("label", Int64s({i}, true)) + Entry("img", Bytes({std::string(3 + i, 'a' + i)})))));
    file += recs.back();
  }
  testing::WriteFile(dir / "d.tfrecord", file);
  FileSource src(dir / "d.tfrecord", false, false);
  testing::WriteFile(dir / "d.idx", WriteTfRecordIndex(ScanTfRecords(src)));
  Args args{{"path", Strings{dir / "d.tfrecord"}}, {"index_path", Strings{dir / "d.idx"}},
            {"feature_names", Strings{"img", "label"}}, {"feature_kinds", Strings{"fixed", "fixed"}},
            {"feature_dtypes", Strings{"string", "int64"}}, {"feature_ndims", Ints{0, 0}},
            {"feature_int_defaults", Ints{0, -1}}, {"feature_float_defaults", std::vector<double>{0, 0}},
            {"feature_string_defaults", Strings{"", ""}}};
  {
    OpRunner r("readers.tfrecord", args, 5);
    auto& o = r.Next();
    ASSERT_EQ(o.size(), 2u);
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(r.Bytes(0, i), std::string(3 + i, 'a' + i));
      EXPECT_EQ(o[1].dtype(), DType::kInt64);
      EXPECT_EQ(*static_cast<const int64_t*>(o[1].raw_sample(i)), i);
    }
  }
  std::string bad = file;
  bad[recs[0].size() + recs[1].size() + 14] ^= 0x40;
  testing::WriteFile(dir / "d.tfrecord", bad);
  OpRunner r("readers.tfrecord", args, 5);
  const std::string e = ErrorOf([&] { r.Next(); });
  EXPECT_NE(e.find("record at byte offset " + std::to_string(recs[0].size() + recs[1].size())), std::string::npos) << e;
  EXPECT_NE(e.find("data CRC mismatch"), std::string::npos) << e;
  Args wrong = args;
  wrong["feature_ndims"] = Ints{0};
  EXPECT_NE(ErrorOf([&] { OpRunner r2("readers.tfrecord", wrong, 1); }).find("feature_ndims"), std::string::npos);
}

}  // namespace
}  // namespace sluice
