// sluice::Pipeline. The GIL is released around every call that can block or compute, and while
// the Pipeline is destroyed (see PipelineObject).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/pipeline.h>

#include <memory>
#include <mutex>
#include <set>

#include "bindings.h"

namespace sluice::python {
namespace {

using Release = nb::call_guard<nb::gil_scoped_release>;
using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

// Pipelines whose last reference went inside a python_function call: destroyed on the main thread
// by a pending call (Py_AddPendingCall), or at the latest at interpreter exit (atexit).
std::mutex& GraveyardMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}
std::vector<std::shared_ptr<Pipeline>>& Graveyard() {
  static auto* g = new std::vector<std::shared_ptr<Pipeline>>();
  return *g;
}

// With the GIL held (a pending call, atexit).
int DestroyGraveyard(void* = nullptr) {
  std::vector<std::shared_ptr<Pipeline>> dead;
  {
    std::lock_guard lk(GraveyardMutex());
    dead.swap(Graveyard());
  }
  nb::gil_scoped_release release;
  dead.clear();
  return 0;
}

// The Python object of a C++ Pipeline (sluice._sluice.Pipeline). It exists for the Pipeline's
// destruction: the destructor joins the executor threads, and a thread running a python_function
// waits for the GIL, so the Pipeline is destroyed with the GIL released. When the last reference
// goes inside a python_function call (a garbage collection there), the calling thread may be one
// the destructor would join: the Pipeline goes to the graveyard instead. Pipelines with
// python_function are shut down at interpreter exit (atexit), while Python can still give their
// threads the GIL.
class PipelineObject {
 public:
  explicit PipelineObject(PipelineOptions options) : p_(std::make_shared<Pipeline>(std::move(options))) {}
  ~PipelineObject() {
    WithPythonFunctions().erase(this);
    Close();
  }
  PipelineObject(const PipelineObject&) = delete;
  PipelineObject& operator=(const PipelineObject&) = delete;

  // The Pipeline, held for the duration of a call (Close() may run meanwhile, from atexit).
  std::shared_ptr<Pipeline> get() const {
    std::lock_guard lk(mu_);
    if (!p_) throw Error("the pipeline was shut down (closed, or the Python interpreter is exiting)");
    return p_;
  }

  // Destroys the Pipeline (its executor stops), or, if a call still holds it, lets the call's end do
  // it. Called with the GIL held.
  void Close() {
    std::shared_ptr<Pipeline> p;
    {
      std::lock_guard lk(mu_);
      p = std::move(p_);
    }
    if (!p) return;
    if (InPythonFunctionCall()) {
      {
        std::lock_guard lk(GraveyardMutex());
        Graveyard().push_back(std::move(p));
      }
      Py_AddPendingCall(&DestroyGraveyard, nullptr);  // when it fails (queue full): atexit does it
      return;
    }
    nb::gil_scoped_release release;
    p.reset();
  }

  void NoteOperator(const std::string& op) {
    if (op == "python_function") WithPythonFunctions().insert(this);
  }

  // The live objects whose pipeline has a python_function (guarded by the GIL).
  static std::set<PipelineObject*>& WithPythonFunctions() {
    static auto* s = new std::set<PipelineObject*>();
    return *s;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<Pipeline> p_;
};

// A Pipeline method as a function of the PipelineObject.
template <typename R, typename... A>
auto Forward(R (Pipeline::*f)(A...)) {
  return [f](PipelineObject& o, A... a) -> R { return (*o.get().*f)(std::forward<A>(a)...); };
}
template <typename R, typename... A>
auto Forward(R (Pipeline::*f)(A...) const) {
  return [f](const PipelineObject& o, A... a) -> R { return (*o.get().*f)(std::forward<A>(a)...); };
}

// Adds a call validated at the call site (validate_operator) under the pipeline's edge names: its
// instance name ("" for "<op>#<n>"), the edges of its inputs and per-sample arguments. The outputs
// are named by the pipeline. AddOperator validates it again (cheap), as for any C++ caller.
std::vector<std::string> AddOperator(PipelineObject& o, const OperatorDef& validated, std::string name,
                                     std::vector<std::string> inputs, std::map<std::string, std::string> arg_inputs) {
  OperatorDef def = validated;
  def.name = std::move(name);
  def.inputs = std::move(inputs);
  def.arg_inputs = std::move(arg_inputs);
  def.outputs.clear();
  o.NoteOperator(def.op);
  nb::gil_scoped_release release;
  return o.get()->AddOperator(std::move(def));
}

void FeedInput(PipelineObject& o, const std::string& op_name, const std::vector<HostArray>& arrays,
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
  o.get()->FeedInput(op_name, samples, layout);
}

// atexit: stops the executors that could call into Python while the interpreter is finalized.
void ShutDownPythonFunctionPipelines() {
  std::vector<PipelineObject*> live(PipelineObject::WithPythonFunctions().begin(),
                                    PipelineObject::WithPythonFunctions().end());
  PipelineObject::WithPythonFunctions().clear();
  for (PipelineObject* o : live) o->Close();
  DestroyGraveyard();
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
      .def_rw("auto_threads", &PipelineOptions::auto_threads)
      .def_rw("auto_queue_depth", &PipelineOptions::auto_queue_depth)
      .def_rw("memory_budget", &PipelineOptions::memory_budget)
      .def_rw("bytes_per_sample", &PipelineOptions::bytes_per_sample)
      .def_rw("set_affinity", &PipelineOptions::set_affinity)
      .def_rw("enable_memory_stats", &PipelineOptions::enable_memory_stats)
      .def_rw("fuse_operators", &PipelineOptions::fuse_operators)
      .def_rw("enable_checkpointing", &PipelineOptions::enable_checkpointing)
      .def_rw("checkpoint", &PipelineOptions::checkpoint, "Optional[str]")
      .def_rw("memory", &PipelineOptions::memory, "Optional[MemoryConfig]; None: MemoryConfig.process_default() when the Pipeline is made")
      .def("validate", &PipelineOptions::Validate,
           "Raises SluiceError naming the first invalid option (the Pipeline constructor calls it).");
}

void BindPipeline(nb::module_& m) {
  nb::class_<PipelineObject>(m, "Pipeline")
      .def(nb::init<PipelineOptions>(), nb::arg("options"))
      .def_prop_ro("options", [](const PipelineObject& o) { return o.get()->options(); })
      .def("add_operator", &AddOperator, nb::arg("validated"), nb::arg("name"), nb::arg("inputs"), nb::arg("arg_inputs"))
      .def("set_outputs", Forward(&Pipeline::SetOutputs), nb::arg("edges"), Release())
      .def("build", Forward(&Pipeline::Build), Release())
      .def("run", Forward(&Pipeline::Run), Release())
      .def("schedule_run", Forward(&Pipeline::ScheduleRun), Release())
      .def("prefetch_depth", Forward(&Pipeline::PrefetchDepth), Release())
      .def("checkpoint", Forward(&Pipeline::Checkpoint), nb::arg("external_data") = "", nb::arg("rewind") = 0, Release())
      .def("checkpoint_external_data", Forward(&Pipeline::CheckpointExternalData))
      .def("share_outputs", Forward(&Pipeline::ShareOutputs), Release())
      .def("release_outputs", Forward(&Pipeline::ReleaseOutputs), Release())
      .def("outputs", Forward(&Pipeline::Outputs), Release())
      .def("feed_input", &FeedInput, nb::arg("op_name"), nb::arg("arrays"), nb::arg("layout") = "")
      .def("executor_statistics", Forward(&Pipeline::GetExecutorStatistics), Release())
      .def("error_log", Forward(&Pipeline::GetErrorLog), Release())
      .def("reader_meta", Forward(nb::overload_cast<const std::string&>(&Pipeline::GetReaderMeta, nb::const_)),
           nb::arg("name"), Release())
      .def("all_reader_meta", Forward(nb::overload_cast<>(&Pipeline::GetReaderMeta, nb::const_)), Release())
      .def("epoch_size", Forward(&Pipeline::EpochSize), nb::arg("name"), Release())
      .def("reset", Forward(&Pipeline::Reset), Release())
      .def("close", &PipelineObject::Close,
           "Stops the executor and frees the pipeline now; any later call raises SluiceError.")
      .def_prop_ro("seed", Forward(&Pipeline::seed))
      .def_prop_ro("built", Forward(&Pipeline::built))
      .def("output_names", Forward(&Pipeline::output_names));
  m.def("_shut_down_python_function_pipelines", &ShutDownPythonFunctionPipelines);
  nb::module_::import_("atexit").attr("register")(m.attr("_shut_down_python_function_pipelines"));
}

}  // namespace sluice::python
