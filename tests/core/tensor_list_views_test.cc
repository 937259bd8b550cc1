// Shared memory between batches (buffer.h, tensor_list.h): a view outlives the batch it views, the
// viewed batch writes its next batch into fresh memory while a view still reads its block and
// reuses its block once the view is gone, views reserve nothing, and the hand-over between a
// thread dropping a view and one resizing the parent is ordered (run under TSan).
#include <gtest/gtest.h>
#include <sluice/error.h>
#include <sluice/memory_config.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/buffer.h"
#include "core/tensor_list.h"

namespace sluice {
namespace {

MemoryConfig Mem() { return MemoryConfig{}; }

// A per-sample (or contiguous) uint8 list of `n` samples of `bytes`, sample i filled with base + i.
std::unique_ptr<TensorList> Filled(int n, int64_t bytes, uint8_t base, bool contiguous = false) {
  auto tl = std::make_unique<TensorList>();
  tl->Resize(std::vector<TensorShape>(static_cast<size_t>(n), TensorShape{bytes}), DType::kUInt8, Mem(), contiguous);
  for (int i = 0; i < n; ++i) std::memset(tl->raw_mutable_sample(i), base + i, static_cast<size_t>(bytes));
  return tl;
}

bool All(const TensorList& tl, int i, uint8_t v) {
  const auto* p = tl.sample<uint8_t>(i);
  for (size_t k = 0; k < tl.sample_bytes(i); ++k)
    if (p[k] != v) return false;
  return true;
}

TEST(BufferViews, AViewKeepsTheBlockAndReservesNothing) {
  Buffer owner;
  owner.Resize(100, Mem());
  std::memset(owner.data(), 7, 100);
  Buffer view;
  view.ShareFrom(owner, 10, 50);
  EXPECT_TRUE(view.is_view());
  EXPECT_EQ(view.size(), 50u);
  EXPECT_EQ(view.capacity(), 0u);
  EXPECT_EQ(view.data(), static_cast<char*>(owner.data()) + 10);
  EXPECT_EQ(owner.block_use_count(), 2);
  owner.Free();  // the view still holds the block (ASan: no use after free)
  EXPECT_EQ(static_cast<const uint8_t*>(view.data())[49], 7);
  EXPECT_THROW(view.ShareFrom(view, 40, 20), Error);  // past its end
  Buffer device(StorageKind::kDevice);
  EXPECT_THROW(device.ShareFrom(view, 0, 1), Error);  // another storage kind
}

TEST(BufferViews, AnOwnerWritesIntoFreshMemoryWhileViewedAndReusesItsBlockAfter) {
  Buffer owner;
  owner.Resize(1000, Mem());
  void* first = owner.data();
  {
    Buffer view;
    view.ShareFrom(owner, 0, 1000);
    EXPECT_TRUE(owner.Resize(1000, Mem()));  // same size, but viewed: a fresh block
    EXPECT_NE(owner.data(), first);
    EXPECT_EQ(view.data(), first);
    EXPECT_EQ(owner.block_use_count(), 1);
  }
  void* second = owner.data();
  EXPECT_FALSE(owner.Resize(900, Mem()));  // nobody views it: kept
  EXPECT_EQ(owner.data(), second);
  // A view resized becomes an owner of fresh memory.
  Buffer view;
  view.ShareFrom(owner, 0, 10);
  EXPECT_TRUE(view.Resize(10, Mem()));
  EXPECT_FALSE(view.is_view());
  EXPECT_NE(view.data(), owner.data());
  EXPECT_EQ(owner.block_use_count(), 1);
}

TEST(TensorListViews, ASampleViewOutlivesItsParentBatch) {
  auto parent = Filled(3, 64, 10);
  TensorList child;
  child.ResizeViews({TensorShape{64}, TensorShape{16}}, DType::kUInt8);
  child.ShareSample(0, *parent, 2);
  child.ShareSample(1, *parent, 0, 48);  // the last 16 bytes of sample 0
  EXPECT_TRUE(child.is_view(0));
  EXPECT_EQ(child.raw_sample(0), parent->raw_sample(2));
  parent.reset();
  EXPECT_TRUE(All(child, 0, 12));
  EXPECT_TRUE(All(child, 1, 10));
  EXPECT_EQ(child.used_bytes(), 80u);
  EXPECT_EQ(child.reserved_bytes(), 0u);
  EXPECT_EQ(child.max_sample_reserved_bytes(), 0u);
}

TEST(TensorListViews, AViewedParentReusedForTheNextBatchLeavesTheViewAlone) {
  for (bool contiguous : {false, true}) {
    auto parent = Filled(4, 256, 1, contiguous);
    TensorList merged;
    merged.ResizeViews(std::vector<TensorShape>(4, TensorShape{256}), DType::kUInt8);
    for (int i = 0; i < 4; ++i) merged.ShareSample(i, *parent, 3 - i);
    // The parent's slot comes round again: 20 more batches written into it.
    for (int b = 0; b < 20; ++b) {
      parent->Resize(std::vector<TensorShape>(4, TensorShape{256}), DType::kUInt8, Mem(), contiguous);
      for (int i = 0; i < 4; ++i) std::memset(parent->raw_mutable_sample(i), 100 + b, 256);
    }
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(All(merged, i, static_cast<uint8_t>(4 - i))) << contiguous << " " << i;
    // Once the views are dropped the parent's memory is its own again: no more reallocation.
    merged.DropViews();
    EXPECT_EQ(merged.num_samples(), 0);
    parent->Resize(std::vector<TensorShape>(4, TensorShape{256}), DType::kUInt8, Mem(), contiguous);
    const void* p = parent->raw_sample(0);
    parent->Resize(std::vector<TensorShape>(4, TensorShape{256}), DType::kUInt8, Mem(), contiguous);
    EXPECT_EQ(parent->raw_sample(0), p);
  }
}

TEST(TensorListViews, ShareBatchKeepsContiguityAndReinterprets) {
  auto parent = Filled(3, 8, 5, /*contiguous=*/true);
  TensorList view;
  view.ShareBatch(*parent, std::vector<TensorShape>(3, TensorShape{2}), DType::kInt32);
  EXPECT_TRUE(view.is_contiguous());
  EXPECT_TRUE(view.has_views());
  EXPECT_EQ(view.dtype(), DType::kInt32);
  EXPECT_EQ(view.raw_sample(2), parent->raw_sample(2));
  EXPECT_EQ(view.reserved_bytes(), 0u);
  parent.reset();
  EXPECT_TRUE(All(view, 1, 6));
  // A second-level view (a view of a view) holds the same block.
  TensorList again;
  again.ShareBatch(view, std::vector<TensorShape>(3, TensorShape{8}), DType::kUInt8);
  view.Resize({TensorShape{1}}, DType::kUInt8, Mem());  // the first view becomes an owner again
  EXPECT_FALSE(view.has_views());
  EXPECT_TRUE(All(again, 2, 7));
  // Per-sample parents give per-sample views.
  auto per_sample = Filled(2, 4, 0);
  TensorList v2;
  v2.ShareBatch(*per_sample, {TensorShape{2, 2}, TensorShape{4, 1}}, DType::kUInt8);
  EXPECT_FALSE(v2.is_contiguous());
  EXPECT_EQ(v2.shape(1), (TensorShape{4, 1}));
  EXPECT_EQ(v2.source(1).ToString(), per_sample->source(1).ToString());
}

TEST(TensorListViews, BadViewsAreRejected) {
  auto parent = Filled(2, 16, 0);
  TensorList out;
  out.ResizeViews({TensorShape{8}}, DType::kUInt8);
  EXPECT_THROW(out.ShareSample(0, *parent, 2), Error);      // no sample 2
  EXPECT_THROW(out.ShareSample(0, *parent, 0, 9), Error);   // 9 + 8 > 16
  EXPECT_NO_THROW(out.ShareSample(0, *parent, 0, 8));
  TensorList contiguous;
  contiguous.Resize({TensorShape{8}}, DType::kUInt8, Mem(), true);
  EXPECT_THROW(contiguous.ShareSample(0, *parent, 0), Error);
  TensorList device(StorageKind::kDevice);
  device.ResizeViews({TensorShape{8}}, DType::kUInt8);
  EXPECT_THROW(device.ShareSample(0, *parent, 0), Error);
  EXPECT_THROW(out.ShareBatch(*parent, {TensorShape{16}}, DType::kUInt8), Error);  // 1 shape for 2 samples
  EXPECT_THROW(out.ShareBatch(*parent, {TensorShape{16}, TensorShape{15}}, DType::kUInt8), Error);  // bytes differ
  try {
    out.ShareSample(0, *parent, 1, 12);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot view bytes from 12 of sample 1"), std::string::npos) << e.what();
  }
}

// Pass-through samples (flip's unflipped ones): ResizeMixed gives memory only to the samples that
// are written, taking the list's own blocks for them wherever they sat last batch, keeps the
// blocks no sample needs for later, and allocates nothing while the views move around.
TEST(TensorListViews, ResizeMixedMovesOwnBlocksToTheSamplesThatNeedMemory) {
  auto parent = Filled(4, 64, 10);
  TensorList out;
  const std::vector<TensorShape> shapes(4, TensorShape{64});
  out.Resize(shapes, DType::kUInt8, Mem());
  std::vector<const void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(out.raw_sample(i));
  auto own_block = [&](int i) { return std::find(blocks.begin(), blocks.end(), out.raw_sample(i)) != blocks.end(); };
  for (const std::vector<uint8_t>& views : {std::vector<uint8_t>{1, 0, 1, 0}, std::vector<uint8_t>{0, 1, 0, 1},
                                            std::vector<uint8_t>{1, 1, 1, 0}, std::vector<uint8_t>{0, 0, 0, 0}}) {
    out.ResizeMixed(shapes, DType::kUInt8, Mem(), views);
    ASSERT_EQ(out.num_samples(), 4);
    EXPECT_EQ(out.reserved_bytes(), 4u * out.max_sample_reserved_bytes()) << "a block was dropped";
    for (int i = 0; i < 4; ++i) {
      if (views[static_cast<size_t>(i)]) {
        out.ShareSample(i, *parent, i);
        EXPECT_TRUE(out.is_view(i));
        EXPECT_TRUE(All(out, i, static_cast<uint8_t>(10 + i)));
      } else {
        EXPECT_FALSE(out.is_view(i));
        EXPECT_TRUE(own_block(i)) << "sample " << i << " got fresh memory";
        std::memset(out.raw_mutable_sample(i), 99, 64);
      }
    }
  }
  // Blocks a view elsewhere still reads are left to it: the samples write into fresh memory.
  TensorList holder;
  holder.ResizeViews(shapes, DType::kUInt8);
  for (int i = 0; i < 4; ++i) holder.ShareSample(i, out, i);
  out.ResizeMixed(shapes, DType::kUInt8, Mem(), {0, 0, 0, 0});
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(own_block(i)) << "sample " << i << " writes into a block a view reads";
    std::memset(out.raw_mutable_sample(i), 5, 64);
    EXPECT_TRUE(All(holder, i, 99));
  }
  EXPECT_THROW(out.ResizeMixed(shapes, DType::kUInt8, Mem(), {0, 1}), Error);  // one flag per sample
}

// A consumer thread reads a view and drops it while the producer resizes and rewrites the parent:
// the producer either writes into a fresh block (the view is alive) or reuses its own after the
// drop, whose release/acquire pair orders the consumer's reads first. TSan checks the ordering.
TEST(TensorListViews, DroppingAViewOnAnotherThreadOrdersItsReadsBeforeTheNextWrite) {
  TensorList parent;
  const std::vector<TensorShape> shapes(2, TensorShape{4096});
  for (int round = 0; round < 200; ++round) {
    parent.Resize(shapes, DType::kUInt8, Mem());
    for (int i = 0; i < 2; ++i) std::memset(parent.raw_mutable_sample(i), round & 0xff, 4096);
    auto view = std::make_unique<TensorList>();
    view->ResizeViews(shapes, DType::kUInt8);
    for (int i = 0; i < 2; ++i) view->ShareSample(i, parent, 1 - i);
    bool ok = false;
    std::thread reader([&ok, round, v = std::move(view)]() mutable {
      ok = All(*v, 0, static_cast<uint8_t>(round & 0xff)) && All(*v, 1, static_cast<uint8_t>(round & 0xff));
      v.reset();
    });
    parent.Resize(shapes, DType::kUInt8, Mem());
    for (int i = 0; i < 2; ++i) std::memset(parent.raw_mutable_sample(i), 0xee, 4096);
    reader.join();
    ASSERT_TRUE(ok) << round;
  }
}

}  // namespace
}  // namespace sluice
