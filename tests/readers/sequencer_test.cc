// Sharding, rotation, padding, shuffling and state of SampleSequencer (pure logic).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include <sluice/error.h>

#include "readers/common/sample_sequencer.h"
#include "readers/common/sharding.h"
#include "readers/common/shuffle.h"

namespace sluice {
namespace {

std::vector<int64_t> Take(SampleSequencer& s, int batches) {
  std::vector<int64_t> out;
  for (int i = 0; i < batches; ++i) s.NextBatch(&out);
  return out;
}

std::vector<int64_t> Range(int64_t b, int64_t e) {
  std::vector<int64_t> v;
  for (int64_t i = b; i < e; ++i) v.push_back(i);
  return v;
}

SequencerOptions Opts(int64_t n, int shards, int id, int batch) {
  SequencerOptions o;
  o.num_samples = n;
  o.num_shards = shards;
  o.shard_id = id;
  o.batch_size = batch;
  return o;
}

TEST(Sharding, FormulaCoversDatasetExactlyOnce) {
  for (int64_t n : {1, 2, 13, 97, 100, 128, 1000}) {
    for (int64_t s = 1; s <= std::min<int64_t>(n, 9); ++s) {
      int64_t expect_begin = 0;
      for (int64_t i = 0; i < s; ++i) {
        const ShardRange r = ShardBounds(n, i, s);
        EXPECT_EQ(r.begin, i * n / s);
        EXPECT_EQ(r.end, (i + 1) * n / s);
        EXPECT_EQ(r.begin, expect_begin);
        EXPECT_TRUE(r.size() == n / s || r.size() == n / s + 1) << n << " " << s << " " << i;
        expect_begin = r.end;
      }
      EXPECT_EQ(expect_begin, n);
      EXPECT_EQ(MaxShardSize(n, s), (n + s - 1) / s);
    }
  }
  // The seed document's formula for a later epoch.
  for (int64_t epoch = 0; epoch < 7; ++epoch) {
    const int64_t n = 97, s = 4, id = 1;
    const int64_t cur = (id + epoch) % s;
    const int64_t expect = (cur + 1) * n / s - cur * n / s;
    EXPECT_EQ(ShardBounds(n, ShardForEpoch(id, s, epoch, false), s).size(), expect);
  }
}

TEST(Sharding, Errors) {
  EXPECT_THROW(ValidateSharding(0, 0, 1, "empty set"), Error);
  try {
    ValidateSharding(0, 0, 1, "folder /x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/x"), std::string::npos);
  }
  EXPECT_THROW(ValidateSharding(3, 0, 4, "d"), Error);  // more shards than samples
  EXPECT_THROW(ValidateSharding(3, 3, 3, "d"), Error);  // shard_id out of range
  EXPECT_THROW(ValidateSharding(3, -1, 3, "d"), Error);
  EXPECT_THROW(ValidateSharding(3, 0, 0, "d"), Error);
  EXPECT_NO_THROW(ValidateSharding(3, 2, 3, "d"));
  EXPECT_THROW(SampleSequencer(Opts(0, 1, 0, 1)), Error);
  EXPECT_THROW(SampleSequencer(Opts(5, 1, 0, 0)), Error);
}

TEST(Sharding, ReaderMeta) {
  ReaderMeta m = MakeReaderMeta(13, 1, 3, true, false);
  EXPECT_EQ(m.epoch_size, 13);
  EXPECT_EQ(m.epoch_size_padded, 15);
  EXPECT_EQ(m.number_of_shards, 3);
  EXPECT_EQ(m.shard_id, 1);
  EXPECT_TRUE(m.pad_last_batch);
  m = MakeReaderMeta(13, 1, 3, false, true);
  EXPECT_EQ(m.epoch_size_padded, 13);
  EXPECT_TRUE(m.stick_to_shard);
}

// Without padding the reader is one stream: each epoch's shard (rotating) after the other.
TEST(Sequencer, RotationStreamsShardsAcrossEpochs) {
  for (int64_t n : {13, 97, 24}) {
    for (int s : {1, 3, 4}) {
      for (int id = 0; id < s; ++id) {
        for (int b : {1, 4, 5}) {
          SampleSequencer seq(Opts(n, s, id, b));
          std::vector<int64_t> expect;
          for (int e = 0; e < 5; ++e) {
            const ShardRange r = ShardBounds(n, (id + e) % s, s);
            auto v = Range(r.begin, r.end);
            expect.insert(expect.end(), v.begin(), v.end());
          }
          const int batches = static_cast<int>(expect.size()) / b;
          auto got = Take(seq, batches);
          expect.resize(got.size());
          EXPECT_EQ(got, expect) << "n=" << n << " s=" << s << " id=" << id << " b=" << b;
        }
      }
    }
  }
}

TEST(Sequencer, StickToShardRepeatsTheShard) {
  auto o = Opts(13, 3, 2, 4);
  o.stick_to_shard = true;
  SampleSequencer seq(o);
  auto got = Take(seq, 5);  // 20 samples of the 5-sample shard [8, 13)
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 8 + static_cast<int64_t>(i % 5));
  EXPECT_EQ(seq.meta().stick_to_shard, true);
}

TEST(Sequencer, SingleSample) {
  SampleSequencer a(Opts(1, 1, 0, 3));
  EXPECT_EQ(Take(a, 2), (std::vector<int64_t>{0, 0, 0, 0, 0, 0}));
  auto o = Opts(1, 1, 0, 3);
  o.pad_last_batch = true;
  SampleSequencer b(o);
  EXPECT_EQ(Take(b, 1), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(b.EpochLength(), 3);
}

// N=13 over 3 shards (sizes 4, 4, 5), batch 4: ceil(13/3) = 5 samples padded to full batches = 8.
TEST(Sequencer, PadLastBatchRotating) {
  auto o = Opts(13, 3, 0, 4);
  o.pad_last_batch = true;
  SampleSequencer seq(o);
  EXPECT_EQ(seq.EpochLength(), 8);
  EXPECT_EQ(Take(seq, 2), (std::vector<int64_t>{0, 1, 2, 3, 3, 3, 3, 3}));    // a whole batch of repeats
  EXPECT_EQ(Take(seq, 2), (std::vector<int64_t>{4, 5, 6, 7, 7, 7, 7, 7}));    // shard 1
  EXPECT_EQ(Take(seq, 2), (std::vector<int64_t>{8, 9, 10, 11, 12, 12, 12, 12}));  // shard 2
  EXPECT_EQ(Take(seq, 2), (std::vector<int64_t>{0, 1, 2, 3, 3, 3, 3, 3}));    // back to shard 0
  EXPECT_EQ(seq.meta().epoch_size_padded, 15);
}

TEST(Sequencer, PadLastBatchStickToShard) {
  auto o = Opts(13, 3, 2, 4);
  o.pad_last_batch = true;
  o.stick_to_shard = true;
  SampleSequencer seq(o);
  for (int e = 0; e < 3; ++e) EXPECT_EQ(Take(seq, 2), (std::vector<int64_t>{8, 9, 10, 11, 12, 12, 12, 12}));
}

// Per epoch, every shard returns the same number of samples with padding; the distinct samples are
// exactly the shard, and the repeats are of its last sample.
TEST(Sequencer, PadCountsAndDuplicates) {
  for (int64_t n : {13, 97, 64}) {
    for (int s : {1, 2, 3, 8}) {
      for (int b : {1, 3, 8}) {
        for (bool stick : {false, true}) {
          const int64_t per_epoch = (MaxShardSize(n, s) + b - 1) / b * b;
          for (int id = 0; id < s; ++id) {
            auto o = Opts(n, s, id, b);
            o.pad_last_batch = true;
            o.stick_to_shard = stick;
            SampleSequencer seq(o);
            for (int e = 0; e < 4; ++e) {
              std::vector<int64_t> got;
              for (int64_t k = 0; k < per_epoch / b; ++k) seq.NextBatch(&got);
              const ShardRange r = ShardBounds(n, stick ? id : (id + e) % s, s);
              const std::vector<int64_t> shard = Range(r.begin, r.end);
              ASSERT_EQ(std::vector<int64_t>(got.begin(), got.begin() + r.size()), shard);
              for (size_t k = static_cast<size_t>(r.size()); k < got.size(); ++k) ASSERT_EQ(got[k], r.end - 1);
            }
          }
        }
      }
    }
  }
}

TEST(Shuffle, BufferOfOneKeepsOrder) {
  std::vector<int64_t> in = Range(0, 50), out;
  RandomGenerator rng(7);
  ShuffleBufferOrder(in, 1, rng, &out);
  EXPECT_EQ(out, in);
}

TEST(Shuffle, FirstOutputWithinInitialFillAndUniform) {
  const std::vector<int64_t> in = Range(0, 8);
  std::map<int64_t, int> counts;
  std::vector<int64_t> out;
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    RandomGenerator rng(seed);
    ShuffleBufferOrder(in, 4, rng, &out);
    ASSERT_LT(out[0], 4);
    counts[out[0]]++;
    std::vector<int64_t> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, in);
    // Element k can appear at the earliest at position k - (fill - 1).
    for (size_t p = 0; p < out.size(); ++p) ASSERT_LE(out[p], static_cast<int64_t>(p) + 3);
  }
  for (int64_t k = 0; k < 4; ++k) {
    EXPECT_GT(counts[k], 850) << k;
    EXPECT_LT(counts[k], 1150) << k;
  }
}

TEST(Sequencer, ShuffledEpochsArePermutationsAndNeverMix) {
  for (int b : {4, 5, 7}) {
    auto o = Opts(97, 3, 1, b);
    o.random_shuffle = true;
    o.initial_fill = 10;
    o.seed = 42;
    SampleSequencer seq(o);
    std::vector<int64_t> stream;
    for (int i = 0; i < 100; ++i) seq.NextBatch(&stream);
    size_t pos = 0;
    for (int e = 0; e < 5; ++e) {
      const ShardRange r = ShardBounds(97, (1 + e) % 3, 3);
      std::vector<int64_t> epoch(stream.begin() + static_cast<std::ptrdiff_t>(pos),
                                 stream.begin() + static_cast<std::ptrdiff_t>(pos + static_cast<size_t>(r.size())));
      EXPECT_LT(epoch[0], r.begin + 10);  // the first output is one of the first initial_fill samples
      std::sort(epoch.begin(), epoch.end());
      EXPECT_EQ(epoch, Range(r.begin, r.end)) << "epoch " << e;
      pos += static_cast<size_t>(r.size());
    }
  }
}

TEST(Sequencer, InitialFillOneIsSequential) {
  auto o = Opts(13, 1, 0, 4);
  o.random_shuffle = true;
  o.initial_fill = 1;
  SampleSequencer seq(o);
  auto got = Take(seq, 3);
  EXPECT_EQ(got, Range(0, 12));
}

TEST(Sequencer, SameSeedSameOrderOtherSeedOtherOrder) {
  auto o = Opts(200, 1, 0, 8);
  o.random_shuffle = true;
  o.initial_fill = 64;
  o.seed = 5;
  SampleSequencer a(o), b(o);
  const auto ta = Take(a, 60);
  EXPECT_EQ(ta, Take(b, 60));
  o.seed = 6;
  SampleSequencer c(o);
  EXPECT_NE(ta, Take(c, 60));
  // Consecutive epochs are shuffled differently.
  SampleSequencer d(o);
  const auto e0 = Take(d, 25), e1 = Take(d, 25);
  EXPECT_NE(e0, e1);
}

TEST(Sequencer, ShuffleAfterEpochIsOnePermutationSplitAcrossShards) {
  const int64_t n = 50;
  const int s = 3;
  std::vector<std::vector<int64_t>> per_shard(s);
  for (int id = 0; id < s; ++id) {
    auto o = Opts(n, s, id, 1);
    o.shuffle_after_epoch = true;
    o.stick_to_shard = true;
    SampleSequencer seq(o);
    const ShardRange r = ShardBounds(n, id, s);
    per_shard[static_cast<size_t>(id)] = Take(seq, static_cast<int>(r.size() * 2));  // two epochs
  }
  for (int e = 0; e < 2; ++e) {
    std::vector<int64_t> all;
    for (int id = 0; id < s; ++id) {
      const ShardRange r = ShardBounds(n, id, s);
      const auto& v = per_shard[static_cast<size_t>(id)];
      all.insert(all.end(), v.begin() + e * r.size(), v.begin() + (e + 1) * r.size());
    }
    std::vector<int64_t> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, Range(0, n)) << "epoch " << e;
    EXPECT_NE(all, Range(0, n));
  }
  const ShardRange r0 = ShardBounds(n, 0, s);
  EXPECT_NE(std::vector<int64_t>(per_shard[0].begin(), per_shard[0].begin() + r0.size()),
            std::vector<int64_t>(per_shard[0].begin() + r0.size(), per_shard[0].end()));
}

TEST(Sequencer, RestoreMidEpochReproducesTheRest) {
  struct Case { bool shuffle, pad, stick, sae; int b; };
  for (const Case c : {Case{false, false, false, false, 4}, Case{true, false, false, false, 5},
                       Case{true, true, false, false, 4}, Case{true, true, true, false, 3},
                       Case{false, true, false, true, 6}}) {
    auto o = Opts(97, 3, 2, c.b);
    o.random_shuffle = c.shuffle;
    o.initial_fill = 16;
    o.pad_last_batch = c.pad;
    o.stick_to_shard = c.stick || c.sae;
    o.shuffle_after_epoch = c.sae;
    o.seed = 99;
    for (int k : {0, 1, 7, 8, 15, 23}) {
      SampleSequencer a(o);
      Take(a, k);
      const std::string state = a.Serialize();
      const auto rest = Take(a, 40);
      auto o2 = o;
      o2.batch_size = c.b;
      SampleSequencer b(o2);
      Take(b, 3);  // somewhere else entirely
      b.Restore(state);
      EXPECT_EQ(Take(b, 40), rest) << "k=" << k << " state=" << state;
    }
  }
}

TEST(Sequencer, RestoreRejectsOtherConfigurationsAndGarbage) {
  auto o = Opts(97, 3, 2, 4);
  o.random_shuffle = true;
  o.seed = 1;
  SampleSequencer a(o);
  Take(a, 3);
  const std::string state = a.Serialize();
  EXPECT_LT(state.size(), 200u);
  for (auto change : {+[](SequencerOptions& x) { x.num_samples = 98; }, +[](SequencerOptions& x) { x.shard_id = 1; },
                      +[](SequencerOptions& x) { x.seed = 2; }, +[](SequencerOptions& x) { x.pad_last_batch = true; },
                      +[](SequencerOptions& x) { x.random_shuffle = false; }}) {
    auto o2 = o;
    change(o2);
    SampleSequencer b(o2);
    EXPECT_THROW(b.Restore(state), Error);
  }
  SampleSequencer b(o);
  EXPECT_THROW(b.Restore(""), Error);
  EXPECT_THROW(b.Restore("garbage"), Error);
  EXPECT_THROW(b.Restore("sluice-reader-state-v1 n=97"), Error);
  std::string bad = state;
  bad.replace(bad.find("pos="), std::string::npos, "pos=100000");
  EXPECT_THROW(b.Restore(bad), Error);
  EXPECT_NO_THROW(b.Restore(state));
}

}  // namespace
}  // namespace sluice
