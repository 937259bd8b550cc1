// squeeze and expand_dims: remove or insert dimensions of extent 1 (DALI's fn.squeeze and
// fn.expand_dims). Only shapes and layouts change: the output is a view of the input's memory.
#include <algorithm>
#include <set>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// The output's shapes come from Setup (an OutputDesc with views); Run shares the input's memory.
class ShapeOnlyOp : public Operator {
 public:
  using Operator::Operator;
  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    const std::vector<TensorShape> shapes = out.shapes();
    out.ShareBatch(ws.Input(0), shapes, out.dtype());
  }

 protected:
  static std::vector<OutputDesc> Views(std::vector<TensorShape> shapes, DType dtype, std::string layout) {
    OutputDesc d{std::move(shapes), dtype, std::move(layout), false};
    d.views = true;
    return {std::move(d)};
  }
};

class Squeeze : public ShapeOnlyOp {
 public:
  explicit Squeeze(const OpSpec& spec)
      : ShapeOnlyOp(spec), axes_(Arg<std::vector<int64_t>>("axes")), names_(Arg<std::string>("axis_names")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    if (n == 0) return Views({}, in.dtype(), "");
    const int nd = in.shape(0).ndim();
    std::set<int> remove;
    if (!names_.empty()) {
      for (char c : names_) {
        const auto pos = in.layout().find(c);
        if (pos == std::string::npos)
          ThrowArgError("axis_names", std::string("'") + c + "' is not in the input layout '" + in.layout() + "'");
        remove.insert(static_cast<int>(pos));
      }
    } else {
      for (int64_t a : axes_) {
        if (a < -nd || a >= nd)
          ThrowArgError("axes", std::to_string(a) + " is out of range for an input of " + std::to_string(nd) + " dimensions");
        remove.insert(static_cast<int>(a < 0 ? a + nd : a));
      }
    }
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      if (s.ndim() != nd)
        throw Error("squeeze: samples differ in their number of dimensions (" + std::to_string(nd) + " and " + std::to_string(s.ndim()) + ")");
      std::vector<int64_t> dims;
      for (int d = 0; d < nd; ++d) {
        if (!remove.count(d)) { dims.push_back(s[d]); continue; }
        if (s[d] != 1 && s.num_elements() != 0)
          ThrowArgError(names_.empty() ? "axes" : "axis_names", "cannot remove dimension " + std::to_string(d) + " of extent " +
                                                                   std::to_string(s[d]) + " (sample " + std::to_string(i) + ", shape " + s.ToString() + "); only extents of 1 can be removed");
      }
      shapes[static_cast<size_t>(i)] = TensorShape(dims);
    }
    std::string layout;
    if (static_cast<int>(in.layout().size()) == nd)
      for (int d = 0; d < nd; ++d)
        if (!remove.count(d)) layout += in.layout()[static_cast<size_t>(d)];
    return Views(std::move(shapes), in.dtype(), std::move(layout));
  }

 private:
  std::vector<int64_t> axes_;
  std::string names_;
};

class ExpandDims : public ShapeOnlyOp {
 public:
  explicit ExpandDims(const OpSpec& spec)
      : ShapeOnlyOp(spec), axes_(Arg<std::vector<int64_t>>("axes")), names_(Arg<std::string>("new_axis_names")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    if (n == 0) return Views({}, in.dtype(), "");
    const int nd = in.shape(0).ndim();
    const int out_nd = nd + static_cast<int>(axes_.size());
    std::vector<int> order(axes_.size());  // order[k]: index into axes_ of the k-th smallest axis
    for (size_t k = 0; k < axes_.size(); ++k) {
      if (axes_[k] < 0 || axes_[k] >= out_nd)
        ThrowArgError("axes", std::to_string(axes_[k]) + " is out of range: the output has " + std::to_string(out_nd) +
                                  " dimensions (valid: 0 to " + std::to_string(out_nd - 1) + ")");
      order[k] = static_cast<int>(k);
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) { return axes_[static_cast<size_t>(a)] < axes_[static_cast<size_t>(b)]; });
    for (size_t k = 1; k < order.size(); ++k)
      if (axes_[static_cast<size_t>(order[k])] == axes_[static_cast<size_t>(order[k - 1])])
        ThrowArgError("axes", "lists " + std::to_string(axes_[static_cast<size_t>(order[k])]) + " twice");
    std::vector<int> new_at(static_cast<size_t>(out_nd), -1);  // output dim -> index into axes_, or -1
    for (size_t k = 0; k < axes_.size(); ++k) new_at[static_cast<size_t>(axes_[k])] = static_cast<int>(k);
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      if (s.ndim() != nd)
        throw Error("expand_dims: samples differ in their number of dimensions (" + std::to_string(nd) + " and " + std::to_string(s.ndim()) + ")");
      std::vector<int64_t> dims;
      int src = 0;
      for (int d = 0; d < out_nd; ++d) dims.push_back(new_at[static_cast<size_t>(d)] >= 0 ? 1 : s[src++]);
      shapes[static_cast<size_t>(i)] = TensorShape(dims);
    }
    std::string layout;
    if (!names_.empty()) {
      if (names_.size() != axes_.size())
        ThrowArgError("new_axis_names", "has " + std::to_string(names_.size()) + " names, axes " + std::to_string(axes_.size()));
      if (static_cast<int>(in.layout().size()) == nd) {
        int src = 0;
        for (int d = 0; d < out_nd; ++d)
          layout += new_at[static_cast<size_t>(d)] >= 0 ? names_[static_cast<size_t>(new_at[static_cast<size_t>(d)])]
                                                       : in.layout()[static_cast<size_t>(src++)];
      }
    }
    return Views(std::move(shapes), in.dtype(), std::move(layout));
  }

 private:
  std::vector<int64_t> axes_;
  std::string names_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterSqueezeExpandDims) {
  r.Register(OpSchema("squeeze")
                 .Doc("Removes the dimensions given by `axes` or `axis_names` (DALI's squeeze). Each must have extent 1 "
                      "(or the sample be empty). The layout loses the removed names.")
                 .Input("data", "Data to be squeezed (any type).")
                 .Output("output", "The squeezed data.")
                 .Arg("axes", ArgType::kIntList, std::vector<int64_t>{}, "Indices of the dimensions to remove (negative: from the end).")
                 .Arg("axis_names", ArgType::kString, std::string(), "Layout names of the dimensions to remove.")
                 .Exclusive({"axes", "axis_names"})
                 .Factory("cpu", MakeFactory<Squeeze>()));
  r.Register(OpSchema("expand_dims")
                 .Doc("Inserts dimensions of extent 1 at the output positions `axes` (DALI's expand_dims). With "
                      "`new_axis_names` their names go into the layout; without it the output has no layout.")
                 .Input("data", "Data to be expanded (any type).")
                 .Output("output", "The expanded data.")
                 .Arg("axes", ArgType::kIntList, std::nullopt, "Indices, in the output, of the new dimensions.")
                 .Arg("new_axis_names", ArgType::kString, std::string(), "Names of the new dimensions, one per axis.")
                 .Factory("cpu", MakeFactory<ExpandDims>()));
}

}  // namespace sluice
