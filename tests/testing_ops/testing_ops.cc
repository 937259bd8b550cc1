// Test-only operators (fn.testing.*) the engine is tested and benchmarked with: a counter source,
// add-constant, a per-sample sleep for scheduling tests, and an operator that fails at a chosen
// sample. Built into the test-only library sluice_testing_ops, linked into the tests, benchmarks,
// fuzzers and development builds of the Python module, never into an installed package.
#include <chrono>
#include <cstring>
#include <thread>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// Sample i of iteration k holds k * batch_size + i (int64), repeated `shape` times.
class Counter : public Operator {
 public:
  explicit Counter(const OpSpec& s) : Operator(s), shape_(Arg<std::vector<int64_t>>("shape")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    OutputDesc d;
    d.shapes.assign(static_cast<size_t>(ws.batch_size()), TensorShape(shape_));
    d.dtype = DType::kInt64;
    d.contiguous = true;
    return {d};
  }
  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    for (int i = 0; i < out.num_samples(); ++i) {
      const int64_t v = ws.iteration() * ws.batch_size() + i;
      int64_t* p = out.mutable_sample<int64_t>(i);
      for (int64_t e = 0; e < out.shape(i).num_elements(); ++e) p[e] = v;
      out.source(i) = SourceInfo{"counter", "sample-" + std::to_string(v), -1};
    }
  }

 private:
  std::vector<int64_t> shape_;
};

// out = in + value (per sample), computed in the input's type.
class AddConstant : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    values_ = PerSampleArg<double>(ws, "value");
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), in.dtype(), in.layout(), false}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    VisitDType(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        const T* src = in.sample<T>(i);
        T* dst = ws.Output(0).mutable_sample<T>(i);
        const int64_t n = in.shape(i).num_elements();
        for (int64_t e = 0; e < n; ++e) dst[e] = static_cast<T>(src[e] + values_[static_cast<size_t>(i)]);
      } else {
        throw Error("testing.add_constant supports numeric types only");
      }
    });
  }

 private:
  std::vector<double> values_;
};

// Passes its input through after sleeping `ms` milliseconds per sample (cancellable).
class Sleep : public Operator {
 public:
  explicit Sleep(const OpSpec& s) : Operator(s), ms_(Arg<double>("ms")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), in.dtype(), in.layout(), false}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<int64_t>(ms_ * 1000));
    while (std::chrono::steady_clock::now() < until) {
      if (ws.cancelled()) throw Error("cancelled");
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    std::memcpy(ws.Output(0).raw_mutable_sample(i), ws.Input(0).raw_sample(i), ws.Input(0).sample_bytes(i));
  }

 private:
  double ms_;
};

// Copies its input; throws at (fail_iteration, fail_sample), for error-propagation tests.
class Fail : public Operator {
 public:
  explicit Fail(const OpSpec& s)
      : Operator(s), iteration_(Arg<int64_t>("fail_iteration")), sample_(Arg<int64_t>("fail_sample")),
        message_(Arg<std::string>("message")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), in.dtype(), in.layout(), false}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    if (ws.iteration() == iteration_ && i == sample_) throw std::runtime_error(message_);
    std::memcpy(ws.Output(0).raw_mutable_sample(i), ws.Input(0).raw_sample(i), ws.Input(0).sample_bytes(i));
  }

 private:
  int64_t iteration_, sample_;
  std::string message_;
};


}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterTestingOperators) {
  r.Register(OpSchema("testing.counter")
                 .Doc("Test source: sample i of batch k holds k * batch_size + i (int64), filling `shape`.")
                 .Output("values", "The counter values.")
                 .Arg("shape", ArgType::kIntList, std::vector<int64_t>{1}, "Shape of each sample.")
                 .Factory("cpu", MakeFactory<Counter>()));
  r.Register(OpSchema("testing.add_constant")
                 .Doc("Test operator: adds `value` to every element, in the input's type.")
                 .Input("input", "Numeric data.")
                 .Output("output", "input + value.")
                 .Arg("value", ArgType::kFloat, 1.0, "The value to add.", /*per_sample=*/true)
                 .Factory("cpu", MakeFactory<AddConstant>()));
  r.Register(OpSchema("testing.sleep")
                 .Doc("Test operator: sleeps `ms` milliseconds per sample, then copies its input.")
                 .Input("input", "Any data.")
                 .Output("output", "A copy of the input.")
                 .Arg("ms", ArgType::kFloat, 1.0, "Milliseconds per sample.")
                 .Factory("cpu", MakeFactory<Sleep>()));
  r.Register(OpSchema("testing.fail")
                 .Doc("Test operator: copies its input but throws at one (iteration, sample).")
                 .Input("input", "Any data.")
                 .Output("output", "A copy of the input.")
                 .Arg("fail_iteration", ArgType::kInt, int64_t{0}, "Batch index at which to fail.")
                 .Arg("fail_sample", ArgType::kInt, int64_t{0}, "Sample index at which to fail.")
                 .Arg("message", ArgType::kString, std::string("injected failure"), "The error message.")
                 .Factory("cpu", MakeFactory<Fail>()));
}

}  // namespace sluice
