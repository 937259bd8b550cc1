// python_function: a function of the embedding program as a CPU operator (DALI's
// fn.python_function), through the HostFunction interface (sluice/host_function.h). Python's
// bindings register one HostFunction per callable; this operator finds it by its `function` key
// when the pipeline builds it.
//
// The call runs in Setup (the function's results decide the output shapes), on the stage thread;
// Run copies the returned samples into the outputs on the thread pool, without the host language's
// locks. The returned samples stay valid until the next call.
#include <cstring>
#include <map>
#include <mutex>

#include <sluice/host_function.h>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

constexpr int kMaxInputs = 64;

// The registered functions. Never destroyed: at process exit a language runtime whose objects the
// functions hold may already be gone.
struct HostFunctionTable {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<HostFunction>> functions;
};
HostFunctionTable& Table() {
  static auto* table = new HostFunctionTable();
  return *table;
}

class PythonFunctionOp : public Operator {
 public:
  explicit PythonFunctionOp(const OpSpec& spec)
      : Operator(spec),
        num_outputs_(Arg<int>("num_outputs")),
        batch_processing_(Arg<bool>("batch_processing")),
        layouts_(Arg<std::vector<std::string>>("output_layouts")),
        layouts_from_inputs_(Arg<bool>("layouts_from_inputs")) {
    const std::string key = Arg<std::string>("function");
    {
      std::lock_guard<std::mutex> lock(Table().mu);
      auto it = Table().functions.find(key);
      if (it != Table().functions.end()) function_ = it->second;
    }
    if (!function_)
      ThrowArgError("function", "no Python function is registered as '" + key +
                                    "' (fn.python_function and ops.PythonFunction set it from a callable)");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.num_inputs() ? ws.Input(0).num_samples() : ws.batch_size();
    std::vector<std::vector<HostSample>> inputs(static_cast<size_t>(ws.num_inputs()));
    for (int k = 0; k < ws.num_inputs(); ++k) {
      const TensorList& in = ws.Input(k);
      if (in.num_samples() != n)
        throw Error("python_function: input " + std::to_string(k) + " has " + std::to_string(in.num_samples()) +
                    " samples, input 0 has " + std::to_string(n));
      for (int i = 0; i < n; ++i) inputs[static_cast<size_t>(k)].push_back({in.raw_sample(i), in.dtype(), in.shape(i)});
    }
    result_ = HostFunctionResult{};  // the last call's samples are let go before the next call
    result_ = function_->Call(inputs, n, num_outputs_, batch_processing_);
    const auto& outputs = result_.outputs;
    if (outputs.size() != static_cast<size_t>(num_outputs_))
      throw Error("python_function: the function returned " + std::to_string(outputs.size()) + " outputs, num_outputs is " +
                  std::to_string(num_outputs_));
    std::vector<OutputDesc> descs(static_cast<size_t>(num_outputs_));
    for (int k = 0; k < num_outputs_; ++k) {
      const std::vector<HostSample>& samples = outputs[static_cast<size_t>(k)];
      if (samples.size() != static_cast<size_t>(n))
        throw Error("python_function: output " + std::to_string(k) + " has " + std::to_string(samples.size()) +
                    " samples, the batch has " + std::to_string(n));
      OutputDesc& d = descs[static_cast<size_t>(k)];
      d.layout = k < static_cast<int>(layouts_.size()) ? layouts_[static_cast<size_t>(k)] : "";
      for (int i = 0; i < n; ++i) {
        const HostSample& s = samples[static_cast<size_t>(i)];
        const size_t ndim = static_cast<size_t>(s.shape.ndim());
        // jax_function's rule (DALI's): an output without a layout takes input k's when the ranks match.
        if (i == 0 && d.layout.empty() && layouts_from_inputs_ && k < ws.num_inputs() &&
            ws.Input(k).layout().size() == ndim)
          d.layout = ws.Input(k).layout();
        if (!d.layout.empty() && d.layout.size() != ndim)
          ThrowArgError("output_layouts", "the layout '" + d.layout + "' of output " + std::to_string(k) + " has " +
                                              std::to_string(d.layout.size()) + " dimensions; sample " + std::to_string(i) +
                                              " of the function's result has " + std::to_string(ndim));
        if (i > 0 && s.dtype != d.dtype)
          throw Error("python_function: output " + std::to_string(k) + " mixes element types: sample 0 is " +
                      std::string(ToString(d.dtype)) + ", sample " + std::to_string(i) + " is " + std::string(ToString(s.dtype)));
        d.dtype = s.dtype;
        d.shapes.push_back(s.shape);
      }
    }
    return descs;
  }

  void RunSample(Workspace& ws, int i, int) override {
    for (int k = 0; k < num_outputs_; ++k) {
      TensorList& out = ws.Output(k);
      const size_t bytes = out.sample_bytes(i);
      if (bytes) std::memcpy(out.raw_mutable_sample(i), result_.outputs[static_cast<size_t>(k)][static_cast<size_t>(i)].data, bytes);
    }
  }

  // A pipeline with python_function cannot be checkpointed: the function's state is the host
  // language's (DALI does not support it either). The executor asks for the state of every
  // iteration when checkpointing is on, so the first run() says so.
  bool has_state() const override { return true; }
  StateMap SaveState() const override { throw Error(kNoCheckpoint); }
  void RestoreState(const StateMap&) override { throw Error(kNoCheckpoint); }

 private:
  static constexpr const char* kNoCheckpoint =
      "python_function: a pipeline with python_function cannot be checkpointed (the function's state is "
      "Python's; DALI does not support it either): build it with enable_checkpointing=False";

  int num_outputs_;
  bool batch_processing_;
  std::vector<std::string> layouts_;
  bool layouts_from_inputs_;
  std::shared_ptr<HostFunction> function_;
  HostFunctionResult result_;  // the last call's outputs, read by RunSample
};

}  // namespace

void RegisterHostFunction(const std::string& key, std::shared_ptr<HostFunction> function) {
  std::shared_ptr<HostFunction> replaced;  // released outside the lock (its destructor may take a runtime's lock)
  std::lock_guard<std::mutex> lock(Table().mu);
  replaced = std::exchange(Table().functions[key], std::move(function));
}

void UnregisterHostFunction(const std::string& key) {
  std::shared_ptr<HostFunction> removed;
  {
    std::lock_guard<std::mutex> lock(Table().mu);
    auto it = Table().functions.find(key);
    if (it == Table().functions.end()) return;
    removed = std::move(it->second);
    Table().functions.erase(it);
  }
}

}  // namespace sluice

SLUICE_REGISTER_OPERATORS(RegisterPythonFunction) {
  using namespace sluice;
  OpSchema s("python_function");
  s.Doc("Runs a Python function on the CPU (DALI's python_function): per sample, function(in0[i], in1[i], ...) returning "
        "an array or a tuple of num_outputs arrays; with batch_processing, function([in0 samples], ...) once per batch "
        "returning lists. Inputs are NumPy arrays (copies); outputs keep the returned dtype and shape. The GIL is taken "
        "only around the call. Never pruned from the graph; cannot be checkpointed.");
  for (int k = 0; k < kMaxInputs; ++k) s.Input("input_" + std::to_string(k), "Data passed to the function (one NumPy array per sample).");
  s.OptionalInputs(kMaxInputs)
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
      .Factory("cpu", MakeFactory<PythonFunctionOp>());
  r.Register(std::move(s));
}
