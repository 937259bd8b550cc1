// A fixed set of worker threads that run one parallel loop at a time.
#pragma once
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice {

// Parses a CPU list "0,2,5" as used by SLUICE_AFFINITY_MASK. Throws sluice::Error naming a bad id.
std::vector<int> ParseCpuList(const std::string& text, const std::string& what);

// Computes the CPU each of `num_threads` threads is pinned to: thread i takes the i-th id of the
// mask (SLUICE_AFFINITY_MASK, falling back to DALI_AFFINITY_MASK) and threads beyond the mask's
// length take the process's allowed CPUs round-robin. Ids outside the allowed set are an error.
std::vector<int> ComputeAffinity(int num_threads);

class ThreadPool {
 public:
  // set_affinity pins worker i to ComputeAffinity(num_threads)[i].
  ThreadPool(int num_threads, bool set_affinity);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(threads_.size()); }
  const std::vector<int>& affinity() const { return cpus_; }

  // Runs fn(index, thread_id) for every index in [0, n) and returns when all are done. Indices are
  // handed out dynamically. If any call throws, the remaining indices are skipped and the
  // exception of the lowest failing index is rethrown here. Loops run one at a time: a second
  // caller (the executor's device stage while its cpu stage runs a loop) waits for the first.
  void ParallelFor(int n, const std::function<void(int, int)>& fn);

 private:
  void WorkerMain(int id);

  std::vector<std::thread> threads_;
  std::vector<int> cpus_;
  std::mutex loop_mu_;  // held by the caller for a whole loop
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  // Guarded by mu_.
  uint64_t generation_ = 0;
  int active_ = 0;
  bool stop_ = false;
  const std::function<void(int, int)>* fn_ = nullptr;
  int n_ = 0;
  int failed_index_ = -1;
  std::exception_ptr error_;
  // Lock-free work counter for the current loop.
  std::atomic<int> next_{0};
  std::atomic<bool> cancelled_{false};
};

}  // namespace sluice
