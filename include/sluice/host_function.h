// An operator body supplied at run time by the program that embeds Sluice, in its own language:
// the `python_function` operator (DALI's fn.python_function) runs one, and Python's
// fn.python_function / ops.PythonFunction register one per callable. Part of the public API.
//
// The operator owns everything that is not the call itself: its schema, the checks of what comes
// back (sample counts, layouts), the copies into the batch's outputs on the thread pool, and the
// refusal to checkpoint. The host function only runs the user's code on views of the inputs.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/tensor_shape.h>

namespace sluice {

// One sample handed to or returned by a host function: C-contiguous, in host memory.
struct HostSample {
  const void* data = nullptr;
  DType dtype = DType::kUInt8;
  TensorShape shape;
};

// What a call returns: outputs[k][i] is sample i of output k; `owner` keeps their data alive, and
// is released (on any thread) when the operator no longer reads them.
struct HostFunctionResult {
  std::vector<std::vector<HostSample>> outputs;
  std::shared_ptr<const void> owner;
};

class HostFunction {
 public:
  virtual ~HostFunction() = default;
  // Runs the function on a batch, from the operator's Setup on the pipeline's stage thread; the
  // operators of several pipelines may call one function at the same time. inputs[k][i] is sample
  // i of input k, readable during the call only; the batch has `num_samples` samples (also with no
  // inputs). With batch_processing the function sees whole batches, else one sample at a time.
  // Returns `num_outputs` lists of `num_samples` samples each. Throws sluice::Error with the
  // message the user should see.
  virtual HostFunctionResult Call(const std::vector<std::vector<HostSample>>& inputs, int num_samples, int num_outputs,
                                  bool batch_processing) = 0;
};

// The host functions by key: python_function's `function` argument names one. Thread-safe. A
// python_function operator takes its own reference when the pipeline builds it, so a function
// unregistered later keeps serving the pipelines built before. Registered functions are never
// destroyed at process exit (a language runtime may be gone by then).
void RegisterHostFunction(const std::string& key, std::shared_ptr<HostFunction> function);
void UnregisterHostFunction(const std::string& key);

}  // namespace sluice
