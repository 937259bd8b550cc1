#include "operators/operator.h"

#include <algorithm>

#include "operators/registry.h"

namespace sluice {

bool SameShapes(const std::vector<TensorShape>& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](const TensorShape& t) { return t == s[0]; });
}

Operator::Operator(const OpSpec& spec) : spec_(spec), schema_(OperatorRegistry::Get().Find(spec.op)) {}

const Value* Operator::FindArgValue(const std::string& name) const {
  auto it = spec_.args.find(name);
  if (it != spec_.args.end()) return &it->second;
  if (schema_) {
    if (const ArgSchema* a = schema_->FindArg(name); a && a->default_value) return &*a->default_value;
  }
  return nullptr;
}

namespace {
// The sample's source: from the input (operators) or, for sources without inputs, the output
// that the operator has already labelled (readers).
Error::Context SampleContext(Workspace& ws, int i) {
  Error::Context c;
  c.sample = i;
  if (ws.num_inputs() > 0 && i < ws.Input(0).num_samples()) c.source = ws.Input(0).source(i).ToString();
  else if (ws.num_outputs() > 0 && i < ws.Output(0).num_samples()) c.source = ws.Output(0).source(i).ToString();
  return c;
}
}  // namespace

void Operator::Run(Workspace& ws) {
  ForEachSample(ws, [&](int i, int t) { RunSample(ws, i, t); });
}

void Operator::RunSample(Workspace&, int, int) {
  Error::Context c;
  c.op = spec_.name;
  throw Error("operator implements neither Run nor RunSample", c);
}

void Operator::ForEachSample(Workspace& ws, const std::function<void(int, int)>& fn) {
  ws.pool().ParallelFor(ws.batch_size(), [&](int i, int t) {
    if (ws.cancelled()) throw Error("cancelled: the pipeline is shutting down");
    try {
      fn(i, t);
    } catch (const Error& e) {
      throw e.WithContext(SampleContext(ws, i));
    } catch (const std::exception& e) {
      throw Error(e.what(), SampleContext(ws, i));
    }
  });
}

const ArgSchema* Operator::RangedArg(const std::string& name) const {
  const ArgSchema* a = schema_ ? schema_->FindArg(name) : nullptr;
  return a && (a->constraint.lo || a->constraint.hi) ? a : nullptr;
}

void Operator::ThrowPerSample(const std::string& name, int sample, const std::string& msg) const {
  Error::Context c;
  c.op = spec_.name;
  c.argument = name;
  c.sample = sample;
  throw Error("per-sample value: " + msg, c);
}

bool Operator::HasArg(const std::string& name) const {
  return IsArgInput(name) || spec_.args.count(name) > 0;
}

std::string Operator::InputLayout(const Workspace& ws, int k) const {
  const TensorList& in = ws.Input(k);
  const bool declared = schema_ && k < schema_->max_inputs() && schema_->inputs()[static_cast<size_t>(k)].layouts.declared();
  if (!declared || !in.layout().empty()) return in.layout();
  const InputLayouts& layouts = schema_->inputs()[static_cast<size_t>(k)].layouts;
  if (in.num_samples() == 0) {
    const auto accepted = layouts.Accepted();
    return accepted.empty() ? std::string() : accepted[0];
  }
  return layouts.Resolve("", in.shape(0).ndim()).value_or(std::string());
}

void Operator::ThrowArgError(const std::string& arg, const std::string& msg) const {
  Error::Context c;
  c.op = spec_.name;
  c.argument = arg;
  throw Error(msg, c);
}

}  // namespace sluice
