// one_hot: a one-hot encoding of class indices (labels -> soft-label targets for MixUp/CutMix).
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// Converts a double to T (float16 through float).
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, float16>) return float16(static_cast<float>(v));
  else return static_cast<T>(v);
}

class OneHot : public Operator {
 public:
  explicit OneHot(const OpSpec& spec)
      : Operator(spec),
        num_classes_(Arg<int64_t>("num_classes")),
        axis_(Arg<int64_t>("axis")),
        axis_given_(HasArg("axis")),
        dtype_(Arg<DType>("dtype")),
        on_(Arg<double>("on_value")),
        off_(Arg<double>("off_value")),
        axis_name_(Arg<std::string>("axis_name")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    // DALI's legacy rule: when every sample holds one element (and axis is not given) the input is
    // a batch of scalars, whatever its dimensions ([1]-shaped labels from readers included).
    scalars_ = !axis_given_;
    for (int i = 0; i < n && scalars_; ++i) scalars_ = in.shape(i).num_elements() == 1;
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    const int nd = n ? in.shape(0).ndim() : 0;
    int pos = 0;
    if (!scalars_) {
      pos = axis_ < 0 ? nd : static_cast<int>(axis_);
      if (axis_ < -1 || pos > nd)
        ThrowArgError("axis", "must be in [-1, " + std::to_string(nd) + "] for inputs of " + std::to_string(nd) +
                                  " dimensions, got " + std::to_string(axis_));
    }
    for (int i = 0; i < n; ++i) {
      if (scalars_) {
        shapes[static_cast<size_t>(i)] = TensorShape{num_classes_};
        continue;
      }
      if (in.shape(i).ndim() != nd)
        throw Error("samples differ in their number of dimensions (" + std::to_string(nd) + " and " +
                    std::to_string(in.shape(i).ndim()) + ")");
      const auto d = in.shape(i).dims();
      std::vector<int64_t> dims(d.begin(), d.end());
      dims.insert(dims.begin() + pos, num_classes_);
      shapes[static_cast<size_t>(i)] = TensorShape(dims);
    }
    axis_pos_ = pos;
    std::string layout;
    if (!axis_name_.empty()) {
      if (scalars_) {
        layout = axis_name_;
      } else if (static_cast<int>(in.layout().size()) == nd) {
        layout = in.layout();
        layout.insert(layout.begin() + pos, axis_name_[0]);
      }
    }
    return {{shapes, dtype_, layout, true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const int64_t elems = in.shape(i).num_elements();
    // Output index: [outer, class, inner] with outer x inner = the input's elements.
    int64_t inner = 1;
    if (!scalars_) {
      const auto& d = in.shape(i).dims();
      for (size_t k = static_cast<size_t>(axis_pos_); k < d.size(); ++k) inner *= d[k];
    }
    const int64_t outer = scalars_ ? 1 : (inner ? elems / inner : 0);
    const int64_t count = scalars_ ? 1 : elems;
    std::vector<int64_t> cls(static_cast<size_t>(count));
    VisitDType(in.dtype(), [&](auto tag) {
      using In = decltype(tag);
      const In* p = in.sample<In>(i);
      for (int64_t e = 0; e < count; ++e) {
        if constexpr (std::is_same_v<In, float16>) cls[static_cast<size_t>(e)] = static_cast<int64_t>(static_cast<float>(p[e]));
        else cls[static_cast<size_t>(e)] = static_cast<int64_t>(p[e]);
      }
    });
    VisitDType(dtype_, [&](auto tag) {
      using Out = decltype(tag);
      Out* out = ws.Output(0).mutable_sample<Out>(i);
      const Out on = FromDouble<Out>(on_), off = FromDouble<Out>(off_);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t c = 0; c < num_classes_; ++c)
          for (int64_t k = 0; k < (scalars_ ? 1 : inner); ++k) {
            const int64_t src = o * (scalars_ ? 1 : inner) + k;
            out[(o * num_classes_ + c) * (scalars_ ? 1 : inner) + k] = cls[static_cast<size_t>(src)] == c ? on : off;
          }
    });
  }

 private:
  int64_t num_classes_, axis_;
  bool axis_given_;
  DType dtype_;
  double on_, off_;
  std::string axis_name_;
  bool scalars_ = true;
  int axis_pos_ = 0;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterOneHot) {
  r.Register(OpSchema("one_hot")
                 .Doc("One-hot encoding: output[..., i, ...] = on_value if i == input[...] else off_value, for i in "
                      "[0, num_classes). A batch whose samples each hold one element is a batch of scalars (output "
                      "[num_classes]) unless axis is given; otherwise the class axis is inserted at `axis`. Indices "
                      "outside [0, num_classes) give a row of off_value.")
                 .Input("input", "Class indices (any numeric type; floats are truncated).")
                 .Output("output", "The encoding.")
                 .Arg("num_classes", ArgType::kInt, std::nullopt, "Number of classes (the new axis' extent).")
                 .Min(1)
                 .Arg("axis", ArgType::kInt, int64_t{-1}, "Where the class axis goes (-1: last).")
                 .Min(-1)
                 .Arg("dtype", ArgType::kDType, std::string("float32"), "Output type.")
                 .Arg("on_value", ArgType::kFloat, 1.0, "Value at the class index.")
                 .Arg("off_value", ArgType::kFloat, 0.0, "Value elsewhere.")
                 .Arg("axis_name", ArgType::kString, std::string(),
                      "One character naming the new axis in the output layout (default: no layout).")
                 .Check([](const ArgView& a) {
                   if (a.String("axis_name").size() > 1)
                     throw ArgCheckError{"axis_name", "must be a single character, got '" + a.String("axis_name") + "'"};
                 })
                 .Factory("cpu", MakeFactory<OneHot>()));
}

}  // namespace sluice
