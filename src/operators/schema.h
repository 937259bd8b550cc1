// Declarative operator schemas: the single source of truth for validation, defaults, docs and the
// generated Python API.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/value.h>

#include "kernels/crop/crop_window.h"
#include "operators/op_spec.h"

namespace sluice {

class Operator;

// What a value of an argument may be, beyond its type. Checked by ValidateSpec for constants (so
// errors point at the call) and by Operator::PerSampleArg for argument inputs (per batch).
struct ArgConstraint {
  // Numeric scalars and every element of numeric lists.
  std::optional<double> lo, hi;
  bool lo_open = false, hi_open = false;
  // Strings (and every element of string lists): the allowed spellings. With int_aliases, an
  // integer i is accepted as choices[i] (DALI's enums, e.g. interp_type=types.INTERP_LINEAR).
  std::vector<std::string> choices;
  bool int_aliases = false;
  // Lists: the allowed numbers of elements (empty: any).
  std::vector<int> counts;
  // A layout string ("HWC", "CHW", "ft", ...): distinct letters (upper or lower case); "" allowed.
  bool layout = false;
  bool empty() const { return !lo && !hi && choices.empty() && counts.empty() && !layout; }
};

struct ArgSchema {
  std::string name;
  ArgType type = ArgType::kInt;
  std::optional<Value> default_value;  // none: required
  std::string doc;
  bool per_sample = false;  // may be given as a tensor input ("argument input")
  ArgConstraint constraint;
  bool required() const { return !default_value.has_value(); }
  // A human-readable statement of the constraint ("in [0, 1]", "one of 'CHW', 'HWC'"), or "".
  std::string ConstraintText() const;
};

// The constant arguments of one call after type coercion, for cross-argument checks.
class ArgView {
 public:
  ArgView(const OpSpec& spec, const class OpSchema& schema) : spec_(spec), schema_(schema) {}
  bool Given(const std::string& name) const;  // as a constant or per sample
  bool IsArgInput(const std::string& name) const { return spec_.arg_inputs.count(name) > 0; }
  // The constant value (the given one or the default); nullptr for argument inputs and for
  // required arguments not given.
  const Value* Get(const std::string& name) const;
  std::vector<double> Numbers(const std::string& name) const;  // numeric scalar or list; {} if absent
  std::string String(const std::string& name) const;           // "" if absent or not a string
  const OpSpec& spec() const { return spec_; }

 private:
  const OpSpec& spec_;
  const OpSchema& schema_;
};

// A rule over several arguments. Throws ArgCheckError naming the argument at fault.
using ArgCheck = std::function<void(const ArgView&)>;
struct ArgCheckError {
  std::string argument;
  std::string message;
};

// The layouts an input accepts, declared in its schema and checked by the framework for every batch
// before Setup (NodeRunner), so that an operator reads its input's layout (Operator::InputLayout)
// but does not validate it. Built from the layouts of one item (the base layouts: "HWC", "CHW",
// "HW") and the forms derived from them:
//   InputLayouts{"HWC"}                               HWC
//   InputLayouts{"HWC", "CHW", "HW"}.AllowSequence()  also FHWC, FCHW, FHW (sequences of frames)
//   InputLayouts{"HWC"}.AllowSequence().AllowVolume() HWC, FHWC, DHWC, FDHWC
//   InputLayouts::AnySequence()                       any layout that begins with F ("F...")
// Every sample must have as many dimensions as the layout has letters. A batch without a layout
// is accepted unless RequireLayout() is given, and is read as the first base layout with the
// samples' number of dimensions (HWC for 3-D and HW for 2-D samples of {"HWC", "CHW", "HW"}); with
// AnySequence it is read as no layout, of any number of dimensions.
class InputLayouts {
 public:
  InputLayouts() = default;  // not declared: any layout, nothing checked
  InputLayouts(std::initializer_list<std::string> base);
  static InputLayouts AnySequence();
  // Also every base layout with a leading F (FHWC): a sequence of such items.
  InputLayouts& AllowSequence();
  // Also every base layout with a depth axis D before H (DHWC, CDHW, DHW): volumes; with
  // AllowSequence, sequences of volumes too (FDHWC).
  InputLayouts& AllowVolume();
  // A batch without a layout is an error.
  InputLayouts& RequireLayout();

  bool declared() const { return any_sequence_ || !base_.empty(); }
  bool empty_accepted() const { return empty_accepted_; }
  // Whether a batch with the (non-empty) `layout` is accepted.
  bool Accepts(const std::string& layout) const;
  // The layout an accepted batch is read as: `layout` when it is set, else the first base layout
  // of `ndim` letters ("" with AnySequence, which reads no layout); nullopt when a batch without a
  // layout is not accepted or no base layout has `ndim` letters.
  std::optional<std::string> Resolve(const std::string& layout, int ndim) const;
  // The base layouts a batch without a layout can be read as: the first of each length.
  std::vector<std::string> ReadWithoutLayout() const;
  // Every accepted layout: the base layouts in declaration order, then their sequence, volume and
  // sequence-of-volume forms. Empty with AnySequence (which has no finite list).
  std::vector<std::string> Accepted() const;
  // The accepted layouts in words, for messages: "HWC, CHW or HW (or FHWC, FCHW, FHW)".
  std::string Text() const;
  // Text() and how a batch without a layout is read, for the docs:
  // "HWC or HW (or FHWC, FHW); none: HWC or HW by the number of dimensions".
  std::string DocText() const;

 private:
  std::vector<std::string> base_;
  bool any_sequence_ = false;
  bool sequence_ = false;
  bool volume_ = false;
  bool empty_accepted_ = true;
};

struct InputSchema {
  std::string name;
  std::string doc;
  std::vector<DType> dtypes;  // empty: any
  InputLayouts layouts;       // not declared: any
};

using OperatorFactory = std::function<std::unique_ptr<Operator>(const OpSpec&)>;

// Graph-pass hooks (see pipeline/scaled_decode.h): the smallest (height, width) of input 0 that this
// operator's output needs for every image -- the input may be produced at any size at or above it
// without changing the result's size; nullopt when the arguments do not bound it.
using MinInputSizeFn = std::function<std::optional<std::array<int64_t, 2>>(const OpSpec&)>;
// A producer that can make its output smaller on request: `hint_arg` (an int list [h, w]) asks for
// it, and the bool argument `enable_arg` lets the user turn the pass off.
struct SizeHint {
  std::string hint_arg;
  std::string enable_arg;
};

// ROI-decode hooks (see pipeline/roi_decode.h). Which part of input 0 an operator with given
// constant arguments reads, for any extents of that input.
class RegionMap {
 public:
  virtual ~RegionMap() = default;
  // The extents (height, width) of output 0 for an in_h x in_w input.
  virtual std::array<int, 2> OutputSize(int in_h, int in_w) const = 0;
  // The part of an in_h x in_w input that the window `out` of output 0 is computed from (inside
  // the input; empty when it reads nothing).
  virtual kernels::CropWindow InputWindow(int in_h, int in_w, const kernels::CropWindow& out) const = 0;
};
// The RegionMap of an operator, or nullptr where its arguments do not fix one (per-sample
// arguments, an output that is not exact over a window of its input, ...).
using RegionMapFn = std::function<std::shared_ptr<const RegionMap>(const OpSpec&)>;
// A producer that can produce only a window of its output (a decoder): `rule_arg` (a string
// list) receives its consumers' specs (operators/decode/roi_rule.h), from which it finds each
// sample's window, and `enable_arg` (bool) lets the user turn the pass off.
struct WindowedOutput {
  std::string rule_arg;
  std::string enable_arg;
};
// An operator that does the work of a chain of operators in one step per sample (a fusion): the
// chain's operator names, producer first, each read by the next as its only consumer; the
// string-list argument that receives their specs (operators/op_spec_encoding.h), and
// the one that receives each one's per-sample argument names (comma-separated). The pass
// (pipeline/operator_fusion.h) replaces such chains when the check passes.
struct FusedChain {
  std::vector<std::string> ops;
  std::string specs_arg;
  std::string arg_inputs_arg;
  std::function<bool(const std::vector<const OpSpec*>&)> check;  // may be empty: always
};

class OpSchema {
 public:
  explicit OpSchema(std::string name);

  // Builder: each returns *this so a schema reads as one declaration.
  OpSchema& Doc(std::string doc);
  OpSchema& Input(std::string name, std::string doc, std::vector<DType> dtypes = {}, InputLayouts layouts = {});
  OpSchema& OptionalInputs(int count);  // the last `count` inputs may be omitted
  OpSchema& Output(std::string name, std::string doc);
  // The number of outputs depends on the arguments (e.g. one per `ext` entry of a reader).
  OpSchema& NumOutputsFn(std::function<int(const OpSpec&)> fn);
  OpSchema& Arg(std::string name, ArgType type, std::optional<Value> default_value, std::string doc,
                bool per_sample = false);
  // Constraints on the argument declared last (checked at the call; see ArgConstraint).
  OpSchema& Range(double lo, double hi);  // lo <= x <= hi
  OpSchema& Min(double lo);               // x >= lo
  OpSchema& Above(double lo);             // x > lo
  OpSchema& Enum(std::vector<std::string> choices, bool int_aliases = false);
  OpSchema& Count(std::vector<int> allowed_counts);  // a list argument's allowed lengths
  OpSchema& Layout();
  // A rule over several arguments, run after each argument's own checks.
  OpSchema& Check(ArgCheck check);
  OpSchema& Backends(std::vector<std::string> devices);
  OpSchema& Random();
  OpSchema& Reader();
  // The operator works on one item (an image) and runs on a sequence (input 0's layout begins
  // with F: FHWC, FCHW) frame by frame: the pipeline unfolds the frames into samples, repeats each
  // sample's per-sample arguments for its frames (so every frame of a sample gets the same values,
  // random ones included) or splits per-frame ones (fn.per_frame: an argument input whose layout
  // begins with F), runs the operator, and folds the frames back (pipeline/sequence_unfold.h).
  OpSchema& UnfoldsSequences();
  // Arguments that must not be given together, e.g. {"resize_shorter", "size"}.
  OpSchema& Exclusive(std::vector<std::string> names);
  OpSchema& Factory(std::string device, OperatorFactory f);
  OpSchema& MinInputSize(MinInputSizeFn fn);
  OpSchema& AcceptsSizeHint(std::string hint_arg, std::string enable_arg);
  OpSchema& InputRegion(RegionMapFn fn);
  OpSchema& ProducesWindows(std::string rule_arg, std::string enable_arg);
  // The per-sample int-list argument through which this operator accepts input 0 as a window
  // [y, x, full_height, full_width] of a bigger image and computes as if it had the whole image.
  OpSchema& AcceptsInputWindow(std::string window_arg);
  // This operator fuses `chain` (see FusedChain).
  OpSchema& Fuses(FusedChain chain);

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
  bool unfolds_sequences() const { return unfolds_sequences_; }
  const std::vector<std::vector<std::string>>& exclusive_groups() const { return exclusive_; }
  // DALI's deprecated arguments, accepted so that ported code runs (DALI warns about them too):
  // a renamed one is an alias of its replacement (validation moves it there; both at once is an
  // error), a retired one is accepted and dropped. Neither is one of args().
  OpSchema& RenamedArg(std::string old_name, std::string new_name);
  OpSchema& RetiredArg(std::string name);
  // Old name -> new name, or "" for a retired argument.
  const std::map<std::string, std::string>& deprecated_args() const { return deprecated_; }
  const std::vector<ArgCheck>& checks() const { return checks_; }
  const MinInputSizeFn& min_input_size() const { return min_input_size_; }
  const std::optional<SizeHint>& size_hint() const { return size_hint_; }
  const RegionMapFn& input_region() const { return input_region_; }
  const std::optional<WindowedOutput>& windowed_output() const { return windowed_output_; }
  const std::string& input_window_arg() const { return input_window_arg_; }
  const std::optional<FusedChain>& fused_chain() const { return fused_chain_; }
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
  bool unfolds_sequences_ = false;
  std::vector<std::vector<std::string>> exclusive_;
  std::map<std::string, std::string> deprecated_;
  std::vector<ArgCheck> checks_;
  MinInputSizeFn min_input_size_;
  std::optional<SizeHint> size_hint_;
  RegionMapFn input_region_;
  std::optional<WindowedOutput> windowed_output_;
  std::string input_window_arg_;
  std::optional<FusedChain> fused_chain_;
  size_t last_arg_ = static_cast<size_t>(-1);  // the argument that Range/Enum/... apply to
  ArgSchema& LastArg();
  std::map<std::string, OperatorFactory> factories_;
};

// Converts `v` to the schema type `t` (int->float, scalar->list, dtype names); throws sluice::Error
// ("expected float list, got string 'x'") on a mismatch. The caller adds the operator/argument context.
Value CoerceValue(const Value& v, ArgType t);

// Coerces `v` to the argument's type and checks its constraint; throws sluice::Error with the
// reason (the caller adds operator/argument context).
Value CheckArgValue(const ArgSchema& a, const Value& v);
// Checks one number against the argument's range (per-sample argument inputs).
void CheckArgNumber(const ArgSchema& a, double x);

// "A", "A or B", "A, B or C".
std::string JoinOr(const std::vector<std::string>& items);

// Levenshtein distance, for "did you mean" suggestions.
int EditDistance(const std::string& a, const std::string& b);
// The closest candidate within a small distance, or "" if none is close.
std::string Suggest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace sluice
