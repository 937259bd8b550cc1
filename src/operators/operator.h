// The operator base class. An operator is argument plumbing over kernels: Setup computes the
// outputs' shapes and types for the whole batch (the executor then allocates), Run fills them.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/error.h>
#include <sluice/reader_meta.h>
#include <sluice/sample_error.h>
#include <sluice/tensor_shape.h>

#include "operators/op_spec.h"
#include "operators/schema.h"
#include "operators/workspace.h"

namespace sluice {

// An operator's checkpoint state: named values (keys [A-Za-z0-9_.-]+, values any bytes).
using StateMap = std::map<std::string, std::string>;

struct OutputDesc {
  std::vector<TensorShape> shapes;  // one per sample
  DType dtype = DType::kUInt8;
  std::string layout;
  bool contiguous = false;  // one buffer for the batch (cheap hand-off of dense batches)
  // Run makes every sample a view of an input's memory (TensorList::ShareSample / ShareBatch):
  // the executor sets the shapes and allocates nothing. For operators that only pick, reorder or
  // reinterpret what their inputs hold (_select.split/merge, reshape, element_extract).
  bool views = false;
  // Pass-through samples (optional, one entry per sample): Run makes each sample with a nonzero
  // entry a view of an input's sample (ShareSample) and writes the others, which get memory of
  // their own (per-sample storage; TensorList::ResizeMixed). E.g. flip's samples with no flag set.
  std::vector<uint8_t> sample_views = {};
};

// True if the batch is non-empty and every sample has the same shape (a contiguous output).
bool SameShapes(const std::vector<TensorShape>& shapes);

class Operator {
 public:
  // `spec` has been validated against the schema: arguments the user gave are coerced to the
  // schema's types; the others take the schema's defaults through Arg().
  explicit Operator(const OpSpec& spec);
  virtual ~Operator() = default;

  // Returns one descriptor per output, or an empty vector if Setup resized the outputs itself
  // (readers that hand over buffers). Called once per batch before Run.
  virtual std::vector<OutputDesc> Setup(Workspace& ws) = 0;
  // Fills the outputs. The default runs RunSample for every sample on the thread pool.
  virtual void Run(Workspace& ws);
  virtual void RunSample(Workspace& ws, int sample, int thread);

  // Readers report their metadata; other operators return nullopt.
  virtual std::optional<ReaderMeta> reader_meta() const { return std::nullopt; }
  // Checkpoint state: what an operator keeps across batches that the pipeline's seed and the
  // iteration do not determine (a reader's position). The executor saves and restores it for every
  // operator with has_state(), without knowing their types; pipeline/checkpoint.h writes it as text.
  virtual bool has_state() const { return false; }
  // The state after the last batch Setup returned. Thread-safe with respect to Setup.
  virtual StateMap SaveState() const { return {}; }
  // Checks all of `state` first, then applies it: on a bad state throws sluice::Error naming the
  // key ("state key 'pos': ...") and leaves the operator as it was. Before or after the first batch.
  virtual void RestoreState(const StateMap& state) {
    if (!state.empty()) throw Error("unknown state key '" + state.begin()->first + "' (the operator has no state)");
  }
  // Samples an operator could not produce (on_error="replace") are reported per batch through
  // Workspace::ReportFailedSample; the executor replaces their rows and keeps the log and counts.
  // Called by Pipeline::Reset between epochs (readers may rewind state they keep).
  virtual void Reset() {}

  const OpSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }

  // Argument accessors (read-only; public so that helpers shared by several operators can use them).
  // A constant argument converted to T (bool, int, int64_t, float, double, std::string, DType,
  // std::vector<int64_t|int|float|double|std::string>). Throws naming the argument if it was given
  // per sample (use PerSampleArg) or has the wrong type.
  template <typename T> T Arg(const std::string& name) const;
  // True if the user gave the argument (as a constant or per sample) rather than taking the default.
  bool HasArg(const std::string& name) const;
  bool IsArgInput(const std::string& name) const { return spec_.arg_inputs.count(name) > 0; }
  // One value per sample: from the argument input (each sample a scalar) or the constant repeated.
  template <typename T> std::vector<T> PerSampleArg(const Workspace& ws, const std::string& name) const;
  // One list per sample: from the argument input (each sample a 1-D tensor) or the constant repeated.
  template <typename T> std::vector<std::vector<T>> PerSampleListArg(const Workspace& ws, const std::string& name) const;

  // The layout input `k` is read as, by the layouts its schema declares (InputLayouts; the
  // framework has checked them before Setup): the input's layout when it has one, else the base
  // layout its samples' number of dimensions selects (the first base layout for an empty batch).
  // Where the schema declares no layouts, the input's layout as it is.
  std::string InputLayout(const Workspace& ws, int k) const;

  [[noreturn]] void ThrowArgError(const std::string& arg, const std::string& msg) const;

 protected:
  // Runs fn(sample, thread) for every sample in parallel; an exception from a sample is rethrown
  // as sluice::Error naming the sample and its source (from input 0, else output 0).
  void ForEachSample(Workspace& ws, const std::function<void(int, int)>& fn);

  // The argument's schema if it has a numeric range (per-sample values are checked against it).
  const ArgSchema* RangedArg(const std::string& name) const;
  [[noreturn]] void ThrowPerSample(const std::string& name, int sample, const std::string& msg) const;
  void CheckPerSampleValue(const ArgSchema& a, int sample, double x) const {
    try {
      CheckArgNumber(a, x);
    } catch (const Error& e) {
      ThrowPerSample(a.name, sample, e.message());
    }
  }

  // The given value or the schema default; nullptr if neither exists.
  const Value* FindArgValue(const std::string& name) const;

  OpSpec spec_;
  const OpSchema* schema_ = nullptr;
};

// Reads an OpSpec's constant arguments with the schema's defaults (Operator's accessors), for
// schema hooks that get a spec rather than a running operator (RegionMapFn, MinInputSizeFn).
// Never set up or run.
class SpecArgs final : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace&) override { return {}; }
};

// The factory of an operator class constructed from its spec, for OpSchema::Factory.
template <typename Op>
OperatorFactory MakeFactory() {
  return [](const OpSpec& s) { return std::make_unique<Op>(s); };
}

}  // namespace sluice

#include "operators/operator_args.inl"
