// Declarative operator schemas: the single source of truth for validation, defaults, docs and the
// generated Python API.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/value.h>

#include "operators/op_spec.h"

namespace sluice {

class Operator;

struct ArgSchema {
  std::string name;
  ArgType type = ArgType::kInt;
  std::optional<Value> default_value;  // none: required
  std::string doc;
  bool per_sample = false;  // may be given as a tensor input ("argument input")
  bool required() const { return !default_value.has_value(); }
};

struct InputSchema {
  std::string name;
  std::string doc;
  std::vector<DType> dtypes;  // empty: any
};

using OperatorFactory = std::function<std::unique_ptr<Operator>(const OpSpec&)>;

class OpSchema {
 public:
  explicit OpSchema(std::string name);

  // Builder: each returns *this so a schema reads as one declaration.
  OpSchema& Doc(std::string doc);
  OpSchema& Input(std::string name, std::string doc, std::vector<DType> dtypes = {});
  OpSchema& OptionalInputs(int count);  // the last `count` inputs may be omitted
  OpSchema& Output(std::string name, std::string doc);
  // The number of outputs depends on the arguments (e.g. one per `ext` entry of a reader).
  OpSchema& NumOutputsFn(std::function<int(const OpSpec&)> fn);
  OpSchema& Arg(std::string name, ArgType type, std::optional<Value> default_value, std::string doc,
                bool per_sample = false);
  OpSchema& Backends(std::vector<std::string> devices);
  OpSchema& Random();
  OpSchema& Reader();
  // Arguments that must not be given together, e.g. {"resize_shorter", "size"}.
  OpSchema& Exclusive(std::vector<std::string> names);
  OpSchema& Factory(std::string device, OperatorFactory f);

  const std::string& name() const { return name_; }
  const std::string& doc() const { return doc_; }
  const std::vector<InputSchema>& inputs() const { return inputs_; }
  int min_inputs() const { return static_cast<int>(inputs_.size()) - optional_inputs_; }
  int max_inputs() const { return static_cast<int>(inputs_.size()); }
  const std::vector<std::pair<std::string, std::string>>& output_docs() const { return outputs_; }
  int NumOutputs(const OpSpec& spec) const;
  const std::vector<ArgSchema>& args() const { return args_; }
  const ArgSchema* FindArg(const std::string& name) const;
  const std::vector<std::string>& backends() const { return backends_; }
  bool SupportsDevice(const std::string& device) const;
  bool is_random() const { return random_; }
  bool is_reader() const { return reader_; }
  const std::vector<std::vector<std::string>>& exclusive_groups() const { return exclusive_; }
  const OperatorFactory* FindFactory(const std::string& device) const;
  // Human-readable docs: description, inputs, outputs and every argument with type and default.
  std::string FullDoc() const;

 private:
  std::string name_;
  std::string doc_;
  std::vector<InputSchema> inputs_;
  int optional_inputs_ = 0;
  std::vector<std::pair<std::string, std::string>> outputs_;
  std::function<int(const OpSpec&)> num_outputs_fn_;
  std::vector<ArgSchema> args_;
  std::vector<std::string> backends_{"cpu"};
  bool random_ = false;
  bool reader_ = false;
  std::vector<std::vector<std::string>> exclusive_;
  std::map<std::string, OperatorFactory> factories_;
};

// Converts `v` to the schema type `t` (int->float, scalar->list, dtype names); throws sluice::Error
// ("expected float list, got string 'x'") on a mismatch. The caller adds the operator/argument context.
Value CoerceValue(const Value& v, ArgType t);

// Levenshtein distance, for "did you mean" suggestions.
int EditDistance(const std::string& a, const std::string& b);
// The closest candidate within a small distance, or "" if none is close.
std::string Suggest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace sluice
