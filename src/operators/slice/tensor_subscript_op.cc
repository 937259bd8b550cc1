// tensor_subscript and subscript_dim_check: what DataNode indexing (x[1:3], x[-1], x[:, 0],
// x[::2], x[i] with a per-sample index) runs, as DALI's operators of those names.
//
// Subscript k applies to dimension k; with `ellipsis_at` = e >= 0 (Sluice only: x[..., 0]) the
// subscripts from e on apply to the last dimensions instead. An index (at_k) picks one element and
// removes the dimension; a range (lo_k, hi_k, step_k) keeps it, with Python's slice rules (negative
// values count from the end, out-of-range bounds are clamped, a negative step runs backwards). Any
// of them may be a per-sample integer input. DALI refuses steps other than 1; Sluice takes them.
#include <algorithm>

#include "kernels/slice/strided_copy.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

constexpr int kMaxSubscripts = 32;

std::string Name(const char* what, int k) { return std::string(what) + "_" + std::to_string(k); }

class TensorSubscript : public Operator {
 public:
  explicit TensorSubscript(const OpSpec& spec)
      : Operator(spec), num_(Arg<int>("num_subscripts")), ellipsis_at_(Arg<int>("ellipsis_at")) {
    for (int k = 0; k < kMaxSubscripts; ++k) {
      Sub s;
      s.at = HasArg(Name("at", k));
      s.lo = HasArg(Name("lo", k));
      s.hi = HasArg(Name("hi", k));
      s.step = HasArg(Name("step", k));
      if ((s.at || s.lo || s.hi || s.step) && k >= num_)
        ThrowArgError(Name(s.at ? "at" : s.lo ? "lo" : s.hi ? "hi" : "step", k),
                      "subscript " + std::to_string(k) + " is past num_subscripts (" + std::to_string(num_) + ")");
      if (s.at && (s.lo || s.hi || s.step))
        ThrowArgError(Name("at", k), "the subscript of dimension " + std::to_string(k) +
                                         " is given both as an index and as a range");
      subs_.push_back(s);
    }
    subs_.resize(static_cast<size_t>(num_));
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    // The per-sample values of every given argument.
    for (int k = 0; k < num_; ++k) {
      Sub& s = subs_[static_cast<size_t>(k)];
      s.at_v = Values(ws, s.at, Name("at", k), n);
      s.lo_v = Values(ws, s.lo, Name("lo", k), n);
      s.hi_v = Values(ws, s.hi, Name("hi", k), n);
      s.step_v = Values(ws, s.step, Name("step", k), n);
    }
    plans_.assign(static_cast<size_t>(n), {});
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    std::vector<char> kept;  // per input dimension, of sample 0 (every sample has the same rank)
    for (int i = 0; i < n; ++i) {
      const TensorShape& sh = in.shape(i);
      const int nd = sh.ndim();
      if (nd == 0) throw Error("tensor_subscript: sample " + std::to_string(i) + " is a scalar: it cannot be indexed");
      if (nd < num_)
        throw Error("tensor_subscript: too many indices: " + std::to_string(num_) + " for sample " + std::to_string(i) +
                    " of shape " + sh.ToString());
      Plan& p = plans_[static_cast<size_t>(i)];
      p.lo.assign(static_cast<size_t>(nd), 0);
      p.step.assign(static_cast<size_t>(nd), 1);
      p.extent.assign(sh.dims().begin(), sh.dims().end());
      std::vector<char> keep(static_cast<size_t>(nd), 1);
      for (int k = 0; k < num_; ++k) {
        const Sub& s = subs_[static_cast<size_t>(k)];
        const int d = ellipsis_at_ >= 0 && k >= ellipsis_at_ ? nd - (num_ - k) : k;
        const int64_t len = sh[d];
        const size_t du = static_cast<size_t>(d), iu = static_cast<size_t>(i);
        if (s.at) {
          const int64_t at = s.at_v[iu], idx = at < 0 ? at + len : at;
          if (idx < 0 || idx >= len)
            throw Error("tensor_subscript: index " + std::to_string(at) + " is out of range for axis " + std::to_string(d) +
                        " of length " + std::to_string(len) + " (sample " + std::to_string(i) + " of shape " +
                        sh.ToString() + ")");
          p.lo[du] = idx;
          p.extent[du] = 1;
          keep[du] = 0;
        } else if (s.lo || s.hi || s.step) {
          const int64_t step = s.step ? s.step_v[iu] : 1;
          if (step == 0) ThrowArgError(Name("step", k), "the step of a slice cannot be 0 (sample " + std::to_string(i) + ")");
          // Python's slice.indices(len).
          auto adjust = [&](int64_t v) {
            if (v < 0) {
              v += len;
              if (v < 0) v = step < 0 ? -1 : 0;
            } else if (v >= len) {
              v = step < 0 ? len - 1 : len;
            }
            return v;
          };
          const int64_t start = s.lo ? adjust(s.lo_v[iu]) : (step < 0 ? len - 1 : 0);
          const int64_t stop = s.hi ? adjust(s.hi_v[iu]) : (step < 0 ? -1 : len);
          int64_t count = 0;
          if (step > 0 && start < stop) count = (stop - start - 1) / step + 1;
          if (step < 0 && stop < start) count = (start - stop - 1) / (-step) + 1;
          p.lo[du] = count ? start : 0;
          p.step[du] = step;
          p.extent[du] = count;
        }
      }
      std::vector<int64_t> out;
      for (int d = 0; d < nd; ++d)
        if (keep[static_cast<size_t>(d)]) out.push_back(p.extent[static_cast<size_t>(d)]);
      shapes[static_cast<size_t>(i)] = TensorShape(out);
      if (i == 0) kept = keep;
    }
    std::string layout;
    const std::string& in_layout = in.layout();
    if (!in_layout.empty() && n > 0 && in_layout.size() == kept.size())
      for (size_t d = 0; d < kept.size(); ++d)
        if (kept[d]) layout += in_layout[d];
    return {{shapes, in.dtype(), layout, n > 0 && std::all_of(shapes.begin(), shapes.end(), [&](const TensorShape& s) {
               return s == shapes[0];
             })}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const Plan& p = plans_[static_cast<size_t>(i)];
    kernels::StridedCopy(in.raw_sample(i), in.shape(i).dims(), p.lo, p.step, p.extent,
                         ws.Output(0).raw_mutable_sample(i), SizeOf(in.dtype()));
  }

 private:
  struct Sub {
    bool at = false, lo = false, hi = false, step = false;
    std::vector<int64_t> at_v, lo_v, hi_v, step_v;
  };
  struct Plan {
    std::vector<int64_t> lo, step, extent;  // per input dimension; extent 1 at an index
  };

  std::vector<int64_t> Values(const Workspace& ws, bool given, const std::string& name, int n) const {
    if (!given) return {};
    if (const TensorList* t = ws.ArgInput(name)) {
      if (IsFloating(t->dtype()) || t->dtype() == DType::kBool)
        ThrowArgError(name, std::string("an index must be of an integer type, got ") + std::string(ToString(t->dtype())));
    }
    std::vector<int64_t> v = PerSampleArg<int64_t>(ws, name);
    if (static_cast<int>(v.size()) != n)
      ThrowArgError(name, "has " + std::to_string(v.size()) + " values for a batch of " + std::to_string(n));
    return v;
  }

  const int num_;
  const int ellipsis_at_;
  std::vector<Sub> subs_;
  std::vector<Plan> plans_;
};

// x[:, :] without an index: only checks that the samples have enough dimensions; the output is the
// input itself (a view).
class SubscriptDimCheck : public Operator {
 public:
  explicit SubscriptDimCheck(const OpSpec& spec) : Operator(spec), num_(Arg<int>("num_subscripts")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    for (int i = 0; i < in.num_samples(); ++i)
      if (in.shape(i).ndim() < num_)
        throw Error("subscript_dim_check: too many indices: " + std::to_string(num_) + " for sample " + std::to_string(i) +
                    " of shape " + in.shape(i).ToString());
    OutputDesc d{in.shapes(), in.dtype(), in.layout(), false};
    d.views = true;
    return {d};
  }

  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    for (int i = 0; i < in.num_samples(); ++i) ws.Output(0).ShareSample(i, in, i, 0);
  }

 private:
  const int num_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterTensorSubscript) {
  OpSchema s("tensor_subscript");
  s.Doc("Indexes and slices each sample, as Python does (what DataNode indexing x[...] calls; DALI's "
        "tensor_subscript). Subscript k applies to dimension k: at_k picks one element and removes the dimension; "
        "lo_k, hi_k and step_k slice it (Python's rules: negative values count from the end, bounds are clamped, a "
        "negative step runs backwards). Each may be a constant or a per-sample integer input. The layout loses the "
        "letters of indexed dimensions. Sluice also takes steps other than 1 (DALI refuses them) and, with "
        "ellipsis_at, x[..., k].")
      .Input("input", "Tensors of any type, at least num_subscripts dimensions.")
      .Output("output", "The selected elements (a copy).")
      .Arg("num_subscripts", ArgType::kInt, int64_t{0}, "How many dimensions the subscripts address.")
      .Range(0, kMaxSubscripts)
      .Arg("ellipsis_at", ArgType::kInt, int64_t{-1},
           "Sluice only: the position of `...` among the subscripts (-1: none): subscripts from it on address the "
           "last dimensions.")
      .Min(-1);
  for (int k = 0; k < kMaxSubscripts; ++k) {
    const std::string d = std::to_string(k);
    s.Arg("at_" + d, ArgType::kInt, int64_t{0}, "Index in dimension " + d + " (removes the dimension).", true)
        .Arg("lo_" + d, ArgType::kInt, int64_t{0}, "Start of the slice of dimension " + d + ".", true)
        .Arg("hi_" + d, ArgType::kInt, int64_t{0}, "End (exclusive) of the slice of dimension " + d + ".", true)
        .Arg("step_" + d, ArgType::kInt, int64_t{1}, "Step of the slice of dimension " + d + ".", true);
  }
  s.Factory("cpu", MakeFactory<TensorSubscript>());
  r.Register(std::move(s));

  r.Register(OpSchema("subscript_dim_check")
                 .Doc("Checks that every sample has at least num_subscripts dimensions and passes the input on "
                      "(DataNode indexing with full-range subscripts only, x[:, :]; DALI's subscript_dim_check).")
                 .Input("input", "Tensors of any type.")
                 .Output("output", "The input (a view).")
                 .Arg("num_subscripts", ArgType::kInt, int64_t{0}, "How many subscripts were given.")
                 .Range(0, kMaxSubscripts)
                 .Factory("cpu", MakeFactory<SubscriptDimCheck>()));
}

}  // namespace sluice
