// sluice::Pipeline. The GIL is released around every call that can block or compute.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/pipeline.h>

#include "bindings.h"

namespace sluice::python {
namespace {

using Release = nb::call_guard<nb::gil_scoped_release>;
using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

// Adds a call validated at the call site (validate_operator) under the pipeline's edge names: its
// instance name ("" for "<op>#<n>"), the edges of its inputs and per-sample arguments. The outputs
// are named by the pipeline. AddOperator validates it again (cheap), as for any C++ caller.
std::vector<std::string> AddOperator(Pipeline& p, const OperatorDef& validated, std::string name,
                                     std::vector<std::string> inputs, std::map<std::string, std::string> arg_inputs) {
  OperatorDef def = validated;
  def.name = std::move(name);
  def.inputs = std::move(inputs);
  def.arg_inputs = std::move(arg_inputs);
  def.outputs.clear();
  nb::gil_scoped_release release;
  return p.AddOperator(std::move(def));
}

void FeedInput(Pipeline& p, const std::string& op_name, const std::vector<HostArray>& arrays,
               const std::string& layout) {
  std::vector<Pipeline::ExternalSample> samples;
  samples.reserve(arrays.size());
  for (const HostArray& a : arrays) {
    std::optional<DType> dt = FromDLPack(a.dtype());
    if (!dt) throw nb::type_error("external_source: unsupported element type of a fed array");
    std::vector<int64_t> dims(a.ndim());
    for (size_t d = 0; d < a.ndim(); ++d) dims[d] = static_cast<int64_t>(a.shape(d));
    samples.push_back({a.data(), TensorShape(std::move(dims)), *dt});
  }
  nb::gil_scoped_release release;  // `arrays` keeps the Python objects alive during the call
  p.FeedInput(op_name, samples, layout);
}

}  // namespace

void BindPipelineOptions(nb::module_& m) {
  nb::class_<MemoryConfig>(m, "MemoryConfig", "Buffer growth/shrink policy (sluice::MemoryConfig).")
      .def(nb::init<>())
      .def_static("from_environment", &MemoryConfig::FromEnvironment)
      .def_rw("host_shrink_threshold", &MemoryConfig::host_shrink_threshold)
      .def_rw("host_growth_factor", &MemoryConfig::host_growth_factor)
      .def_rw("device_growth_factor", &MemoryConfig::device_growth_factor)
      .def("validate", &MemoryConfig::Validate)
      // The process-wide default that a Pipeline without `memory` uses (sluice.backend's functions).
      .def_static("process_default", &MemoryConfig::ProcessDefault)
      .def_static("set_default_host_shrink_threshold", &MemoryConfig::SetDefaultHostShrinkThreshold, nb::arg("threshold"))
      .def_static("set_default_host_growth_factor", &MemoryConfig::SetDefaultHostGrowthFactor, nb::arg("factor"))
      .def_static("set_default_device_growth_factor", &MemoryConfig::SetDefaultDeviceGrowthFactor, nb::arg("factor"))
      .def_static("set_default_growth_factor", &MemoryConfig::SetDefaultGrowthFactor, nb::arg("factor"))
      .def_static("reset_defaults", &MemoryConfig::ResetDefaults);

  // sluice::PipelineOptions, field for field (the one copy of the options between Python and the
  // executor): the C++ Pipeline validates them when constructed.
  nb::class_<PipelineOptions>(m, "PipelineOptions", "The options of a C++ Pipeline (sluice::PipelineOptions).")
      .def(nb::init<>())
      .def("__copy__", [](const PipelineOptions& o) { return o; })
      .def_rw("batch_size", &PipelineOptions::batch_size)
      .def_rw("num_threads", &PipelineOptions::num_threads)
      .def_rw("device_id", &PipelineOptions::device_id)
      .def_rw("seed", &PipelineOptions::seed)
      .def_rw("exec_pipelined", &PipelineOptions::exec_pipelined)
      .def_rw("exec_async", &PipelineOptions::exec_async)
      .def_rw("cpu_queue_depth", &PipelineOptions::cpu_queue_depth)
      .def_rw("gpu_queue_depth", &PipelineOptions::gpu_queue_depth)
      .def_rw("bytes_per_sample", &PipelineOptions::bytes_per_sample)
      .def_rw("set_affinity", &PipelineOptions::set_affinity)
      .def_rw("enable_memory_stats", &PipelineOptions::enable_memory_stats)
      .def_rw("enable_checkpointing", &PipelineOptions::enable_checkpointing)
      .def_rw("checkpoint", &PipelineOptions::checkpoint, "Optional[str]")
      .def_rw("memory", &PipelineOptions::memory, "Optional[MemoryConfig]; None: MemoryConfig.process_default() when the Pipeline is made")
      .def("validate", &PipelineOptions::Validate,
           "Raises SluiceError naming the first invalid option (the Pipeline constructor calls it).");
}

void BindPipeline(nb::module_& m) {
  nb::class_<Pipeline>(m, "Pipeline")
      .def(nb::init<PipelineOptions>(), nb::arg("options"))
      .def_prop_ro("options", &Pipeline::options, nb::rv_policy::copy)
      .def("add_operator", &AddOperator, nb::arg("validated"), nb::arg("name"), nb::arg("inputs"), nb::arg("arg_inputs"))
      .def("set_outputs", &Pipeline::SetOutputs, nb::arg("edges"), Release())
      .def("build", &Pipeline::Build, Release())
      .def("run", &Pipeline::Run, Release())
      .def("schedule_run", &Pipeline::ScheduleRun, Release())
      .def("prefetch_depth", &Pipeline::PrefetchDepth, Release())
      .def("checkpoint", &Pipeline::Checkpoint, nb::arg("external_data") = "", nb::arg("rewind") = 0, Release())
      .def("checkpoint_external_data", &Pipeline::CheckpointExternalData)
      .def("share_outputs", &Pipeline::ShareOutputs, Release())
      .def("release_outputs", &Pipeline::ReleaseOutputs, Release())
      .def("outputs", &Pipeline::Outputs, Release())
      .def("feed_input", &FeedInput, nb::arg("op_name"), nb::arg("arrays"), nb::arg("layout") = "")
      .def("executor_statistics", &Pipeline::GetExecutorStatistics, Release())
      .def("error_log", &Pipeline::GetErrorLog, Release())
      .def("reader_meta", nb::overload_cast<const std::string&>(&Pipeline::GetReaderMeta, nb::const_),
           nb::arg("name"), Release())
      .def("all_reader_meta", nb::overload_cast<>(&Pipeline::GetReaderMeta, nb::const_), Release())
      .def("epoch_size", &Pipeline::EpochSize, nb::arg("name"), Release())
      .def("reset", &Pipeline::Reset, Release())
      .def_prop_ro("seed", &Pipeline::seed)
      .def_prop_ro("built", &Pipeline::built)
      .def("output_names", &Pipeline::output_names);
}

}  // namespace sluice::python
