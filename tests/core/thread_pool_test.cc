#include <gtest/gtest.h>
#include <sched.h>
#include <sluice/error.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/env_guard.h"
#include "core/random.h"
#include "core/thread_pool.h"

namespace sluice {
namespace {

TEST(ThreadPool, RunsEveryIndexOnce) {
  ThreadPool pool(3, false);
  for (int n : {0, 1, 2, 7, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::set<int> threads;
    std::mutex mu;
    pool.ParallelFor(n, [&](int i, int t) {
      hits[static_cast<size_t>(i)]++;
      std::lock_guard lk(mu);
      threads.insert(t);
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    for (int t : threads) EXPECT_TRUE(t >= 0 && t < 3);
  }
}

// Workers wake one another along a binary tree (thread_pool.cc): every loop still reaches every
// worker, after Resize down and up too. Each index waits (up to 20 s) until as many distinct threads as
// there are workers have arrived, which a loop that woke fewer workers could not give.
TEST(ThreadPool, EveryWorkerWakesForEveryLoop) {
  ThreadPool pool(7, false);
  for (int workers : {4, 2, 3, 1, 7, 5, 6}) {
    pool.Resize(workers);
    for (int loop = 0; loop < 20; ++loop) {
      std::mutex mu;
      std::condition_variable cv;
      std::set<int> arrived;
      std::atomic<int> complete{0};
      pool.ParallelFor(workers, [&](int, int t) {
        std::unique_lock lk(mu);
        arrived.insert(t);
        cv.notify_all();
        if (cv.wait_for(lk, std::chrono::seconds(20), [&] { return static_cast<int>(arrived.size()) == workers; }))
          complete++;
      });
      ASSERT_EQ(complete.load(), workers) << workers << " workers, loop " << loop;
    }
  }
}

// An inline pool (the executor's side-by-side operators) runs every index on the caller, in order,
// as its one thread id, reports the bound it was given and stops at the first index that throws.
TEST(ThreadPool, InlinePoolRunsOnTheCallerAsItsThreadId) {
  ThreadPool pool(ThreadPool::InlineTag{}, 4, 2);
  EXPECT_EQ(pool.num_threads(), 4);
  EXPECT_EQ(pool.active_threads(), 1);
  std::vector<int> order;
  const auto caller = std::this_thread::get_id();
  pool.ParallelFor(6, [&](int i, int t) {
    EXPECT_EQ(t, 2);
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  order.clear();
  EXPECT_THROW(pool.ParallelFor(6, [&](int i, int) {
    if (i == 3) throw std::runtime_error("boom");
    order.push_back(i);
  }), std::runtime_error);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_THROW(pool.Resize(1), Error);
  EXPECT_THROW(ThreadPool(ThreadPool::InlineTag{}, 2, 2), Error);
}

TEST(ThreadPool, RethrowsTheLowestFailingIndexAndStaysUsable) {
  ThreadPool pool(2, false);
  try {
    pool.ParallelFor(100, [](int i, int) {
      if (i >= 17) throw std::runtime_error("boom " + std::to_string(i));
    });
    FAIL();
  } catch (const std::runtime_error& e) {
    // Indices are claimed in increasing order, so 17 always runs; several fail, the lowest wins.
    EXPECT_STREQ(e.what(), "boom 17");
  }
  std::atomic<int> count{0};
  pool.ParallelFor(10, [&](int, int) { count++; });
  EXPECT_EQ(count.load(), 10);
}

TEST(ThreadPool, ResizeChangesTheWorkersWithinTheBound) {
  ThreadPool pool(1, false, 4);
  EXPECT_EQ(pool.num_threads(), 4);  // the bound on thread ids
  EXPECT_EQ(pool.active_threads(), 1);
  for (int n : {4, 2, 3, 1, 4}) {
    pool.Resize(n);
    EXPECT_EQ(pool.active_threads(), n);
    std::mutex mu;
    std::set<int> ids;
    std::atomic<int> count{0};
    // Slow enough that every worker claims some indices.
    pool.ParallelFor(400, [&](int, int t) {
      count++;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      std::lock_guard lk(mu);
      ids.insert(t);
    });
    EXPECT_EQ(count.load(), 400);
    for (int t : ids) EXPECT_TRUE(t >= 0 && t < n) << t;
  }
  EXPECT_THROW(pool.Resize(0), Error);
  EXPECT_THROW(pool.Resize(5), Error);
  EXPECT_THROW(ThreadPool(3, false, 2), Error);
}

// The executor resizes from its cpu stage while its device stage may run loops: Resize waits for
// the running loop, and no index is lost or run twice. (Run under TSan by make test-tsan.)
TEST(ThreadPool, ResizesWhileAnotherThreadRunsLoops) {
  ThreadPool pool(2, false, 3);
  std::atomic<bool> done{false};
  std::atomic<int64_t> loops{0};
  std::thread user([&] {
    while (!done.load()) {
      std::vector<std::atomic<int>> hits(64);
      pool.ParallelFor(64, [&](int i, int t) {
        ASSERT_LT(t, 3);
        hits[static_cast<size_t>(i)]++;
      });
      for (auto& h : hits) ASSERT_EQ(h.load(), 1);
      loops++;
    }
  });
  for (int r = 0; r < 200; ++r) pool.Resize(1 + r % 3);
  // Loops keep running after the resizes.
  const int64_t seen = loops.load();
  while (loops.load() < seen + 5) std::this_thread::yield();
  done = true;
  user.join();
}

TEST(ThreadPool, AvailableCpusIsWithinTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_GE(AvailableCpus(), 1);
  EXPECT_LE(AvailableCpus(), CPU_COUNT(&set));
}

TEST(ThreadPool, RejectsZeroThreads) { EXPECT_THROW(ThreadPool(0, false), Error); }

TEST(Affinity, ParsesListsAndRejectsBadIds) {
  EXPECT_EQ(ParseCpuList("0,1, 3", "X"), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(ParseCpuList("", "X"), std::vector<int>{});
  try {
    ParseCpuList("0,x1", "SLUICE_AFFINITY_MASK");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'x1'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("SLUICE_AFFINITY_MASK"), std::string::npos);
  }
  EXPECT_THROW(ParseCpuList("-1", "X"), Error);
  EXPECT_THROW(ParseCpuList("0,,1", "X"), Error);
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  std::vector<int> ids;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) ids.push_back(c);
  return ids;
}

TEST(Affinity, MaskThenRoundRobinOverAllowedCpus) {
  testing::EnvGuard g;
  testing::ClearSluiceEnv(g);
  auto allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  const int last = allowed.back();
  g.Set("DALI_AFFINITY_MASK", std::to_string(last));
  auto cpus = ComputeAffinity(3);
  ASSERT_EQ(cpus.size(), 3u);
  EXPECT_EQ(cpus[0], last);
  EXPECT_EQ(cpus[1], allowed[0]);
  EXPECT_EQ(cpus[2], allowed[1 % allowed.size()]);
  // SLUICE_ wins over DALI_.
  g.Set("SLUICE_AFFINITY_MASK", std::to_string(allowed[0]));
  EXPECT_EQ(ComputeAffinity(1)[0], allowed[0]);
  // An id the process may not use is an error naming it.
  g.Set("SLUICE_AFFINITY_MASK", "1000");
  try {
    ComputeAffinity(1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1000"), std::string::npos);
  }
}

TEST(Affinity, WorkersArePinned) {
  testing::EnvGuard g;
  testing::ClearSluiceEnv(g);
  auto allowed = AllowedCpus();
  g.Set("SLUICE_AFFINITY_MASK", std::to_string(allowed.back()));
  ThreadPool pool(1, true);
  int cpu = -1;
  pool.ParallelFor(1, [&](int, int) {
    cpu_set_t set;
    CPU_ZERO(&set);
    pthread_getaffinity_np(pthread_self(), sizeof(set), &set);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) { EXPECT_EQ(cpu, -1) << "pinned to more than one CPU"; cpu = c; }
  });
  EXPECT_EQ(cpu, allowed.back());
}

TEST(Random, StreamsAreDeterministicAndIndependent) {
  RandomGenerator a(DeriveSeed(42, 3, 17)), b(DeriveSeed(42, 3, 17)), c(DeriveSeed(42, 3, 18));
  int same = 0;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a(), y = b(), z = c();
    EXPECT_EQ(x, y);
    same += x == z;
  }
  EXPECT_EQ(same, 0);
}

TEST(Random, UniformAndBernoulliHaveTheRightMoments) {
  RandomGenerator g(7);
  const int n = 200000;
  double sum = 0, ones = 0;
  int64_t int_hist[5] = {};
  for (int i = 0; i < n; ++i) {
    double u = g.Uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    ones += g.Bernoulli(0.3);
    int_hist[g.UniformInt(0, 4)]++;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_NEAR(ones / n, 0.3, 0.005);
  for (int64_t h : int_hist) EXPECT_NEAR(static_cast<double>(h) / n, 0.2, 0.005);
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) { double v = g.Normal(); s += v; s2 += v * v; }
  EXPECT_NEAR(s / n, 0.0, 0.01);
  EXPECT_NEAR(s2 / n, 1.0, 0.02);
}

}  // namespace
}  // namespace sluice
