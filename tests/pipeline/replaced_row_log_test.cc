// The executor's packed log of replaced rows: records come back as they went in, the last
// `capacity` of them, oldest first.
#include <gtest/gtest.h>

#include "pipeline/replaced_row_log.h"

namespace sluice {
namespace {

SampleErrorRecord Rec(int64_t i) {
  SampleErrorRecord r;
  r.op = "decoder";
  r.iteration = i;
  r.sample = static_cast<int>(i % 7);
  r.replaced_by = static_cast<int>((i + 1) % 7);
  r.path = "/data/shard-" + std::to_string(i) + ".tar";
  r.member = i % 2 ? "" : "k" + std::to_string(i) + ".jpg";
  r.offset = i % 2 ? -1 : i * 512;
  r.source = r.path + ":" + r.member;
  r.error = std::string(static_cast<size_t>(i % 300), 'e');  // some records span chunk ends
  return r;
}

TEST(ReplacedRowLog, KeepsTheLastCapacityRecordsExactly) {
  ReplacedRowLog log(5000);
  for (int64_t i = 0; i < 20000; ++i) {
    log.Add(Rec(i));
    if (i == 10) {
      auto early = log.Records();
      ASSERT_EQ(early.size(), 11u);
      EXPECT_EQ(early[3].path, Rec(3).path);
    }
  }
  const auto all = log.Records();
  ASSERT_EQ(all.size(), 5000u);
  EXPECT_EQ(log.size(), 5000u);
  for (size_t k = 0; k < all.size(); ++k) {
    const SampleErrorRecord want = Rec(15000 + static_cast<int64_t>(k));
    const SampleErrorRecord& got = all[k];
    ASSERT_EQ(got.iteration, want.iteration);
    EXPECT_EQ(got.sample, want.sample);
    EXPECT_EQ(got.replaced_by, want.replaced_by);
    EXPECT_EQ(got.offset, want.offset);
    EXPECT_EQ(got.op, want.op);
    EXPECT_EQ(got.path, want.path);
    EXPECT_EQ(got.member, want.member);
    EXPECT_EQ(got.source, want.source);
    EXPECT_EQ(got.error, want.error);
  }
}

TEST(ReplacedRowLog, ZeroCapacityKeepsNothing) {
  ReplacedRowLog log(0);
  log.Add(Rec(1));
  EXPECT_TRUE(log.Records().empty());
}

}  // namespace
}  // namespace sluice
