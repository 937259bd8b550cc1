// python_function: a Python callable as a CPU operator (DALI's fn.python_function).
//
// It lives in the extension module because it holds Python objects; it registers itself into the
// operator registry when the module is loaded (SLUICE_REGISTER_OPERATORS queues it before the
// registry's first use). The callable is not an argument value: fn.python_function registers it
// in a table under a key (register_python_function) and passes the key as `function`; the
// operator takes its own reference when the pipeline builds it.
//
// The GIL is taken only in Setup, around the call (the function's results decide the output
// shapes, so it runs there): the inputs are copied into NumPy arrays, sluice.python_function._invoke
// calls the function and checks what it returned. Run copies the returned arrays into the outputs
// without the GIL, on the thread pool; the arrays are let go at the next Setup.
#include <nanobind/stl/string.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice::python {
namespace {

constexpr int kMaxInputs = 64;

// The registered callables, by key. Read and written with the GIL held. Never destroyed: at
// process exit the interpreter is gone and the references must not be dropped.
std::map<std::string, nb::object>& Functions() {
  static auto* table = new std::map<std::string, nb::object>();
  return *table;
}

// How deep the current thread is in python_function calls (a garbage collection during the call
// may destroy a pipeline: PipelineObject then must not join this thread; see pipeline.cc).
thread_local int t_call_depth = 0;

bool Finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

struct CallDepth {
  CallDepth() { ++t_call_depth; }
  ~CallDepth() { --t_call_depth; }
};

// "ValueError: boom" and the traceback, as Python prints them. With the GIL held.
std::string FormatPythonError(const nb::python_error& e, bool with_traceback) {
  try {
    nb::object tb = nb::module_::import_("traceback");
    nb::object lines = with_traceback ? tb.attr("format_exception")(e.type(), e.value(), e.traceback())
                                      : tb.attr("format_exception_only")(e.type(), e.value());
    std::string s = nb::cast<std::string>(nb::str("").attr("join")(lines));
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  } catch (const std::exception&) {
    return e.what();
  }
}

class PythonFunction : public Operator {
 public:
  explicit PythonFunction(const OpSpec& spec)
      : Operator(spec),
        num_outputs_(Arg<int>("num_outputs")),
        batch_processing_(Arg<bool>("batch_processing")),
        layouts_(Arg<std::vector<std::string>>("output_layouts")),
        layouts_from_inputs_(Arg<bool>("layouts_from_inputs")) {
    const std::string key = Arg<std::string>("function");
    if (Finalizing()) throw Error("python_function: the Python interpreter is shutting down");
    nb::gil_scoped_acquire gil;
    auto it = Functions().find(key);
    if (it == Functions().end())
      ThrowArgError("function", "no Python function is registered as '" + key +
                                    "' (fn.python_function and ops.PythonFunction set it from a callable)");
    function_ = it->second;
    invoke_ = nb::module_::import_("sluice.python_function").attr("_invoke");
  }

  ~PythonFunction() override {
    if (Finalizing()) {  // the interpreter's objects are going: leave them
      function_.release();
      invoke_.release();
      for (auto& o : keep_) o.release();
      return;
    }
    nb::gil_scoped_acquire gil;
    keep_.clear();
    function_.reset();
    invoke_.reset();
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.num_inputs() ? ws.Input(0).num_samples() : ws.batch_size();
    for (int k = 1; k < ws.num_inputs(); ++k)
      if (ws.Input(k).num_samples() != n)
        throw Error("python_function: input " + std::to_string(k) + " has " + std::to_string(ws.Input(k).num_samples()) +
                    " samples, input 0 has " + std::to_string(n));
    if (Finalizing()) throw Error("python_function: the Python interpreter is shutting down");
    std::vector<OutputDesc> descs(static_cast<size_t>(num_outputs_));
    nb::gil_scoped_acquire gil;
    CallDepth depth;
    keep_.clear();
    data_.assign(static_cast<size_t>(num_outputs_), {});
    try {
      nb::list inputs;
      for (int k = 0; k < ws.num_inputs(); ++k) {
        nb::list samples;
        for (int i = 0; i < n; ++i) samples.append(ToNumpy(ws.Input(k), i));
        inputs.append(samples);
      }
      nb::object result = invoke_(function_, inputs, n, num_outputs_, batch_processing_);
      for (int k = 0; k < num_outputs_; ++k) {
        nb::list samples = nb::borrow<nb::list>(result[k]);
        OutputDesc& d = descs[static_cast<size_t>(k)];
        d.layout = k < static_cast<int>(layouts_.size()) ? layouts_[static_cast<size_t>(k)] : "";
        for (int i = 0; i < n; ++i) {
          nb::object obj = samples[static_cast<size_t>(i)];
          auto a = nb::cast<nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>>(obj);
          std::optional<DType> dt = FromDLPack(a.dtype());
          if (!dt) throw Error("python_function: output " + std::to_string(k) + " has an element type Sluice has no type for");
          std::vector<int64_t> dims(a.ndim());
          for (size_t j = 0; j < a.ndim(); ++j) dims[j] = static_cast<int64_t>(a.shape(j));
          // jax_function's rule (DALI's): an output without a layout takes input k's when the ranks match.
          if (i == 0 && d.layout.empty() && layouts_from_inputs_ && k < ws.num_inputs() &&
              ws.Input(k).layout().size() == dims.size())
            d.layout = ws.Input(k).layout();
          if (!d.layout.empty() && d.layout.size() != dims.size())
            ThrowArgError("output_layouts", "the layout '" + d.layout + "' of output " + std::to_string(k) + " has " +
                                                std::to_string(d.layout.size()) + " dimensions; sample " + std::to_string(i) +
                                                " of the function's result has " + std::to_string(dims.size()));
          d.dtype = *dt;
          d.shapes.emplace_back(std::move(dims));
          data_[static_cast<size_t>(k)].push_back(a.data());
          keep_.push_back(std::move(obj));
        }
      }
    } catch (const nb::python_error& e) {
      // The checks of sluice.python_function raise ReturnError: their message says it all.
      const bool checks = e.matches(nb::module_::import_("sluice.python_function").attr("ReturnError"));
      throw Error(checks ? "python_function: " + FormatPythonError(e, false)
                         : "python_function: the function raised " + FormatPythonError(e, false) + "\n" +
                               FormatPythonError(e, true));
    } catch (const nb::cast_error&) {
      throw Error("python_function: the function's result is not a C-contiguous CPU array");
    }
    return descs;
  }

  void RunSample(Workspace& ws, int i, int) override {
    for (int k = 0; k < num_outputs_; ++k) {
      TensorList& out = ws.Output(k);
      const size_t bytes = out.sample_bytes(i);
      if (bytes) std::memcpy(out.raw_mutable_sample(i), data_[static_cast<size_t>(k)][static_cast<size_t>(i)], bytes);
    }
  }

  // A pipeline with python_function cannot be checkpointed: the function's state is Python's (DALI
  // does not support it either). The executor asks for the state of every iteration when
  // checkpointing is on, so the first run() says so.
  bool has_state() const override { return true; }
  StateMap SaveState() const override { throw Error(kNoCheckpoint); }
  void RestoreState(const StateMap&) override { throw Error(kNoCheckpoint); }

 private:
  static constexpr const char* kNoCheckpoint =
      "python_function: a pipeline with python_function cannot be checkpointed (the function's state is "
      "Python's; DALI does not support it either): build it with enable_checkpointing=False";

  // A NumPy array holding a copy of sample i (the function may keep it; the input's buffer is reused).
  static nb::object ToNumpy(const TensorList& t, int i) {
    const size_t bytes = t.sample_bytes(i);
    auto* buf = new uint8_t[bytes ? bytes : 1];
    if (bytes) std::memcpy(buf, t.raw_sample(i), bytes);
    nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<uint8_t*>(p); });
    const TensorShape& s = t.shape(i);
    std::vector<size_t> dims(static_cast<size_t>(s.ndim()));
    for (int d = 0; d < s.ndim(); ++d) dims[static_cast<size_t>(d)] = static_cast<size_t>(s[d]);
    return nb::ndarray<nb::numpy>(buf, dims.size(), dims.data(), owner, nullptr, ToDLPack(t.dtype())).cast();
  }

  int num_outputs_;
  bool batch_processing_;
  std::vector<std::string> layouts_;
  bool layouts_from_inputs_;
  nb::object function_;
  nb::object invoke_;
  std::vector<nb::object> keep_;                   // the arrays data_ points into
  std::vector<std::vector<const void*>> data_;     // [output][sample]
};

}  // namespace

bool InPythonFunctionCall() { return t_call_depth > 0; }

void BindPythonFunction(nb::module_& m) {
  m.def("register_python_function", [](const std::string& key, nb::object fn) { Functions()[key] = std::move(fn); },
        nb::arg("key"), nb::arg("function"), "Registers a callable for python_function's `function` argument.");
  m.def("unregister_python_function", [](const std::string& key) { Functions().erase(key); }, nb::arg("key"));
}

}  // namespace sluice::python

SLUICE_REGISTER_OPERATORS(RegisterPythonFunction) {
  using namespace sluice;
  OpSchema s("python_function");
  s.Doc("Runs a Python function on the CPU (DALI's python_function): per sample, function(in0[i], in1[i], ...) returning "
        "an array or a tuple of num_outputs arrays; with batch_processing, function([in0 samples], ...) once per batch "
        "returning lists. Inputs are NumPy arrays (copies); outputs keep the returned dtype and shape. The GIL is taken "
        "only around the call. Never pruned from the graph; cannot be checkpointed.");
  for (int k = 0; k < sluice::python::kMaxInputs; ++k)
    s.Input("input_" + std::to_string(k), "Data passed to the function (one NumPy array per sample).");
  s.OptionalInputs(sluice::python::kMaxInputs)
      .NumOutputsFn([](const OpSpec& spec) {
        auto it = spec.args.find("num_outputs");
        if (it == spec.args.end()) return 1;
        const auto* n = std::get_if<int64_t>(&it->second);
        return n ? static_cast<int>(*n) : 1;
      })
      .Output("output", "The function's results: output k is its k-th returned array (or list).")
      .Arg("function", ArgType::kString, std::nullopt,
           "The Python callable, by the key under which fn.python_function/ops.PythonFunction registered it.")
      .Arg("num_outputs", ArgType::kInt, int64_t{1}, "How many outputs the function returns.")
      .Range(0, 64)
      .Arg("batch_processing", ArgType::kBool, false,
           "True: the function is called once per batch with lists of samples; False: once per sample.")
      .Arg("output_layouts", ArgType::kStringList, std::vector<std::string>{},
           "The outputs' layouts, one per output (a shorter list leaves the last outputs without one).")
      .Arg("layouts_from_inputs", ArgType::kBool, false,
           "Sluice only (set by jax_function, as DALI's jax_function does): output k without a layout in "
           "output_layouts takes input k's layout when their sample ranks match.")
      .Factory("cpu", MakeFactory<sluice::python::PythonFunction>());
  r.Register(std::move(s));
}
