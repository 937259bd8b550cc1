#include "operators/slice/slice_window.h"

#include <cmath>

#include <sluice/error.h>

namespace sluice {
namespace {

const char* const kNamed[] = {"start", "rel_start", "end", "rel_end", "shape", "rel_shape"};

}  // namespace

SliceWindowArgs::SliceWindowArgs(const Operator& op)
    : op_(op), normalized_anchor_(op.Arg<bool>("normalized_anchor")), normalized_shape_(op.Arg<bool>("normalized_shape")) {
  for (const char* n : kNamed) named_ = named_ || op.HasArg(n);
}

std::string SliceWindowArgs::FirstNamed() const {
  for (const char* n : kNamed)
    if (op_.HasArg(n)) return n;
  return "start";
}

void SliceWindowArgs::Fail(const std::string& arg, int i, const std::string& msg) const {
  Error::Context c;
  c.op = op_.spec().name;
  c.argument = arg;
  c.sample = i;
  throw Error("per-sample value: " + msg, c);
}

bool SliceWindowArgs::Prepare(const Workspace& ws, int anchor_input) {
  anchor_input_ = anchor_input;
  positional_ = ws.num_inputs() >= anchor_input + 2;
  if (ws.num_inputs() == anchor_input + 1)
    op_.ThrowArgError("anchor", "the anchor and shape inputs go together, got only the anchor");
  if (positional_ && named_)
    op_.ThrowArgError(FirstNamed(), "the named slice arguments (start/end/shape...) cannot be combined with the anchor "
                                    "and shape inputs");
  if (!positional_ && !named_)
    throw Error(op_.spec().op + " needs a window: named arguments (start/rel_start with end/rel_end/shape/rel_shape) "
                "or the anchor and shape inputs");
  if (!positional_)
    for (int k = 0; k < 6; ++k) args_[k] = op_.PerSampleListArg<double>(ws, kNamed[k]);
  return positional_;
}

void SliceWindowArgs::Resolve(const Workspace& ws, int i, size_t naxes, size_t a, double extent, double& start,
                              double& end, std::string& window_arg) const {
  start = 0;
  end = extent;
  if (positional_) {
    window_arg = "anchor";
    Positional(ws, i, naxes, a, extent, start, end);
  } else {
    Named(i, naxes, a, extent, start, end, window_arg);
  }
  if (!std::isfinite(start) || !std::isfinite(end) || std::abs(start) > 9e18 || std::abs(end) > 9e18)
    Fail(window_arg, i, "the slice coordinates are not finite or out of range");
  if (end < start)
    Fail(window_arg, i, "the end (" + std::to_string(end) + ") is before the start (" + std::to_string(start) +
                            ") along sliced axis " + std::to_string(a));
}

void SliceWindowArgs::Positional(const Workspace& ws, int i, size_t naxes, size_t a, double extent, double& start,
                                 double& end) const {
  const TensorList& an = ws.Input(anchor_input_);
  const TensorList& sh = ws.Input(anchor_input_ + 1);
  if (an.num_samples() != ws.batch_size() || sh.num_samples() != ws.batch_size())
    op_.ThrowArgError("anchor", "the anchor and shape inputs must have one sample per data sample");
  const int64_t na = an.shape(i).num_elements(), ns = sh.shape(i).num_elements();
  if (na != static_cast<int64_t>(naxes) || ns != static_cast<int64_t>(naxes))
    Fail(na != static_cast<int64_t>(naxes) ? "anchor" : "shape", i,
         "expected " + std::to_string(naxes) + " values (one per sliced axis), got anchor " + std::to_string(na) +
             " and shape " + std::to_string(ns));
  if (an.dtype() != sh.dtype())
    op_.ThrowArgError("anchor", "the anchor and shape inputs must have the same type, got " +
                                    std::string(ToString(an.dtype())) + " and " + std::string(ToString(sh.dtype())));
  const bool is_float = an.dtype() == DType::kFloat32 || an.dtype() == DType::kFloat64 || an.dtype() == DType::kFloat16;
  const bool norm_a = is_float && normalized_anchor_, norm_s = is_float && normalized_shape_;
  const double av = detail::ReadElement<double>(an, i, static_cast<int64_t>(a));
  const double sv = detail::ReadElement<double>(sh, i, static_cast<int64_t>(a));
  if (sv < 0) Fail("shape", i, "negative slice shape " + std::to_string(sv));
  if (norm_a && norm_s) {  // DALI: multiply once after the sum
    end = (av + sv) * extent;
    start = av * extent;
  } else {
    start = norm_a ? av * extent : av;
    end = start + (norm_s ? sv * extent : sv);
  }
}

void SliceWindowArgs::Named(int i, size_t naxes, size_t a, double extent, double& start, double& end,
                            std::string& window_arg) const {
  const auto k = static_cast<size_t>(i);
  window_arg.clear();
  auto value = [&](int idx) -> const std::vector<double>* {
    const auto& v = args_[idx][k];
    if (v.empty()) return nullptr;
    if (v.size() != naxes)
      Fail(kNamed[idx], i, "expected " + std::to_string(naxes) + " values (one per sliced axis), got " +
                               std::to_string(v.size()));
    if (window_arg.empty()) window_arg = kNamed[idx];
    return &v;
  };
  // DALI's start, end and shape are integer arguments: a fractional value is truncated toward zero
  // (2.9 -> 2, -2.5 -> -2) by its conversion to int; the rel_* arguments are floats.
  const auto* st = value(0);
  const auto* rst = value(1);
  if (st) start = std::trunc((*st)[a]);
  else if (rst) start = (*rst)[a] * extent;
  if (const auto* e = value(2)) {
    end = std::trunc((*e)[a]);
  } else if (const auto* re = value(3)) {
    end = (*re)[a] * extent;
  } else if (const auto* sh = value(4)) {
    if ((*sh)[a] < 0) Fail("shape", i, "negative slice shape " + std::to_string((*sh)[a]));
    end = start + std::trunc((*sh)[a]);
  } else if (const auto* rsh = value(5)) {
    if ((*rsh)[a] < 0) Fail("rel_shape", i, "negative slice shape " + std::to_string((*rsh)[a]));
    end = rst ? ((*rst)[a] + (*rsh)[a]) * extent : start + (*rsh)[a] * extent;  // DALI: one product
  }
  if (window_arg.empty()) window_arg = FirstNamed();
}

}  // namespace sluice
