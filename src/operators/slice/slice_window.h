// DALI's slice window arguments (dali/operators/generic/slice/slice_attr.h), shared by slice and
// decoders.image_slice: the window along each sliced axis comes from the named arguments
// start|rel_start with end|rel_end|shape|rel_shape (per sample, one value per sliced axis), or
// from two extra inputs, anchor and shape (float values fractions of the extent when
// normalized_anchor / normalized_shape; integer inputs always absolute). This class turns them into
// [start, end) in pixels (not rounded: callers round each with llround, DALI's rule). As in DALI,
// start, end and shape are integers (fractional values truncated toward zero), rel_* fractions.
//
// Use: construct with the operator (its schema declares the named arguments, normalized_anchor and
// normalized_shape); Prepare() once per batch; then Resolve() per sample and axis.
#pragma once
#include <string>
#include <vector>

#include "operators/operator.h"

namespace sluice {

class SliceWindowArgs {
 public:
  explicit SliceWindowArgs(const Operator& op);

  // Whether any named window argument is given, and the first given (for error messages).
  bool named() const { return named_; }
  std::string FirstNamed() const;

  // Checks the window source for this batch (named arguments or the inputs anchor_input and
  // anchor_input + 1, never both, one of them required) and reads the named arguments' values.
  // Returns true when the window comes from the inputs.
  bool Prepare(const Workspace& ws, int anchor_input);

  // [start, end) along sliced axis a (of naxes) of sample i, whose extent is `extent`; window_arg
  // is set to the argument (or input) the values came from. Throws naming the operator, that
  // argument and the sample for a wrong count of values, a negative shape, or an end before the start.
  void Resolve(const Workspace& ws, int i, size_t naxes, size_t a, double extent, double& start, double& end,
               std::string& window_arg) const;

 private:
  void Positional(const Workspace& ws, int i, size_t naxes, size_t a, double extent, double& start, double& end) const;
  void Named(int i, size_t naxes, size_t a, double extent, double& start, double& end, std::string& window_arg) const;
  [[noreturn]] void Fail(const std::string& arg, int i, const std::string& msg) const;

  const Operator& op_;
  const bool normalized_anchor_, normalized_shape_;
  bool named_ = false;
  bool positional_ = false;
  int anchor_input_ = 1;
  std::vector<std::vector<double>> args_[6];  // per named argument, per sample
};

}  // namespace sluice
