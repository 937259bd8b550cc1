// sluice::Pipeline. The GIL is released around every call that can block or compute.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <sluice/pipeline.h>

#include "bindings.h"

namespace sluice::python {
namespace {

using Release = nb::call_guard<nb::gil_scoped_release>;
using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using ArgList = std::vector<std::tuple<std::string, std::string, nb::object>>;


std::vector<std::string> AddOperator(Pipeline& p, std::string op, std::string name, std::string device,
                                     std::vector<std::string> inputs, std::map<std::string, std::string> arg_inputs,
                                     const ArgList& args, std::vector<std::string> outputs) {
  OperatorDef def(std::move(op), std::move(device));
  def.name = std::move(name);
  def.inputs = std::move(inputs);
  def.arg_inputs = std::move(arg_inputs);
  def.outputs = std::move(outputs);
  for (const auto& [arg, kind, value] : args) def.args[arg] = ValueFromPython(kind, value);
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

void BindPipeline(nb::module_& m) {
  nb::class_<Pipeline>(m, "Pipeline")
      .def("__init__", [](Pipeline* self, int batch_size, int num_threads, int device_id, int64_t seed,
                          bool exec_pipelined, bool exec_async, int cpu_queue_depth, int gpu_queue_depth,
                          size_t bytes_per_sample, bool set_affinity, bool enable_memory_stats,
                          bool enable_checkpointing, std::optional<std::string> checkpoint) {
             PipelineOptions o;
             o.batch_size = batch_size;
             o.num_threads = num_threads;
             o.device_id = device_id;
             o.seed = seed;
             o.exec_pipelined = exec_pipelined;
             o.exec_async = exec_async;
             o.cpu_queue_depth = cpu_queue_depth;
             o.gpu_queue_depth = gpu_queue_depth;
             o.bytes_per_sample = bytes_per_sample;
             o.set_affinity = set_affinity;
             o.enable_memory_stats = enable_memory_stats;
             o.enable_checkpointing = enable_checkpointing;
             o.checkpoint = std::move(checkpoint);
             new (self) Pipeline(std::move(o));
           },
           nb::arg("batch_size"), nb::arg("num_threads"), nb::arg("device_id"), nb::arg("seed"),
           nb::arg("exec_pipelined"), nb::arg("exec_async"), nb::arg("cpu_queue_depth"),
           nb::arg("gpu_queue_depth"), nb::arg("bytes_per_sample"), nb::arg("set_affinity"),
           nb::arg("enable_memory_stats"), nb::arg("enable_checkpointing") = false,
           nb::arg("checkpoint") = nb::none())
      .def("add_operator", &AddOperator, nb::arg("op"), nb::arg("name"), nb::arg("device"), nb::arg("inputs"),
           nb::arg("arg_inputs"), nb::arg("args"), nb::arg("outputs"))
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
