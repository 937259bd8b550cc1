// The parsers of readers.mxnet (RecordIO framing, .idx, IRHeader) and of readers.caffe/caffe2
// (caffe.Datum, caffe2.TensorProtos), on bytes written here by hand: edge cases the Python tests
// (independent writers, DALI 2.4) do not reach: split records, bad flags, truncation, malformed
// wire data, packed and unpacked repeated fields, last-value-wins.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <sluice/error.h>

#include "readers/caffe/caffe_proto.h"
#include "readers/mxnet/recordio_format.h"

namespace sluice {
namespace {

const uint8_t* U(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string Word(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

// ---- RecordIO ----
TEST(RecordIO, WholeAndSplitRecordsRoundTrip) {
  const std::string magic = Word(kRecordIOMagic);
  for (const std::string& payload : {std::string("abc"), std::string("abcd") + magic + "efgh" + magic,
                                     magic + "x", std::string()}) {
    std::string rec;
    AppendRecordIO(U(payload), payload.size(), rec);
    EXPECT_EQ(rec.size() % 4, 0u);
    std::vector<uint8_t> back;
    ReadRecordIO(U(rec), rec.size(), "t.rec", 0, back);
    EXPECT_EQ(std::string(back.begin(), back.end()), payload);
  }
  // A payload holding the magic word at an aligned position is written as parts (cflag 1 .. 3).
  std::string rec;
  const std::string payload = std::string("abcd") + magic + "ef";
  AppendRecordIO(U(payload), payload.size(), rec);
  uint32_t lrec;
  std::memcpy(&lrec, rec.data() + 4, 4);
  EXPECT_EQ(lrec >> 29, 1u);
}

TEST(RecordIO, BadRecordsNameFileAndOffset) {
  std::vector<uint8_t> out;
  const std::string wrong = Word(0x12345678) + Word(4) + "abcd";
  EXPECT_THROW(ReadRecordIO(U(wrong), wrong.size(), "f.rec", 40, out), Error);
  try {
    ReadRecordIO(U(wrong), wrong.size(), "f.rec", 40, out);
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'f.rec', record at byte offset 40: bad magic word"), std::string::npos) << e.message();
  }
  const std::string past = Word(kRecordIOMagic) + Word(100) + "abcd";
  EXPECT_THROW(ReadRecordIO(U(past), past.size(), "f.rec", 0, out), Error);
  const std::string middle_first = Word(kRecordIOMagic) + Word((2u << 29) | 4) + "abcd";
  EXPECT_THROW(ReadRecordIO(U(middle_first), middle_first.size(), "f.rec", 0, out), Error);
  const std::string unfinished = Word(kRecordIOMagic) + Word((1u << 29) | 4) + "abcd";
  EXPECT_THROW(ReadRecordIO(U(unfinished), unfinished.size(), "f.rec", 0, out), Error);
  EXPECT_THROW(ReadRecordIO(U(unfinished), 5, "f.rec", 0, out), Error);
}

TEST(RecordIO, IndexSortedDedupedAndSized) {
  const auto e = ParseRecordIOIndex("1\t40\n0 0\n\n2\t40\r\n3\t100\n", "i.idx", 160);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0], (RecordIOEntry{0, 40}));
  EXPECT_EQ(e[1], (RecordIOEntry{40, 60}));
  EXPECT_EQ(e[2], (RecordIOEntry{100, 60}));
  EXPECT_THROW(ParseRecordIOIndex("0\t155\n", "i.idx", 160), Error);  // no room for a header
  EXPECT_THROW(ParseRecordIOIndex("0\t-8\n", "i.idx", 160), Error);
  EXPECT_THROW(ParseRecordIOIndex("0\t8 extra\n", "i.idx", 160), Error);
  EXPECT_TRUE(ParseRecordIOIndex("", "i.idx", 160).empty());
}

TEST(RecordIO, ImageRecordHeaderAndLabels) {
  auto header = [](uint32_t flag, float label) {
    std::string h = Word(flag);
    h.append(reinterpret_cast<const char*>(&label), 4);
    h.append(16, '\0');
    return h;
  };
  const std::string one = header(0, 7.5f) + "img";
  ImageRecord r = ParseImageRecord(U(one), one.size(), "f", 0);
  EXPECT_EQ(r.labels, std::vector<float>{7.5f});
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(r.image), r.image_size), "img");
  const float ls[2] = {1.f, -2.f};
  const std::string two = header(2, 0.f) + std::string(reinterpret_cast<const char*>(ls), 8) + "jpg";
  r = ParseImageRecord(U(two), two.size(), "f", 0);
  EXPECT_EQ(r.labels, (std::vector<float>{1.f, -2.f}));
  EXPECT_EQ(r.image_size, 3u);
  const std::string too_many = header(1000, 0.f) + "abcd";
  EXPECT_THROW(ParseImageRecord(U(too_many), too_many.size(), "f", 0), Error);
  EXPECT_THROW(ParseImageRecord(U(one), 23, "f", 0), Error);
}

// ---- protobuf wire data, written by hand ----
std::string Varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
  return s;
}
std::string Tag(int field, int wire) { return Varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire)); }
std::string Bytes(int field, const std::string& b) { return Tag(field, 2) + Varint(b.size()) + b; }
std::string Int(int field, uint64_t v) { return Tag(field, 0) + Varint(v); }

TEST(CaffeProto, DatumFieldsLastValueWinsAndUnknownSkipped) {
  const std::string d = Int(1, 3) + Int(2, 4) + Int(3, 5) + Bytes(4, "old") + Bytes(4, "pixels") + Int(5, 9) +
                        Tag(6, 5) + Word(0) + Int(7, 0) + Bytes(99, "unknown") + Tag(98, 1) + std::string(8, 'x');
  const CaffeDatum datum = ParseCaffeDatum(U(d), d.size());
  EXPECT_EQ(datum.channels, 3);
  EXPECT_EQ(datum.height, 4);
  EXPECT_EQ(datum.width, 5);
  EXPECT_EQ(datum.data, "pixels");
  EXPECT_TRUE(datum.has_label && datum.label == 9);
  EXPECT_TRUE(datum.has_encoded && !datum.encoded);
  const CaffeDatum empty = ParseCaffeDatum(nullptr, 0);
  EXPECT_FALSE(empty.has_label || empty.has_encoded || empty.has_data);
  int32_t negative = -1;
  const std::string neg = Int(5, static_cast<uint64_t>(static_cast<int64_t>(negative)));
  EXPECT_EQ(ParseCaffeDatum(U(neg), neg.size()).label, -1);
}

TEST(CaffeProto, MalformedDatumThrowsNamingTheMessage) {
  for (const std::string& bad : {Tag(4, 2) + Varint(50) + "short", std::string("\x80"), Tag(5, 2) + Varint(0),
                                 Tag(1, 7), std::string("\x00", 1)}) {
    try {
      ParseCaffeDatum(U(bad), bad.size());
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("malformed caffe.Datum"), std::string::npos) << e.message();
    }
  }
}

TEST(CaffeProto, TensorProtosPackedAndUnpacked) {
  const float f[2] = {0.5f, -1.f};
  const std::string packed_floats = Bytes(3, std::string(reinterpret_cast<const char*>(f), 8));
  const std::string unpacked_ints = Int(4, 7) + Int(4, 8);
  const std::string packed_int64 = Bytes(10, Varint(1) + Varint(1ull << 40));
  const std::string t1 = Int(1, 2) + Int(1, 3) + Int(2, 1) + packed_floats + unpacked_ints + packed_int64;
  const std::string t2 = Int(2, 4) + Bytes(6, "jpeg") + Bytes(6, "second") + Bytes(5, "raw");
  const std::string protos = Bytes(1, t1) + Bytes(2, "ignored") + Bytes(1, t2) + Bytes(1, "");
  const auto ts = ParseCaffe2TensorProtos(U(protos), protos.size());
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ts[0].float_data, (std::vector<float>{0.5f, -1.f}));
  EXPECT_EQ(ts[0].int32_data, (std::vector<int32_t>{7, 8}));
  EXPECT_EQ(ts[0].int64_data, (std::vector<int64_t>{1, int64_t{1} << 40}));
  EXPECT_EQ(ts[1].data_type, 4);
  ASSERT_EQ(ts[1].string_data.size(), 2u);
  EXPECT_EQ(ts[1].string_data[0], "jpeg");
  EXPECT_EQ(ts[1].byte_data, "raw");
  EXPECT_EQ(ts[2].data_type, 1);  // FLOAT, the declared default
  const std::string bad_packed = Bytes(1, Bytes(3, "abc"));  // 3 bytes: not whole floats
  EXPECT_THROW(ParseCaffe2TensorProtos(U(bad_packed), bad_packed.size()), Error);
  const std::string wrong_wire = Bytes(1, Tag(2, 2) + Varint(0));
  try {
    ParseCaffe2TensorProtos(U(wrong_wire), wrong_wire.size());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("malformed caffe2.TensorProto: TensorProto.data_type with wire type 2"), std::string::npos)
        << e.message();
  }
}

}  // namespace
}  // namespace sluice
