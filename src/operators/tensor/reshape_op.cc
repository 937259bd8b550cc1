// reshape: gives the data of each sample a new shape (DALI's fn.reshape: shape, rel_shape, src_dims,
// layout; the shape as a constant, an argument input or a second input). Nothing is copied: the
// output is a view of the input's memory (TensorList::ShareBatch). reinterpret is reshape that may
// also change the type: the bytes stay, read as `dtype`.
#include <cmath>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

std::string ListText(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

class Reshape : public Operator {
 public:
  explicit Reshape(const OpSpec& spec)
      : Operator(spec),
        has_shape_(HasArg("shape")),
        has_rel_(HasArg("rel_shape")),
        src_dims_(Arg<std::vector<int64_t>>("src_dims")),
        layout_(Arg<std::string>("layout")),
        layout_given_(HasArg("layout")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const DType out_type = OutputType(in.dtype());
    const int n = in.num_samples();
    const bool shape_input = ws.num_inputs() > 1;
    if (shape_input && (has_shape_ || has_rel_))
      ThrowArgError(has_shape_ ? "shape" : "rel_shape", "cannot be given together with the shape input");
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::vector<double>> rels;
    if (shape_input) {
      const TensorList& s = ws.Input(1);
      if (s.num_samples() != n) throw Error("reshape: the shape input has " + std::to_string(s.num_samples()) + " samples, the data " + std::to_string(n));
      if (IsFloating(s.dtype())) throw Error("reshape: the shape input must be integers, got " + std::string(ToString(s.dtype())));
      for (int i = 0; i < n; ++i) {
        if (s.shape(i).ndim() > 1) throw Error("reshape: the shape input must be 1-D per sample, sample " + std::to_string(i) + " has shape " + s.shape(i).ToString());
        std::vector<int64_t> v;
        for (int64_t e = 0; e < s.shape(i).num_elements(); ++e) v.push_back(detail::ReadElement<int64_t>(s, i, e));
        shapes.push_back(std::move(v));
      }
    } else if (has_shape_) {
      shapes = PerSampleListArg<int64_t>(ws, "shape");
    } else if (has_rel_) {
      rels = PerSampleListArg<double>(ws, "rel_shape");
    }
    if (!shapes.empty() && !src_dims_.empty()) ThrowArgError("src_dims", "cannot be used with shape (use rel_shape)");
    std::vector<TensorShape> out(static_cast<size_t>(n));
    int out_nd = -1;
    for (int i = 0; i < n; ++i) {
      out[static_cast<size_t>(i)] = OutShape(InOutputElements(in.shape(i), in.dtype(), out_type, i), shapes.empty() ? nullptr : &shapes[static_cast<size_t>(i)],
                                             rels.empty() ? nullptr : &rels[static_cast<size_t>(i)], i);
      if (out_nd >= 0 && out[static_cast<size_t>(i)].ndim() != out_nd)
        throw Error("reshape: the output samples differ in their number of dimensions (" + std::to_string(out_nd) + " and " +
                    std::to_string(out[static_cast<size_t>(i)].ndim()) + ")");
      out_nd = out[static_cast<size_t>(i)].ndim();
    }
    std::string layout;
    if (layout_given_ && !layout_.empty()) {
      if (n > 0 && static_cast<int>(layout_.size()) != out_nd)
        ThrowArgError("layout", "'" + layout_ + "' has " + std::to_string(layout_.size()) + " dimensions, the output has " + std::to_string(out_nd));
      layout = layout_;
    } else if (!layout_given_ && n > 0 && static_cast<int>(in.layout().size()) == out_nd) {
      layout = in.layout();
    }
    OutputDesc d{out, out_type, layout, false};
    d.views = true;
    return {std::move(d)};
  }

  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    const std::vector<TensorShape> shapes = out.shapes();
    out.ShareBatch(ws.Input(0), shapes, out.dtype());
  }

 protected:
  // reshape keeps the type; reinterpret overrides this with its `dtype`.
  virtual DType OutputType(DType in) const { return in; }

 private:
  // The input's shape counted in elements of the output type: the innermost extent scales when the
  // element size changes (reinterpret from 4 uint8 to 1 int32 per pixel, say).
  TensorShape InOutputElements(const TensorShape& in, DType from, DType to, int sample) const {
    if (SizeOf(from) == SizeOf(to)) return in;
    const int64_t bytes = in.ndim() ? in[in.ndim() - 1] * static_cast<int64_t>(SizeOf(from)) : 0;
    if (in.ndim() == 0 || bytes % static_cast<int64_t>(SizeOf(to)) != 0)
      ThrowArgError("dtype", "sample " + std::to_string(sample) + " (shape " + in.ToString() + ", " + std::string(ToString(from)) +
                                 "): the innermost extent of " + std::to_string(bytes) + " bytes is not a whole number of " +
                                 std::string(ToString(to)) + " elements");
    std::vector<int64_t> dims = in.to_vector();
    dims.back() = bytes / static_cast<int64_t>(SizeOf(to));
    return TensorShape(dims);
  }

  TensorShape OutShape(const TensorShape& in, const std::vector<int64_t>* shape, const std::vector<double>* rel, int sample) const {
    const int64_t volume = in.num_elements();
    const int nd = in.ndim();
    std::vector<int64_t> dims;
    int wildcard = -1;
    const std::string arg = shape ? "shape" : rel ? "rel_shape" : "src_dims";
    auto fail = [&](const std::string& msg) {
      ThrowArgError(arg, "sample " + std::to_string(sample) + " (input shape " + in.ToString() + "): " + msg);
    };
    for (int64_t d : src_dims_)
      if (d < -1 || d >= nd) ThrowArgError("src_dims", "index " + std::to_string(d) + " is out of range for an input of " + std::to_string(nd) + " dimensions (valid: -1 to " + std::to_string(nd - 1) + ")");
    if (shape) {
      dims = *shape;
      for (size_t k = 0; k < dims.size(); ++k)
        if (dims[k] < 0) {
          if (wildcard >= 0) fail("more than one negative (wildcard) extent in " + ListText(*shape));
          wildcard = static_cast<int>(k);
        }
    } else if (rel) {
      if (!src_dims_.empty() && rel->size() != src_dims_.size())
        ThrowArgError("rel_shape", "has " + std::to_string(rel->size()) + " elements, src_dims " + std::to_string(src_dims_.size()));
      if (src_dims_.empty() && static_cast<int>(rel->size()) > nd)
        fail("has " + std::to_string(rel->size()) + " elements, more than the input's " + std::to_string(nd) + " dimensions");
      for (size_t k = 0; k < rel->size(); ++k) {
        const int64_t src = src_dims_.empty() ? static_cast<int64_t>(k) : src_dims_[k];
        const double r = (*rel)[k];
        if (r < 0) {
          if (wildcard >= 0) fail("more than one negative (wildcard) extent");
          wildcard = static_cast<int>(k);
          dims.push_back(-1);
          continue;
        }
        const int64_t base = src < 0 ? 1 : in[static_cast<int>(src)];
        dims.push_back(static_cast<int64_t>(std::llround(static_cast<double>(base) * r)));
      }
    } else if (!src_dims_.empty()) {
      for (int64_t src : src_dims_) dims.push_back(src < 0 ? 1 : in[static_cast<int>(src)]);
    } else {
      return in;
    }
    if (wildcard >= 0) {
      int64_t rest = 1;
      for (size_t k = 0; k < dims.size(); ++k)
        if (static_cast<int>(k) != wildcard) rest *= dims[k];
      if (rest == 0 || volume % rest != 0)
        fail("cannot fill the wildcard: " + std::to_string(volume) + " elements are not a multiple of " + std::to_string(rest));
      dims[static_cast<size_t>(wildcard)] = volume / rest;
    }
    TensorShape out(dims);
    if (out.num_elements() != volume)
      fail("the output shape " + out.ToString() + " has " + std::to_string(out.num_elements()) + " elements, the input " + std::to_string(volume));
    return out;
  }

  bool has_shape_, has_rel_;
  std::vector<int64_t> src_dims_;
  std::string layout_;
  bool layout_given_;
};

class Reinterpret : public Reshape {
 public:
  explicit Reinterpret(const OpSpec& spec) : Reshape(spec), dtype_given_(HasArg("dtype")), dtype_(Arg<DType>("dtype")) {}

 protected:
  DType OutputType(DType in) const override { return dtype_given_ ? dtype_ : in; }

 private:
  bool dtype_given_;
  DType dtype_;
};

void ShapeArgs(OpSchema& s) {
  s.Input("data", "Data to be reshaped (any type).")
      .Input("shape_input", "1-D integer tensor per sample: same as `shape`.")
      .OptionalInputs(1)
      .Output("output", "The reshaped data.")
      .Arg("shape", ArgType::kIntList, std::vector<int64_t>{}, "The output shape; one negative extent is a wildcard.", true)
      .Arg("rel_shape", ArgType::kFloatList, std::vector<double>{},
           "The output shape relative to the input's: out[i] = in[src_dims[i] or i] * rel_shape[i]; one "
           "negative extent is a wildcard.", true)
      .Arg("src_dims", ArgType::kIntList, std::vector<int64_t>{},
           "Which input dimension each output dimension takes its extent from (-1: a new dimension of 1).")
      .Arg("layout", ArgType::kString, std::string(),
           "The output layout; default: the input's if the number of dimensions is unchanged, else none.")
      .Layout()
      .Exclusive({"shape", "rel_shape"});
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterReshape) {
  OpSchema reshape("reshape");
  reshape.Doc("Gives each sample a new shape with the same number of elements (DALI's reshape; the output is "
              "a view of the input's memory, nothing is copied). The shape comes from `shape` (a constant, an argument input or the optional second "
              "input), or from `rel_shape` (relative to the input's extents, optionally picked by `src_dims`); "
              "one negative extent is a wildcard that receives what the volume needs. Without `layout` the "
              "input's layout is kept when the number of dimensions is unchanged, else cleared.");
  ShapeArgs(reshape);
  r.Register(std::move(reshape.Factory("cpu", MakeFactory<Reshape>())));
  OpSchema reinterpret("reinterpret");
  reinterpret.Doc("reshape that may also change the type (DALI's reinterpret): the bytes of each sample are read as "
                  "`dtype`. With a type of another size and no shape given, the innermost extent is scaled so the "
                  "byte size stays (an error when it does not divide); shapes are counted in elements of `dtype`.");
  ShapeArgs(reinterpret);
  reinterpret.Arg("dtype", ArgType::kDType, std::string("uint8"), "The output type; not given: the input's.");
  r.Register(std::move(reinterpret.Factory("cpu", MakeFactory<Reinterpret>())));
}

}  // namespace sluice
