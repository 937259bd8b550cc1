// Read-only records the pipeline reports: executor statistics and reader metadata.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/pipeline.h>

#include "bindings.h"

namespace sluice::python {

void BindStatistics(nb::module_& m) {
  nb::class_<OperatorStatistics>(m, "OperatorStatistics")
      .def_ro("name", &OperatorStatistics::name)
      .def_ro("op", &OperatorStatistics::op)
      .def_ro("device", &OperatorStatistics::device)
      .def_ro("real_memory_size", &OperatorStatistics::real_memory_size)
      .def_ro("max_real_memory_size", &OperatorStatistics::max_real_memory_size)
      .def_ro("reserved_memory_size", &OperatorStatistics::reserved_memory_size)
      .def_ro("max_reserved_memory_size", &OperatorStatistics::max_reserved_memory_size)
      .def_ro("memory_is_fallback", &OperatorStatistics::memory_is_fallback)
      .def_ro("replaced_samples", &OperatorStatistics::replaced_samples)
      .def_ro("batches", &OperatorStatistics::batches)
      .def_ro("total_time_ms", &OperatorStatistics::total_time_ms)
      .def_ro("last_batch_ms", &OperatorStatistics::last_batch_ms)
      .def_ro("counters", &OperatorStatistics::counters)
      .def_prop_ro("mean_batch_ms", &OperatorStatistics::mean_batch_ms);

  nb::class_<SampleErrorRecord>(m, "SampleError",
                                "A row replaced after an error (on_error=\"replace\"): the operator that failed on it, "
                                "where the sample came from, and the row that took its place in every output.")
      .def_ro("op", &SampleErrorRecord::op)
      .def_ro("iteration", &SampleErrorRecord::iteration)
      .def_ro("sample", &SampleErrorRecord::sample)
      .def_ro("source", &SampleErrorRecord::source)
      .def_ro("path", &SampleErrorRecord::path)
      .def_ro("member", &SampleErrorRecord::member)
      .def_ro("offset", &SampleErrorRecord::offset)
      .def_ro("message", &SampleErrorRecord::error)
      .def_ro("replaced_by", &SampleErrorRecord::replaced_by)
      .def("__repr__", [](const SampleErrorRecord& r) {
        return "SampleError(op='" + r.op + "', iteration=" + std::to_string(r.iteration) + ", sample=" +
               std::to_string(r.sample) + ", replaced_by=" + std::to_string(r.replaced_by) + ", source='" + r.source +
               "', message='" + r.error + "')";
      });

  nb::class_<AutotuneChange>(m, "AutotuneChange")
      .def_ro("batch", &AutotuneChange::batch)
      .def_ro("threads", &AutotuneChange::threads)
      .def_ro("depth", &AutotuneChange::depth)
      .def_ro("reason", &AutotuneChange::reason);

  nb::class_<AutotuneTrial>(m, "AutotuneTrial")
      .def_ro("threads", &AutotuneTrial::threads)
      .def_ro("batches_per_s", &AutotuneTrial::batches_per_s)
      .def_ro("wait_fraction", &AutotuneTrial::wait_fraction)
      .def_ro("kept", &AutotuneTrial::kept);

  nb::class_<AutotuneStatistics>(m, "AutotuneStatistics")
      .def_ro("enabled", &AutotuneStatistics::enabled)
      .def_ro("auto_threads", &AutotuneStatistics::auto_threads)
      .def_ro("auto_queue_depth", &AutotuneStatistics::auto_queue_depth)
      .def_ro("memory_budget", &AutotuneStatistics::memory_budget)
      .def_ro("threads", &AutotuneStatistics::threads)
      .def_ro("max_threads", &AutotuneStatistics::max_threads)
      .def_ro("depth", &AutotuneStatistics::depth)
      .def_ro("max_depth", &AutotuneStatistics::max_depth)
      .def_ro("window_batches", &AutotuneStatistics::window_batches)
      .def_ro("stage_ms", &AutotuneStatistics::stage_ms)
      .def_ro("stage_stddev_ms", &AutotuneStatistics::stage_stddev_ms)
      .def_ro("period_ms", &AutotuneStatistics::period_ms)
      .def_ro("wait_ms", &AutotuneStatistics::wait_ms)
      .def_ro("slot_bytes", &AutotuneStatistics::slot_bytes)
      .def_ro("output_bytes", &AutotuneStatistics::output_bytes)
      .def_ro("needed_bytes", &AutotuneStatistics::needed_bytes)
      .def_ro("changes", &AutotuneStatistics::changes)
      .def_ro("default_threads", &AutotuneStatistics::default_threads)
      .def_ro("search_phase", &AutotuneStatistics::search_phase)
      .def_ro("searches", &AutotuneStatistics::searches)
      .def_ro("best_threads", &AutotuneStatistics::best_threads)
      .def_ro("best_batches_per_s", &AutotuneStatistics::best_batches_per_s)
      .def_ro("trials", &AutotuneStatistics::trials);

  nb::class_<ExecutorStatistics>(m, "ExecutorStatistics")
      .def_ro("operators", &ExecutorStatistics::operators)
      .def_ro("mean_queue_occupancy", &ExecutorStatistics::mean_queue_occupancy)
      .def_ro("max_queue_occupancy", &ExecutorStatistics::max_queue_occupancy)
      .def_ro("queue_capacity", &ExecutorStatistics::queue_capacity)
      .def_ro("cpu_queue_capacity", &ExecutorStatistics::cpu_queue_capacity)
      .def_ro("cpu_stage_ms", &ExecutorStatistics::cpu_stage_ms)
      .def_ro("device_stage_ms", &ExecutorStatistics::device_stage_ms)
      .def_ro("batches_produced", &ExecutorStatistics::batches_produced)
      .def_ro("consumer_wait_ms", &ExecutorStatistics::consumer_wait_ms)
      .def_ro("autotune", &ExecutorStatistics::autotune);

  nb::class_<ReaderMeta>(m, "ReaderMeta")
      .def_ro("epoch_size", &ReaderMeta::epoch_size)
      .def_ro("epoch_size_padded", &ReaderMeta::epoch_size_padded)
      .def_ro("number_of_shards", &ReaderMeta::number_of_shards)
      .def_ro("shard_id", &ReaderMeta::shard_id)
      .def_ro("pad_last_batch", &ReaderMeta::pad_last_batch)
      .def_ro("stick_to_shard", &ReaderMeta::stick_to_shard);
}

}  // namespace sluice::python
