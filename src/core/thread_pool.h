// A set of worker threads that run one parallel loop at a time. The number of workers can change
// between loops (Resize: the executor's autotuner), within a bound fixed at construction.
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

// The CPUs this process may use: its affinity mask (sched_getaffinity), lowered to the cgroup's CPU
// quota (cgroup v2 cpu.max, or v1 cfs_quota_us / cfs_period_us, rounded up) when one is set. At least 1.
int AvailableCpus();

// Computes the CPU each of `num_threads` threads is pinned to: thread i takes the i-th id of the
// mask (SLUICE_AFFINITY_MASK, falling back to DALI_AFFINITY_MASK) and threads beyond the mask's
// length take the process's allowed CPUs round-robin. Ids outside the allowed set are an error.
std::vector<int> ComputeAffinity(int num_threads);

class ThreadPool {
 public:
  // Starts `num_threads` workers. `max_threads` (0: num_threads) bounds what Resize may grow to.
  // set_affinity pins worker i to ComputeAffinity(max_threads)[i].
  ThreadPool(int num_threads, bool set_affinity, int max_threads = 0);
  // An inline pool: no workers of its own; ParallelFor runs every index on the calling thread, in
  // order, passing `thread_id` as the thread id, and num_threads() is `num_threads`. The executor
  // runs small independent operators concurrently on the workers of a pool of `num_threads`, each
  // operator's loops on the inline pool of the worker that runs it (so per-thread state an operator
  // sizes by num_threads() stays valid and no two threads share an id).
  struct InlineTag {};
  ThreadPool(InlineTag, int num_threads, int thread_id);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The bound on the thread ids a loop passes to fn: ids are in [0, num_threads()) whatever the
  // current number of workers, so per-thread state sized by it stays valid across Resize. Fixed
  // for the pool's life (max_threads).
  int num_threads() const { return inline_id_ >= 0 ? inline_threads_ : static_cast<int>(threads_.size()); }
  // How many workers run the loops now (num_threads() unless Resize lowered it).
  int active_threads() const;
  // Sets the number of workers to n in [1, num_threads()]: waits for a running loop to end, then
  // stops (joins) the workers with ids >= n or starts the missing ones. Thread-safe against
  // ParallelFor from other threads (it takes the loop lock). Throws sluice::Error for n out of range.
  void Resize(int n);
  const std::vector<int>& affinity() const { return cpus_; }

  // Runs fn(index, thread_id) for every index in [0, n) and returns when all are done. Indices are
  // handed out dynamically, in chunks that shrink towards the end of the loop (the last ones one
  // index each, so uneven samples leave no worker idle for long). If any call throws, the remaining indices are skipped and the
  // exception of the lowest failing index is rethrown here. Loops run one at a time: a second
  // caller (the executor's device stage while its cpu stage runs a loop) waits for the first.
  void ParallelFor(int n, const std::function<void(int, int)>& fn);

 private:
  void WorkerMain(int id, uint64_t seen);
  void StartWorker(int id);  // no loop running (the constructor, or Resize holding loop_mu_); mu_ not held

  int inline_id_ = -1;  // >= 0: an inline pool (InlineTag), running loops as this thread id
  int inline_threads_ = 0;
  std::vector<std::thread> threads_;  // max_threads entries; those with ids >= workers_ not joinable
  std::vector<int> cpus_;
  std::mutex loop_mu_;  // held by the caller for a whole loop
  mutable std::mutex mu_;
  std::vector<std::condition_variable> wake_cv_;  // per worker id: a new loop (or stop, or Resize)
  std::condition_variable done_cv_;
  // Guarded by mu_.
  uint64_t generation_ = 0;
  int workers_ = 0;  // workers running loops: ids [0, workers_)
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
