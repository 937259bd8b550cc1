// _select.split, _select.merge and _select.table: the per-sample switch over sub-graphs that
// sluice.auto_aug is built on (DALI gets the same from its conditionals' split and merge).
//
// split(data, index, branch=k) keeps the rows whose index is k, in order; every operator of branch
// k then runs on that partial batch only, so a sample pays for the one augmentation it was dealt.
// merge(index, b0, b1, ...) puts each row back where it came from. Neither copies: their rows are
// views of their inputs' samples (TensorList::ShareSample), which keep those alive. table(index) turns a per-sample
// magnitude bin into the augmentation's parameter (DALI: types.Constant(params)[bin]).
#include <string>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// The index of sample i: an integer scalar (any integer or bool type, shape () or one element).
int64_t IndexOf(const TensorList& index, int i, const char* op) {
  if (index.shape(i).num_elements() != 1)
    throw Error(std::string(op) + ": sample " + std::to_string(i) + " of 'index' has shape " + index.shape(i).ToString() +
                "; expected an integer scalar");
  return VisitDType(index.dtype(), [&](auto t) -> int64_t {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16>) {
      throw Error(std::string(op) + ": 'index' must be an integer type, got " + std::string(ToString(index.dtype())));
    } else {
      return static_cast<int64_t>(index.sample<T>(i)[0]);
    }
  });
}

class SelectSplit : public Operator {
 public:
  explicit SelectSplit(const OpSpec& spec) : Operator(spec), branch_(Arg<int64_t>("branch")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& data = ws.Input(0);
    const TensorList& index = ws.Input(1);
    if (index.num_samples() != data.num_samples())
      throw Error("_select.split: 'index' has " + std::to_string(index.num_samples()) + " samples, 'data' has " +
                  std::to_string(data.num_samples()));
    rows_.clear();
    std::vector<TensorShape> shapes;
    for (int i = 0; i < data.num_samples(); ++i) {
      if (IndexOf(index, i, "_select.split") != branch_) continue;
      rows_.push_back(i);
      shapes.push_back(data.shape(i));
    }
    OutputDesc d{std::move(shapes), data.dtype(), data.layout(), false};
    d.views = true;
    return {std::move(d)};
  }

  // Not Operator::Run: that visits the batch size, which is the input's row count, not the
  // output's. A view per row: no copy, nothing worth the thread pool.
  void Run(Workspace& ws) override {
    const TensorList& data = ws.Input(0);
    TensorList& out = ws.Output(0);
    for (size_t j = 0; j < rows_.size(); ++j) {
      out.source(static_cast<int>(j)) = data.source(rows_[j]);
      out.ShareSample(static_cast<int>(j), data, rows_[j]);
    }
  }

 private:
  int64_t branch_;
  std::vector<int> rows_;  // input row of each output row
};

class SelectMerge : public Operator {
 public:
  using Operator::Operator;

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& index = ws.Input(0);
    const int branches = ws.num_inputs() - 1;
    if (branches < 1) throw Error("_select.merge: needs at least one branch input after 'index'");
    const int n = index.num_samples();
    from_.assign(static_cast<size_t>(n), {0, 0});
    std::vector<int> taken(static_cast<size_t>(branches), 0);
    for (int i = 0; i < n; ++i) {
      const int64_t b = IndexOf(index, i, "_select.merge");
      if (b < 0 || b >= branches)
        throw Error("_select.merge: sample " + std::to_string(i) + " selects branch " + std::to_string(b) + " of " +
                    std::to_string(branches));
      from_[static_cast<size_t>(i)] = {static_cast<int>(b), taken[static_cast<size_t>(b)]++};
    }
    // The branch that defines the output's type and layout: the first that produced rows.
    int ref = -1;
    for (int b = 0; b < branches; ++b) {
      const TensorList& in = ws.Input(b + 1);
      if (in.num_samples() != taken[static_cast<size_t>(b)])
        throw Error("_select.merge: branch " + std::to_string(b) + " returned " + std::to_string(in.num_samples()) +
                    " samples for the " + std::to_string(taken[static_cast<size_t>(b)]) +
                    " it was given (a branch must map each sample to one sample)");
      if (in.num_samples() == 0) continue;
      if (ref < 0) {
        ref = b;
        continue;
      }
      const TensorList& r = ws.Input(ref + 1);
      if (in.dtype() != r.dtype())
        throw Error("_select.merge: branch " + std::to_string(b) + " produces " + std::string(ToString(in.dtype())) +
                    " and branch " + std::to_string(ref) + " " + std::string(ToString(r.dtype())) +
                    "; every branch must produce the same type");
      if (in.layout() != r.layout())
        throw Error("_select.merge: branch " + std::to_string(b) + " produces layout '" + in.layout() + "' and branch " +
                    std::to_string(ref) + " '" + r.layout() + "'; every branch must produce the same layout");
    }
    const TensorList& r = ws.Input((ref < 0 ? 0 : ref) + 1);
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const auto [b, row] = from_[static_cast<size_t>(i)];
      shapes[static_cast<size_t>(i)] = ws.Input(b + 1).shape(row);
    }
    OutputDesc d{std::move(shapes), r.dtype(), r.layout(), false};
    d.views = true;
    return {std::move(d)};
  }

  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    for (int i = 0; i < out.num_samples(); ++i) {
      const auto [b, row] = from_[static_cast<size_t>(i)];
      out.source(i) = ws.Input(b + 1).source(row);
      out.ShareSample(i, ws.Input(b + 1), row);
    }
  }

 private:
  std::vector<std::pair<int, int>> from_;  // (branch, row in the branch) of each output row
};

class SelectTable : public Operator {
 public:
  explicit SelectTable(const OpSpec& spec)
      : Operator(spec), values_(Arg<std::vector<double>>("values")), dtype_(Arg<DType>("dtype")), entry_index_(Arg<int64_t>("entry")) {
    for (int64_t d : Arg<std::vector<int64_t>>("shape")) {
      if (d < 0) ThrowArgError("shape", "extents must be >= 0");
      entry_.push_back(d);
    }
    entry_elems_ = 1;
    for (int64_t d : entry_) entry_elems_ *= d;
    if (entry_elems_ == 0 || values_.size() % static_cast<size_t>(entry_elems_) != 0)
      ThrowArgError("values", std::to_string(values_.size()) + " values do not make whole entries of shape " +
                                  TensorShape(entry_).ToString());
    entries_ = static_cast<int64_t>(values_.size()) / entry_elems_;
    if (entry_index_ >= entries_)
      ThrowArgError("entry", std::to_string(entry_index_) + " is past the table's " + std::to_string(entries_) + " entries");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& index = ws.Input(0);
    rows_.resize(static_cast<size_t>(index.num_samples()));
    for (int i = 0; i < index.num_samples(); ++i) {
      const int64_t k = entry_index_ >= 0 ? entry_index_ : IndexOf(index, i, "_select.table");
      if (k < 0 || k >= entries_)
        throw Error("_select.table: sample " + std::to_string(i) + " has index " + std::to_string(k) + ", the table has " +
                    std::to_string(entries_) + " entries");
      rows_[static_cast<size_t>(i)] = k;
    }
    return {{std::vector<TensorShape>(rows_.size(), TensorShape(entry_)), dtype_, "", true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const double* src = values_.data() + rows_[static_cast<size_t>(i)] * entry_elems_;
    VisitDType(dtype_, [&](auto t) {
      using T = decltype(t);
      T* dst = ws.Output(0).mutable_sample<T>(i);
      for (int64_t e = 0; e < entry_elems_; ++e) {
        if constexpr (std::is_same_v<T, float16>) dst[e] = float16(static_cast<float>(src[e]));
        else dst[e] = static_cast<T>(src[e]);
      }
    });
  }

 private:
  std::vector<double> values_;
  DType dtype_;
  std::vector<int64_t> entry_;
  int64_t entry_elems_ = 1;
  int64_t entries_ = 0;
  int64_t entry_index_;  // >= 0: every sample takes this entry (the input then only gives the row count)
  std::vector<int64_t> rows_;
};

constexpr int kMaxBranches = 64;

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterSelect) {
  r.Register(OpSchema("_select.split")
                 .Doc("Sluice-internal (sluice.auto_aug): the rows of `data` whose `index` equals `branch`, in order.")
                 .Input("data", "Any data.")
                 .Input("index", "An integer scalar per sample: the branch the sample goes to.")
                 .Output("output", "The partial batch of branch `branch`.")
                 .Arg("branch", ArgType::kInt, int64_t{0}, "The branch whose rows are kept.")
                 .Min(0)
                 .Factory("cpu", MakeFactory<SelectSplit>()));
  OpSchema merge("_select.merge");
  merge.Doc("Sluice-internal (sluice.auto_aug): row i is the next row of branch `index[i]`, undoing _select.split.")
      .Input("index", "An integer scalar per sample: the branch each output row comes from.");
  for (int b = 0; b < kMaxBranches; ++b) merge.Input("branch_" + std::to_string(b), "The output of one branch.");
  merge.OptionalInputs(kMaxBranches - 1).Output("output", "The merged batch.").Factory("cpu", MakeFactory<SelectMerge>());
  r.Register(std::move(merge));
  r.Register(OpSchema("_select.table")
                 .Doc("Sluice-internal (sluice.auto_aug): entry `index[i]` of a constant table, per sample "
                      "(DALI: types.Constant(table)[index]).")
                 .Input("index", "An integer scalar per sample (with `entry`: any data, giving the number of samples).")
                 .Output("output", "One table entry per sample.")
                 .Arg("entry", ArgType::kInt, int64_t{-1}, "If >= 0, the entry every sample takes.")
                 .Arg("values", ArgType::kFloatList, std::vector<double>{}, "The table, entries one after another.")
                 .Arg("shape", ArgType::kIntList, std::vector<int64_t>{}, "The shape of one entry ([] for scalars).")
                 .Arg("dtype", ArgType::kDType, std::string("float32"), "The output type.")
                 .Factory("cpu", MakeFactory<SelectTable>()));
}

}  // namespace sluice
