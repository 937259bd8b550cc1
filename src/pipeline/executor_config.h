// The executor's configuration: the pipeline's options, embedded as the user gave them, plus what
// the pipeline resolved from them.
#pragma once
#include <cstdint>

#include <sluice/memory_config.h>
#include <sluice/pipeline.h>

namespace sluice {

struct ExecutorConfig {
  // Valid options (Pipeline's constructor calls options.Validate(); the executor trusts them).
  // options.seed and options.checkpoint are the pipeline's business: the executor uses `seed`.
  // options.memory unset: MemoryConfig's defaults.
  PipelineOptions options;
  // The pipeline's seed: options.seed, a random one for -1, or a checkpoint's.
  uint64_t seed = 0;
  // Nodes from this index on run in the device stage. -1: from the first mixed/gpu node, or no
  // device stage for CPU-only graphs. (Tests split CPU-only graphs with it.)
  int device_stage_from = -1;
  // The thread pool's bound (ThreadPool's max_threads): 0 for options.num_threads; with
  // options.auto_threads the executor sets it to 2 * auto_start_threads unless it is set (tests).
  int max_threads = 0;
  // options.auto_threads: the worker count the search starts from (and options.num_threads); 0:
  // the available CPUs (the fixed default). Tests set it.
  int auto_start_threads = 0;

  const MemoryConfig& memory() const { return *options.memory; }  // set by the executor if unset
};

}  // namespace sluice
