#include "core/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <sluice/error.h>

namespace sluice {

std::vector<int> ParseCpuList(const std::string& text, const std::string& what) {
  std::vector<int> cpus;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string tok = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    // trim
    size_t b = tok.find_first_not_of(" \t"), e = tok.find_last_not_of(" \t");
    tok = b == std::string::npos ? "" : tok.substr(b, e - b + 1);
    if (!tok.empty()) {
      char* end = nullptr;
      long v = std::strtol(tok.c_str(), &end, 10);
      if (*end != '\0' || v < 0 || v >= CPU_SETSIZE)
        throw Error(what + ": invalid CPU id '" + tok + "'");
      cpus.push_back(static_cast<int>(v));
    } else if (comma != std::string::npos) {
      throw Error(what + ": empty CPU id in '" + text + "'");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return cpus;
}

namespace {

// The cgroup's CPU quota in CPUs (rounded up), or 0 when none is set or none can be read.
int CgroupCpuQuota() {
  double quota = -1, period = -1;
  std::ifstream v2("/sys/fs/cgroup/cpu.max");  // "max 100000" or "200000 100000"
  std::string q;
  if (v2 >> q >> period) {
    if (q == "max") return 0;
    quota = std::strtod(q.c_str(), nullptr);
  } else {
    std::ifstream vq("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), vp("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
    if (!(vq >> quota) || !(vp >> period)) return 0;
  }
  if (quota <= 0 || period <= 0) return 0;
  return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

}  // namespace

int AvailableCpus() {
  int n = 0;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) n = CPU_COUNT(&allowed);
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int quota = CgroupCpuQuota();
  return std::max(1, quota > 0 ? std::min(n, quota) : n);
}

std::vector<int> ComputeAffinity(int num_threads) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> allowed_ids;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) allowed_ids.push_back(c);
  }
  if (allowed_ids.empty()) allowed_ids.push_back(0);

  std::vector<int> mask;
  for (const char* var : {"SLUICE_AFFINITY_MASK", "DALI_AFFINITY_MASK"}) {
    if (const char* v = std::getenv(var)) {
      mask = ParseCpuList(v, var);
      for (int id : mask) {
        if (!CPU_ISSET(id, &allowed))
          throw Error(std::string(var) + ": CPU id " + std::to_string(id) +
                      " is not in the set of CPUs this process may run on");
      }
      break;
    }
  }
  std::vector<int> out(static_cast<size_t>(num_threads));
  size_t rr = 0;
  for (int i = 0; i < num_threads; ++i) {
    if (static_cast<size_t>(i) < mask.size()) {
      out[static_cast<size_t>(i)] = mask[static_cast<size_t>(i)];
    } else {
      out[static_cast<size_t>(i)] = allowed_ids[rr++ % allowed_ids.size()];
    }
  }
  return out;
}

ThreadPool::ThreadPool(int num_threads, bool set_affinity, int max_threads) {
  if (num_threads < 1) throw Error("num_threads must be at least 1, got " + std::to_string(num_threads));
  if (max_threads == 0) max_threads = num_threads;
  if (max_threads < num_threads)
    throw Error("max_threads (" + std::to_string(max_threads) + ") must be at least num_threads (" +
                std::to_string(num_threads) + ")");
  if (set_affinity) cpus_ = ComputeAffinity(max_threads);
  threads_.resize(static_cast<size_t>(max_threads));
  wake_cv_ = std::vector<std::condition_variable>(static_cast<size_t>(max_threads));
  workers_ = num_threads;
  for (int i = 0; i < num_threads; ++i) StartWorker(i);
}

ThreadPool::ThreadPool(InlineTag, int num_threads, int thread_id)
    : inline_id_(thread_id), inline_threads_(num_threads) {
  if (num_threads < 1 || thread_id < 0 || thread_id >= num_threads)
    throw Error("an inline pool needs 0 <= thread_id < num_threads, got thread " + std::to_string(thread_id) + " of " +
                std::to_string(num_threads));
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  for (auto& cv : wake_cv_) cv.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void ThreadPool::StartWorker(int id) {
  uint64_t seen;
  {
    std::lock_guard lk(mu_);
    seen = generation_;  // the new worker waits for the next loop
  }
  std::thread& t = threads_[static_cast<size_t>(id)];
  t = std::thread([this, id, seen] { WorkerMain(id, seen); });
  if (!cpus_.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus_[static_cast<size_t>(id)], &set);
    pthread_setaffinity_np(t.native_handle(), sizeof(set), &set);
  }
}

int ThreadPool::active_threads() const {
  if (inline_id_ >= 0) return 1;
  std::lock_guard lk(mu_);
  return workers_;
}

void ThreadPool::Resize(int n) {
  if (inline_id_ >= 0) throw Error("an inline thread pool has no workers to resize");
  if (n < 1 || n > num_threads())
    throw Error("a thread pool of at most " + std::to_string(num_threads()) + " threads cannot run " +
                std::to_string(n));
  std::lock_guard loop(loop_mu_);  // no loop runs while the workers change
  int old;
  {
    std::lock_guard lk(mu_);
    old = workers_;
    workers_ = n;
  }
  if (n < old) {
    for (int i = n; i < old; ++i) wake_cv_[static_cast<size_t>(i)].notify_all();  // they see it and return
    for (int i = n; i < old; ++i) threads_[static_cast<size_t>(i)].join();
  }
  for (int i = old; i < n; ++i) StartWorker(i);
}

void ThreadPool::ParallelFor(int n, const std::function<void(int, int)>& fn) {
  if (n <= 0) return;
  if (inline_id_ >= 0) {  // the first index that throws ends the loop, as in the workers
    for (int i = 0; i < n; ++i) fn(i, inline_id_);
    return;
  }
  std::lock_guard loop(loop_mu_);
  std::unique_lock lk(mu_);
  fn_ = &fn;
  n_ = n;
  failed_index_ = -1;
  error_ = nullptr;
  next_.store(0, std::memory_order_relaxed);
  cancelled_.store(false, std::memory_order_relaxed);
  active_ = workers_;
  ++generation_;
  // Worker 0 wakes workers 1 and 2, worker 1 wakes 3 and 4, and so on (WorkerMain): each worker
  // is woken by one that goes on running, so the scheduler places it on an idle CPU, and the last
  // of n workers starts after about log2(n) hand-overs. Woken all at once by this thread, which
  // then sleeps, workers were often queued on one CPU while another stood idle (about 0.2 of 2
  // CPUs idle on a 2-vCPU VM).
  wake_cv_[0].notify_one();
  done_cv_.wait(lk, [&] { return active_ == 0; });
  fn_ = nullptr;
  if (error_) {
    auto e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void ThreadPool::WorkerMain(int id, uint64_t seen) {
  std::unique_lock lk(mu_);
  for (;;) {
    wake_cv_[static_cast<size_t>(id)].wait(lk, [&] { return stop_ || id >= workers_ || generation_ != seen; });
    if (stop_ || id >= workers_) return;
    seen = generation_;
    const int wake_end = std::min(workers_, 2 * id + 3);  // wakes ids [2 id + 1, wake_end)
    const auto* fn = fn_;
    const int n = n_;
    // Claim indices in chunks that keep the shared counter off the hot path while many remain
    // (a quarter of each worker's share of what is left) and shrink to one index at the end, so
    // that uneven samples leave no worker idle for more than about one index's time.
    const int split = 4 * workers_;
    lk.unlock();
    for (int w = 2 * id + 1; w < wake_end; ++w) wake_cv_[static_cast<size_t>(w)].notify_one();
    for (;;) {
      if (cancelled_.load(std::memory_order_relaxed)) break;
      int begin = next_.load(std::memory_order_relaxed), chunk = 1;
      do {
        if (begin >= n) break;
        chunk = std::max(1, (n - begin) / split);
      } while (!next_.compare_exchange_weak(begin, begin + chunk, std::memory_order_relaxed));
      if (begin >= n) break;
      const int end = std::min(n, begin + chunk);
      for (int i = begin; i < end; ++i) {
        try {
          (*fn)(i, id);
        } catch (...) {
          cancelled_.store(true, std::memory_order_relaxed);
          std::lock_guard g(mu_);
          if (failed_index_ < 0 || i < failed_index_) {
            failed_index_ = i;
            error_ = std::current_exception();
          }
          break;
        }
      }
    }
    lk.lock();
    if (--active_ == 0) done_cv_.notify_one();
  }
}

}  // namespace sluice
