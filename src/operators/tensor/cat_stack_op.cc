// cat and stack: join the samples of several inputs along an existing axis (cat) or a new one
// (stack), as DALI's fn.cat and fn.stack. Copies bytes, so every type is supported.
#include <cstring>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

constexpr int kMaxInputs = 64;  // DALI takes up to 999

class Join : public Operator {
 public:
  Join(const OpSpec& spec, bool stack)
      : Operator(spec), stack_(stack), axis_(Arg<int64_t>("axis")), axis_name_(Arg<std::string>("axis_name")),
        axis_name_given_(HasArg("axis_name")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const char* op = stack_ ? "stack" : "cat";
    const TensorList& in0 = ws.Input(0);
    const int n = in0.num_samples();
    const int num_in = ws.num_inputs();
    for (int k = 1; k < num_in; ++k) {
      const TensorList& in = ws.Input(k);
      if (in.dtype() != in0.dtype())
        throw Error(std::string(op) + ": input " + std::to_string(k) + " has type " + std::string(ToString(in.dtype())) +
                    ", input 0 has " + std::string(ToString(in0.dtype())) + "; all inputs must have the same type");
      if (in.num_samples() != n)
        throw Error(std::string(op) + ": input " + std::to_string(k) + " has " + std::to_string(in.num_samples()) +
                    " samples, input 0 has " + std::to_string(n));
    }
    if (n == 0) return {{{}, in0.dtype(), "", false}};
    const int nd = in0.shape(0).ndim();
    // The common layout: every non-empty input layout must be the same.
    std::string layout;
    for (int k = 0; k < num_in; ++k) {
      const std::string& l = ws.Input(k).layout();
      if (l.empty()) continue;
      if (!layout.empty() && l != layout)
        throw Error(std::string(op) + ": input " + std::to_string(k) + " has layout '" + l + "', an earlier input '" + layout + "'");
      layout = l;
    }
    int axis = 0;
    if (stack_) {
      if (axis_ < -nd || axis_ > nd)
        ThrowArgError("axis", std::to_string(axis_) + " is out of range [" + std::to_string(-nd) + ", " + std::to_string(nd) +
                                  "] for inputs of " + std::to_string(nd) + " dimensions");
      axis = static_cast<int>(axis_ < 0 ? axis_ + nd + 1 : axis_);
    } else if (axis_name_given_) {
      if (layout.empty()) ThrowArgError("axis_name", "needs an input layout, and the inputs have none");
      const auto pos = axis_name_.size() == 1 ? layout.find(axis_name_[0]) : std::string::npos;
      if (pos == std::string::npos) ThrowArgError("axis_name", "'" + axis_name_ + "' is not an axis of the layout '" + layout + "'");
      axis = static_cast<int>(pos);
    } else {
      if (nd == 0 || axis_ < -nd || axis_ >= nd)
        ThrowArgError("axis", std::to_string(axis_) + " is out of range [" + std::to_string(-nd) + ", " + std::to_string(nd - 1) +
                                  "] for inputs of " + std::to_string(nd) + " dimensions");
      axis = static_cast<int>(axis_ < 0 ? axis_ + nd : axis_);
    }
    axis_pos_ = axis;
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const TensorShape& s0 = ws.Input(0).shape(i);
      std::vector<int64_t> dims = s0.to_vector();
      if (s0.ndim() != nd)
        throw Error(std::string(op) + ": samples differ in their number of dimensions (" + std::to_string(nd) + " and " + std::to_string(s0.ndim()) + ")");
      for (int k = 1; k < num_in; ++k) {
        const TensorShape& s = ws.Input(k).shape(i);
        bool ok = s.ndim() == nd;
        for (int d = 0; ok && d < nd; ++d) ok = s[d] == s0[d] || (!stack_ && d == axis);
        if (!ok)
          throw Error(std::string(op) + ": sample " + std::to_string(i) + " of input " + std::to_string(k) + " has shape " + s.ToString() +
                      ", input 0 has " + s0.ToString() +
                      (stack_ ? "; stacked tensors must have equal shapes" : "; the shapes must match except in the axis " + std::to_string(axis)));
        if (!stack_) dims[static_cast<size_t>(axis)] += s[axis];
      }
      if (stack_) dims.insert(dims.begin() + axis, num_in);
      shapes[static_cast<size_t>(i)] = TensorShape(dims);
    }
    std::string out_layout;
    if (!stack_) {
      out_layout = layout;
    } else if (!axis_name_.empty() && (layout.size() == static_cast<size_t>(nd))) {
      out_layout = layout;
      out_layout.insert(out_layout.begin() + axis, axis_name_[0]);
    } else if (!axis_name_.empty() && nd == 0) {
      out_layout = axis_name_;
    }
    return {{shapes, in0.dtype(), out_layout, false}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const int num_in = ws.num_inputs();
    const size_t elem = SizeOf(ws.Input(0).dtype());
    const TensorShape& s0 = ws.Input(0).shape(i);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis_pos_; ++d) outer *= s0[d];
    for (int d = stack_ ? axis_pos_ : axis_pos_ + 1; d < s0.ndim(); ++d) inner *= s0[d];
    auto* out = static_cast<uint8_t*>(ws.Output(0).raw_mutable_sample(i));
    std::vector<size_t> chunk(static_cast<size_t>(num_in));
    for (int k = 0; k < num_in; ++k)
      chunk[static_cast<size_t>(k)] = static_cast<size_t>((stack_ ? 1 : ws.Input(k).shape(i)[axis_pos_]) * inner) * elem;
    for (int64_t o = 0; o < outer; ++o)
      for (int k = 0; k < num_in; ++k) {
        const size_t c = chunk[static_cast<size_t>(k)];
        if (c) std::memcpy(out, static_cast<const uint8_t*>(ws.Input(k).raw_sample(i)) + static_cast<size_t>(o) * c, c);
        out += c;
      }
  }

 private:
  bool stack_;
  int64_t axis_;
  std::string axis_name_;
  bool axis_name_given_;
  int axis_pos_ = 0;
};

class Cat : public Join {
 public:
  explicit Cat(const OpSpec& spec) : Join(spec, false) {}
};
class Stack : public Join {
 public:
  explicit Stack(const OpSpec& spec) : Join(spec, true) {}
};

OpSchema JoinSchema(const std::string& name, std::string doc) {
  OpSchema s(name);
  s.Doc(std::move(doc));
  for (int k = 0; k < kMaxInputs; ++k) s.Input("input_" + std::to_string(k), "Data to join (all inputs: the same type and number of dimensions).");
  s.OptionalInputs(kMaxInputs - 1).Output("output", "The joined data.");
  return s;
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCatStack) {
  r.Register(JoinSchema("cat", "Joins the inputs' samples along an existing axis (DALI's cat): the shapes must match except "
                               "in that axis. The output keeps the inputs' layout (every non-empty layout must be the same).")
                 .Arg("axis", ArgType::kInt, int64_t{0}, "The axis to join along, in [-ndim, ndim-1] (negative: from the back).")
                 .Arg("axis_name", ArgType::kString, std::string(), "The layout name of the axis to join along (instead of axis).")
                 .Exclusive({"axis", "axis_name"})
                 .Factory("cpu", MakeFactory<Cat>()));
  r.Register(JoinSchema("stack", "Joins the inputs' samples along a new axis (DALI's stack): the shapes must be equal. The "
                                 "new axis goes before input axis `axis`; `axis_name` names it in the output layout.")
                 .Arg("axis", ArgType::kInt, int64_t{0}, "Where the new axis goes in the output, in [-ndim, ndim] (negative: from the back).")
                 .Arg("axis_name", ArgType::kString, std::string(), "One character naming the new axis in the output layout.")
                 .Check([](const ArgView& a) {
                   if (a.String("axis_name").size() > 1)
                     throw ArgCheckError{"axis_name", "must be a single character, got '" + a.String("axis_name") + "'"};
                 })
                 .Factory("cpu", MakeFactory<Stack>()));
}

}  // namespace sluice
