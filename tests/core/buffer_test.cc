#include <gtest/gtest.h>
#include <sluice/error.h>
#include <sluice/memory_config.h>

#include "core/buffer.h"
#include "core/env_guard.h"
#include "core/tensor_list.h"

namespace sluice {
namespace {

MemoryConfig Cfg(double threshold, double host_growth = 1.0, double dev_growth = 1.0) {
  MemoryConfig c;
  c.host_shrink_threshold = threshold;
  c.host_growth_factor = host_growth;
  c.device_growth_factor = dev_growth;
  return c;
}

TEST(Buffer, GrowsExactlyByDefault) {
  Buffer b;
  EXPECT_TRUE(b.Resize(1000, Cfg(0.9)));
  EXPECT_EQ(b.capacity(), 1000u);
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_TRUE(b.Resize(1001, Cfg(0.9)));
  EXPECT_EQ(b.capacity(), 1001u);
}

TEST(Buffer, GrowthFactorAppliesWhenGrowing) {
  Buffer b;
  b.Resize(1000, Cfg(0.9, 2.0));
  EXPECT_EQ(b.capacity(), 1000u);  // from empty: max(1000, 0*2)
  b.Resize(1200, Cfg(0.9, 2.0));
  EXPECT_EQ(b.capacity(), 2000u);  // max(1200, 1000*2)
  b.Resize(4500, Cfg(0.9, 2.0));
  EXPECT_EQ(b.capacity(), 4500u);  // max(4500, 4000)
}

TEST(Buffer, HostShrinksBelowThresholdOnly) {
  Buffer b;
  b.Resize(1000, Cfg(0.9));
  // 900 is not below 1000*0.9: keep.
  EXPECT_FALSE(b.Resize(900, Cfg(0.9)));
  EXPECT_EQ(b.capacity(), 1000u);
  EXPECT_EQ(b.size(), 900u);
  // 899 is below: reallocate at the exact size.
  EXPECT_TRUE(b.Resize(899, Cfg(0.9)));
  EXPECT_EQ(b.capacity(), 899u);
}

TEST(Buffer, ThresholdZeroNeverShrinksAndOneAlwaysShrinks) {
  Buffer never;
  never.Resize(1000, Cfg(0.0));
  EXPECT_FALSE(never.Resize(1, Cfg(0.0)));
  EXPECT_EQ(never.capacity(), 1000u);
  EXPECT_FALSE(never.Resize(0, Cfg(0.0)));
  EXPECT_EQ(never.capacity(), 1000u);

  Buffer always;
  always.Resize(1000, Cfg(1.0));
  EXPECT_FALSE(always.Resize(1000, Cfg(1.0)));
  EXPECT_TRUE(always.Resize(999, Cfg(1.0)));
  EXPECT_EQ(always.capacity(), 999u);
}

TEST(Buffer, PinnedNeverShrinksAndUsesDeviceGrowthFactor) {
  Buffer b(StorageKind::kPinned);
  b.Resize(1000, Cfg(1.0, 1.0, 3.0));
  EXPECT_FALSE(b.Resize(10, Cfg(1.0, 1.0, 3.0)));
  EXPECT_EQ(b.capacity(), 1000u);
  b.Resize(1001, Cfg(1.0, 1.0, 3.0));
  EXPECT_EQ(b.capacity(), 3000u);
  // Without CUDA pinned memory is ordinary host memory, and says so.
#ifndef SLUICE_WITH_CUDA
  EXPECT_TRUE(b.is_fallback());
#endif
}

TEST(Buffer, DeviceAllocationWithoutCudaIsAClearError) {
#ifndef SLUICE_WITH_CUDA
  Buffer b(StorageKind::kDevice);
  try {
    b.Resize(10, MemoryConfig{});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos);
  }
#endif
}

TEST(MemoryConfig, DefaultsAndEnvironment) {
  testing::EnvGuard g;
  testing::ClearSluiceEnv(g);
  MemoryConfig d = MemoryConfig::FromEnvironment();
  EXPECT_DOUBLE_EQ(d.host_shrink_threshold, 0.9);
  EXPECT_DOUBLE_EQ(d.host_growth_factor, 1.0);
  EXPECT_DOUBLE_EQ(d.device_growth_factor, 1.0);

  g.Set("SLUICE_BUFFER_GROWTH_FACTOR", "2");
  g.Set("SLUICE_DEVICE_BUFFER_GROWTH_FACTOR", "3.5");
  g.Set("DALI_HOST_BUFFER_SHRINK_THRESHOLD", "0.25");
  MemoryConfig c = MemoryConfig::FromEnvironment();
  EXPECT_DOUBLE_EQ(c.host_growth_factor, 2.0);  // from the "both" variable
  EXPECT_DOUBLE_EQ(c.device_growth_factor, 3.5);  // the specific one wins
  EXPECT_DOUBLE_EQ(c.host_shrink_threshold, 0.25);  // DALI_ fallback

  g.Set("SLUICE_HOST_BUFFER_SHRINK_THRESHOLD", "0.5");
  EXPECT_DOUBLE_EQ(MemoryConfig::FromEnvironment().host_shrink_threshold, 0.5);  // SLUICE_ wins over DALI_
}

TEST(MemoryConfig, InvalidValuesAreClearErrors) {
  testing::EnvGuard g;
  testing::ClearSluiceEnv(g);
  struct Case { const char* var; const char* value; const char* expect; };
  for (const Case& c : {Case{"SLUICE_HOST_BUFFER_SHRINK_THRESHOLD", "abc", "not a number"},
                        Case{"SLUICE_HOST_BUFFER_SHRINK_THRESHOLD", "1.5", "out of range"},
                        Case{"SLUICE_HOST_BUFFER_SHRINK_THRESHOLD", "-0.1", "out of range"},
                        Case{"DALI_BUFFER_GROWTH_FACTOR", "0.5", "out of range"},
                        Case{"SLUICE_HOST_BUFFER_GROWTH_FACTOR", "2x", "not a number"},
                        Case{"SLUICE_DEVICE_BUFFER_GROWTH_FACTOR", "", "not a number"},
                        Case{"SLUICE_BUFFER_GROWTH_FACTOR", "-1", "out of range"}}) {
    testing::EnvGuard inner;
    inner.Set(c.var, c.value);
    try {
      MemoryConfig::FromEnvironment();
      FAIL() << c.var << "=" << c.value << " was accepted";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(c.var), std::string::npos) << msg;
      EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
    }
  }
  MemoryConfig bad;
  bad.host_shrink_threshold = 2;
  EXPECT_THROW(bad.Validate(), Error);
}

TEST(TensorList, PerSampleAndContiguousStorage) {
  MemoryConfig cfg;
  TensorList tl;
  tl.Resize({TensorShape{2, 3}, TensorShape{4, 5}}, DType::kFloat32, cfg, /*contiguous=*/false);
  EXPECT_EQ(tl.num_samples(), 2);
  EXPECT_FALSE(tl.is_dense());
  EXPECT_EQ(tl.sample_bytes(1), 4u * 5 * 4);
  EXPECT_EQ(tl.used_bytes(), (6u + 20u) * 4);
  EXPECT_EQ(tl.max_sample_used_bytes(), 80u);
  tl.mutable_sample<float>(1)[19] = 7.f;
  EXPECT_EQ(tl.sample<float>(1)[19], 7.f);

  TensorList c;
  c.Resize({TensorShape{10}, TensorShape{10}, TensorShape{10}}, DType::kUInt8, cfg, /*contiguous=*/true);
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_TRUE(c.is_dense());
  // Samples are 64-byte aligned inside the one buffer.
  auto base = reinterpret_cast<uintptr_t>(c.raw_sample(0));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c.raw_sample(1)) - base, 64u);
  EXPECT_EQ(base % 64, 0u);
  EXPECT_EQ(c.reserved_bytes(), 192u);
  EXPECT_EQ(c.max_sample_reserved_bytes(), 64u);  // the average for contiguous storage
  c.source(2) = SourceInfo{"a.jpg", "", -1};
  EXPECT_EQ(c.source(2).ToString(), "a.jpg");
}

TEST(TensorList, ReserveThenResizeDoesNotReallocate) {
  MemoryConfig cfg;
  TensorList tl;
  tl.Reserve(4, 1000, cfg, false);
  EXPECT_EQ(tl.reserved_bytes(), 4000u);
  const void* p = nullptr;
  tl.Resize(std::vector<TensorShape>(4, TensorShape{950}), DType::kUInt8, cfg);
  p = tl.raw_sample(3);
  EXPECT_EQ(tl.reserved_bytes(), 4000u);  // 950 >= 0.9 * 1000: no shrink
  tl.Resize(std::vector<TensorShape>(4, TensorShape{990}), DType::kUInt8, cfg);
  EXPECT_EQ(tl.raw_sample(3), p);
}

TEST(SourceInfo, Formats) {
  EXPECT_EQ((SourceInfo{"shard.tar", "000123.jpg", 5120}).ToString(), "shard.tar:000123.jpg @offset 5120");
}

}  // namespace
}  // namespace sluice
