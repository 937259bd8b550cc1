// python_function's host side: a Python callable as a sluice::HostFunction (sluice/host_function.h).
// The operator itself (schema, checks, copies into the batch, no checkpoints) is the library's
// (src/operators/python_function); this file only calls Python.
//
// fn.python_function registers each callable under a key (register_python_function), which the
// operator's `function` argument names. A call takes the GIL, copies the inputs into NumPy arrays,
// and lets sluice.python_function._invoke call the function and check what it returned; the
// returned arrays are kept (and their data read by the operator without the GIL) until the
// operator lets the call's result go.
#include <nanobind/stl/string.h>

#include <sluice/host_function.h>

#include <dlfcn.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"

namespace sluice::python {
namespace {

// How deep the current thread is in python_function calls (a garbage collection during the call
// may destroy a pipeline: PipelineObject then must not join this thread; see pipeline.cc).
thread_local int t_call_depth = 0;

// Whether the interpreter has begun finalizing; called without the GIL (a worker thread must not take
// it then). Py_IsFinalizing is in the stable ABI only from 3.13, so the abi3 module (Py_LIMITED_API
// 3.12, one binary for 3.12 and later) finds it in the running interpreter: Py_IsFinalizing from 3.13
// on, _Py_IsFinalizing (exported, the same function) in 3.12. Looked up once, the first time.
#if defined(Py_LIMITED_API) && Py_LIMITED_API + 0 < 0x030D0000
using IsFinalizingFunction = int (*)();

IsFinalizingFunction LookUpIsFinalizing() {
  for (const char* name : {"Py_IsFinalizing", "_Py_IsFinalizing"}) {
    if (void* f = dlsym(RTLD_DEFAULT, name)) return reinterpret_cast<IsFinalizingFunction>(f);
  }
  return nullptr;
}

bool Finalizing() {
  static const IsFinalizingFunction is_finalizing = LookUpIsFinalizing();
  // An interpreter exporting neither: nanobind's own flag (false only later, when its internals go).
  return is_finalizing != nullptr ? is_finalizing() != 0 : !nb::is_alive();
}
#else
bool Finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}
#endif

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

// A NumPy array holding a copy of `s` (the function may keep it; the input's buffer is reused).
nb::object ToNumpy(const HostSample& s) {
  const size_t bytes = static_cast<size_t>(s.shape.num_elements()) * SizeOf(s.dtype);
  auto* buf = new uint8_t[bytes ? bytes : 1];
  if (bytes) std::memcpy(buf, s.data, bytes);
  nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<uint8_t*>(p); });
  std::vector<size_t> dims(s.shape.dims().begin(), s.shape.dims().end());
  return nb::ndarray<nb::numpy>(buf, dims.size(), dims.data(), owner, nullptr, ToDLPack(s.dtype)).cast();
}

class PythonHostFunction : public HostFunction {
 public:
  // With the GIL held (called from Python).
  explicit PythonHostFunction(nb::object function)
      : function_(std::move(function)), invoke_(nb::module_::import_("sluice.python_function").attr("_invoke")) {}

  ~PythonHostFunction() override {
    if (Finalizing()) {  // the interpreter's objects are going: leave them
      function_.release();
      invoke_.release();
      return;
    }
    nb::gil_scoped_acquire gil;
    function_.reset();
    invoke_.reset();
  }

  HostFunctionResult Call(const std::vector<std::vector<HostSample>>& inputs, int n, int num_outputs,
                          bool batch_processing) override {
    if (Finalizing()) throw Error("python_function: the Python interpreter is shutting down");
    nb::gil_scoped_acquire gil;
    CallDepth depth;
    HostFunctionResult result;
    result.outputs.resize(static_cast<size_t>(num_outputs));
    auto keep = std::make_unique<std::vector<nb::object>>();  // the arrays the outputs point into
    try {
      nb::list py_inputs;
      for (const auto& input : inputs) {
        nb::list samples;
        for (const HostSample& s : input) samples.append(ToNumpy(s));
        py_inputs.append(samples);
      }
      nb::object returned = invoke_(function_, py_inputs, n, num_outputs, batch_processing);
      for (int k = 0; k < num_outputs; ++k) {
        nb::list samples = nb::borrow<nb::list>(returned[k]);
        for (int i = 0; i < n; ++i) {
          nb::object obj = samples[static_cast<size_t>(i)];
          auto a = nb::cast<nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>>(obj);
          std::optional<DType> dt = FromDLPack(a.dtype());
          if (!dt) throw Error("python_function: output " + std::to_string(k) + " has an element type Sluice has no type for");
          std::vector<int64_t> dims(a.ndim());
          for (size_t j = 0; j < a.ndim(); ++j) dims[j] = static_cast<int64_t>(a.shape(j));
          result.outputs[static_cast<size_t>(k)].push_back({a.data(), *dt, TensorShape(dims)});
          keep->push_back(std::move(obj));
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
    result.owner = std::shared_ptr<const void>(keep.release(), [](const void* p) {
      auto* arrays = static_cast<std::vector<nb::object>*>(const_cast<void*>(p));
      if (Finalizing()) {  // the interpreter's objects are going: leave them
        for (auto& o : *arrays) o.release();
      } else {
        nb::gil_scoped_acquire gil;
        arrays->clear();
      }
      delete arrays;
    });
    return result;
  }

 private:
  nb::object function_;
  nb::object invoke_;
};

}  // namespace

bool InPythonFunctionCall() { return t_call_depth > 0; }

void BindPythonFunction(nb::module_& m) {
  m.def(
      "register_python_function",
      [](const std::string& key, nb::object fn) {
        RegisterHostFunction(key, std::make_shared<PythonHostFunction>(std::move(fn)));
      },
      nb::arg("key"), nb::arg("function"), "Registers a callable for python_function's `function` argument.");
  m.def("unregister_python_function", &UnregisterHostFunction, nb::arg("key"));
}

}  // namespace sluice::python
