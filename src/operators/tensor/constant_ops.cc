// Tensors made from constants and shapes (DALI's fn.constant, full, full_like, zeros, ones,
// zeros_like, ones_like). full/full_like broadcast fill_value to the output shape by NumPy's rules.
#include <cstring>
#include <vector>

#include "kernels/tensor/cast.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// Writes `n` copies of `v` converted to `dtype` (integer targets saturate, as cast does).
template <typename From>
void FillConverted(void* dst, DType dtype, From v, int64_t n) {
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(dst);
    const T x = kernels::ConvertSaturate<T>(v);
    for (int64_t e = 0; e < n; ++e) p[e] = x;
  });
}

std::string ShapeText(const TensorShape& s) {
  std::string t = "[";
  for (int d = 0; d < s.ndim(); ++d) t += (d ? ", " : "") + std::to_string(s[d]);
  return t + "]";
}

// The output shape of sample i from a `shape` argument (constant or per sample); checks extents >= 0.
std::vector<TensorShape> ShapesFromArg(const Operator& op, const Workspace& ws) {
  const auto lists = op.PerSampleListArg<int64_t>(ws, "shape");
  std::vector<TensorShape> out;
  for (int i = 0; i < ws.batch_size(); ++i) {
    const auto& l = lists[static_cast<size_t>(i)];
    for (int64_t d : l)
      if (d < 0) op.ThrowArgError("shape", "extents must be >= 0, got " + std::to_string(d) + " for sample " + std::to_string(i));
    out.emplace_back(l);
  }
  return out;
}

// Copies `fill` (shape fs) broadcast to `out` (shape os) by NumPy's rules; elements of `esize` bytes.
void Broadcast(const uint8_t* fill, const TensorShape& fs, uint8_t* out, const TensorShape& os, size_t esize) {
  const int m = os.ndim(), k = fs.ndim();
  std::vector<int64_t> stride(static_cast<size_t>(m), 0);  // the fill's stride per output dimension (0: broadcast)
  int64_t s = 1;
  for (int j = 0; j < k; ++j) {
    const int fd = k - 1 - j, od = m - 1 - j;
    if (fs[fd] != 1) stride[static_cast<size_t>(od)] = s;
    s *= fs[fd];
  }
  const int64_t n = os.num_elements();
  std::vector<int64_t> idx(static_cast<size_t>(m), 0);
  int64_t src = 0;
  for (int64_t e = 0; e < n; ++e) {
    std::memcpy(out + static_cast<size_t>(e) * esize, fill + static_cast<size_t>(src) * esize, esize);
    for (int d = m - 1; d >= 0; --d) {  // advance the output index, keeping src in step
      const auto ud = static_cast<size_t>(d);
      src += stride[ud];
      if (++idx[ud] < os[d]) break;
      src -= stride[ud] * os[d];
      idx[ud] = 0;
    }
  }
}

// Throws unless fill shape fs broadcasts to os.
void CheckBroadcast(const Operator& op, const TensorShape& fs, const TensorShape& os, int sample) {
  bool ok = fs.ndim() <= os.ndim();
  for (int j = 0; ok && j < fs.ndim(); ++j) {
    const int64_t f = fs[fs.ndim() - 1 - j], o = os[os.ndim() - 1 - j];
    ok = f == 1 || f == o;
  }
  if (!ok)
    op.ThrowArgError("fill_value", "of shape " + ShapeText(fs) + " cannot be broadcast to the output shape " +
                                       ShapeText(os) + " (sample " + std::to_string(sample) + ")");
}

class Constant : public Operator {
 public:
  explicit Constant(const OpSpec& spec) : Operator(spec) {
    is_int_ = HasArg("idata");
    if (is_int_) idata_ = Arg<std::vector<int64_t>>("idata");
    else fdata_ = Arg<std::vector<double>>("fdata");
    dtype_ = HasArg("dtype") ? Arg<DType>("dtype") : (is_int_ ? DType::kInt32 : DType::kFloat32);
    layout_ = Arg<std::string>("layout");
    const size_t count = is_int_ ? idata_.size() : fdata_.size();
    if (HasArg("shape")) {
      shape_ = TensorShape(Arg<std::vector<int64_t>>("shape"));
      if (count != 1 && static_cast<int64_t>(count) != shape_.num_elements())
        ThrowArgError(is_int_ ? "idata" : "fdata", "has " + std::to_string(count) + " values but shape " +
                                                       ShapeText(shape_) + " holds " + std::to_string(shape_.num_elements()) +
                                                       " (give 1 value to broadcast it)");
    } else {
      shape_ = TensorShape{static_cast<int64_t>(count)};
    }
    if (!layout_.empty() && static_cast<int>(layout_.size()) != shape_.ndim())
      ThrowArgError("layout", "'" + layout_ + "' has " + std::to_string(layout_.size()) + " dimensions but the output has " +
                                  std::to_string(shape_.ndim()));
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    return {{std::vector<TensorShape>(static_cast<size_t>(ws.batch_size()), shape_), dtype_, layout_, true}};
  }

  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    const int64_t n = shape_.num_elements();
    for (int i = 0; i < out.num_samples(); ++i) {
      void* dst = out.raw_mutable_sample(i);
      const size_t count = is_int_ ? idata_.size() : fdata_.size();
      if (count == 1 || n == 0) {
        if (is_int_) FillConverted(dst, dtype_, idata_.empty() ? 0 : idata_[0], n);
        else FillConverted(dst, dtype_, fdata_.empty() ? 0.0 : fdata_[0], n);
        continue;
      }
      auto* b = static_cast<uint8_t*>(dst);
      const size_t es = SizeOf(dtype_);
      for (int64_t e = 0; e < n; ++e) {
        if (is_int_) FillConverted(b + static_cast<size_t>(e) * es, dtype_, idata_[static_cast<size_t>(e)], 1);
        else FillConverted(b + static_cast<size_t>(e) * es, dtype_, fdata_[static_cast<size_t>(e)], 1);
      }
    }
  }

 private:
  bool is_int_ = false;
  std::vector<int64_t> idata_;
  std::vector<double> fdata_;
  DType dtype_ = DType::kFloat32;
  std::string layout_;
  TensorShape shape_;
};

// zeros / ones: `shape` (constant or per sample) filled with 0 or 1 of `dtype`.
class FillShape : public Operator {
 public:
  FillShape(const OpSpec& spec, double value) : Operator(spec), value_(value), dtype_(Arg<DType>("dtype")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    shapes_ = ShapesFromArg(*this, ws);
    const std::string layout = Arg<std::string>("layout");
    if (!layout.empty())
      for (const auto& s : shapes_)
        if (static_cast<int>(layout.size()) != s.ndim())
          ThrowArgError("layout", "'" + layout + "' does not match the output's " + std::to_string(s.ndim()) + " dimensions");
    return {{shapes_, dtype_, layout, true}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    FillConverted(ws.Output(0).raw_mutable_sample(i), dtype_, value_, ws.Output(0).shape(i).num_elements());
  }

 private:
  double value_;
  DType dtype_;
  std::vector<TensorShape> shapes_;
};
class Zeros : public FillShape {
 public:
  explicit Zeros(const OpSpec& s) : FillShape(s, 0.0) {}
};
class Ones : public FillShape {
 public:
  explicit Ones(const OpSpec& s) : FillShape(s, 1.0) {}
};

// zeros_like / ones_like: the input's shape and layout, filled with 0 or 1 of `dtype` (default: the input's).
class FillLike : public Operator {
 public:
  FillLike(const OpSpec& spec, double value) : Operator(spec), value_(value), dtype_given_(HasArg("dtype")) {
    if (dtype_given_) dtype_ = Arg<DType>("dtype");
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), dtype_given_ ? dtype_ : in.dtype(), in.layout(), true}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    TensorList& out = ws.Output(0);
    FillConverted(out.raw_mutable_sample(i), out.dtype(), value_, out.shape(i).num_elements());
  }

 private:
  double value_;
  bool dtype_given_;
  DType dtype_ = DType::kInt32;
};
class ZerosLike : public FillLike {
 public:
  explicit ZerosLike(const OpSpec& s) : FillLike(s, 0.0) {}
};
class OnesLike : public FillLike {
 public:
  explicit OnesLike(const OpSpec& s) : FillLike(s, 1.0) {}
};

// full (fill_value; shape argument) and full_like (data_like, fill_value): fill_value broadcast to
// the output shape. full's output has fill_value's type; full_like's has data_like's (as DALI 2.4:
// fill_value converted as `cast` does, rounding half away from zero and saturating).
class Full : public Operator {
 public:
  Full(const OpSpec& spec, bool like) : Operator(spec), like_(like) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& fill = ws.Input(like_ ? 1 : 0);
    std::vector<TensorShape> shapes;
    std::string layout;
    if (like_) {
      const TensorList& like = ws.Input(0);
      if (like.num_samples() != fill.num_samples())
        throw Error("data_like has " + std::to_string(like.num_samples()) + " samples but fill_value has " +
                    std::to_string(fill.num_samples()));
      shapes = like.shapes();
      layout = like.layout();
    } else {
      shapes = ShapesFromArg(*this, ws);
      layout = Arg<std::string>("layout");
      if (!layout.empty())
        for (const auto& s : shapes)
          if (static_cast<int>(layout.size()) != s.ndim())
            ThrowArgError("layout", "'" + layout + "' does not match the output's " + std::to_string(s.ndim()) + " dimensions");
    }
    for (int i = 0; i < fill.num_samples(); ++i) CheckBroadcast(*this, fill.shape(i), shapes[static_cast<size_t>(i)], i);
    return {{shapes, like_ ? ws.Input(0).dtype() : fill.dtype(), layout, true}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& fill = ws.Input(like_ ? 1 : 0);
    TensorList& out = ws.Output(0);
    const auto* src = static_cast<const uint8_t*>(fill.raw_sample(i));
    std::vector<uint8_t> converted;
    if (out.dtype() != fill.dtype()) {  // full_like: the fill value in data_like's type, then broadcast
      const auto n = static_cast<size_t>(fill.shape(i).num_elements());
      converted.resize(n * SizeOf(out.dtype()));
      kernels::Cast(src, fill.dtype(), converted.data(), out.dtype(), n);
      src = converted.data();
    }
    Broadcast(src, fill.shape(i), static_cast<uint8_t*>(out.raw_mutable_sample(i)), out.shape(i), SizeOf(out.dtype()));
  }

 private:
  bool like_;
};
class FullOp : public Full {
 public:
  explicit FullOp(const OpSpec& s) : Full(s, false) {}
};
class FullLikeOp : public Full {
 public:
  explicit FullLikeOp(const OpSpec& s) : Full(s, true) {}
};

OpSchema& ShapeArgs(OpSchema& s) {
  return s.Arg("shape", ArgType::kIntList, std::vector<int64_t>{}, "Shape of each output sample (empty: a scalar).", true)
      .Arg("layout", ArgType::kString, std::string(), "Output layout (empty: none; else one letter per dimension).")
      .Layout();
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterConstantOperators) {
  r.Register(OpSchema("constant")
                 .Doc("A batch of identical constant tensors (DALI's constant). The data (idata for integers, fdata "
                      "for floats; exactly one of them) is reshaped to `shape`, or broadcast to it when it is one "
                      "value; without `shape` the output is 1-D with one element per value. dtype defaults to int32 "
                      "for idata and float32 for fdata; values are converted as cast does.")
                 .Output("output", "The constant.")
                 .Arg("idata", ArgType::kIntList, std::vector<int64_t>{}, "Integer contents.")
                 .Arg("fdata", ArgType::kFloatList, std::vector<double>{}, "Floating-point contents.")
                 .Arg("shape", ArgType::kIntList, std::vector<int64_t>{}, "Output shape (default: [number of values]).")
                 .Min(0)
                 .Arg("layout", ArgType::kString, std::string(), "Output layout (empty: none).")
                 .Layout()
                 .Arg("dtype", ArgType::kDType, std::string("float32"),
                      "Output type (default: int32 with idata, float32 with fdata).")
                 .Exclusive({"idata", "fdata"})
                 .Check([](const ArgView& a) {
                   if (!a.Given("idata") && !a.Given("fdata"))
                     throw ArgCheckError{"fdata", "one of idata and fdata is required"};
                 })
                 .Factory("cpu", MakeFactory<Constant>()));

  OpSchema zeros("zeros");
  zeros.Doc("Tensors of `shape` filled with zeros (DALI's zeros).")
      .Output("output", "The zeros.")
      .Arg("dtype", ArgType::kDType, std::string("int32"), "Output type.")
      .Factory("cpu", MakeFactory<Zeros>());
  r.Register(std::move(ShapeArgs(zeros)));
  OpSchema ones("ones");
  ones.Doc("Tensors of `shape` filled with ones (DALI's ones).")
      .Output("output", "The ones.")
      .Arg("dtype", ArgType::kDType, std::string("int32"), "Output type.")
      .Factory("cpu", MakeFactory<Ones>());
  r.Register(std::move(ShapeArgs(ones)));

  r.Register(OpSchema("zeros_like")
                 .Doc("Zeros with the shape and layout of the input (DALI's zeros_like); the input's type unless "
                      "dtype is given.")
                 .Input("data_like", "The data whose shape and layout are copied.")
                 .Output("output", "The zeros.")
                 .Arg("dtype", ArgType::kDType, std::string("int32"), "Output type (default: the input's type).")
                 .Factory("cpu", MakeFactory<ZerosLike>()));
  r.Register(OpSchema("ones_like")
                 .Doc("Ones with the shape and layout of the input (DALI's ones_like); the input's type unless "
                      "dtype is given.")
                 .Input("data_like", "The data whose shape and layout are copied.")
                 .Output("output", "The ones.")
                 .Arg("dtype", ArgType::kDType, std::string("int32"), "Output type (default: the input's type).")
                 .Factory("cpu", MakeFactory<OnesLike>()));

  OpSchema full("full");
  full.Doc("Tensors of `shape` filled with fill_value, broadcast by NumPy's rules (DALI's full); the output has "
           "fill_value's type.")
      .Input("fill_value", "The fill value per sample (a scalar or a tensor that broadcasts to `shape`).")
      .Output("output", "The filled tensors.")
      .Factory("cpu", MakeFactory<FullOp>());
  r.Register(std::move(ShapeArgs(full)));
  r.Register(OpSchema("full_like")
                 .Doc("Tensors with the shape and layout of data_like filled with fill_value, broadcast by NumPy's "
                      "rules (DALI's full_like); the output has data_like's type (fill_value converted as `cast` "
                      "does: rounded half away from zero, saturated).")
                 .Input("data_like", "The data whose shape and layout are copied.")
                 .Input("fill_value", "The fill value per sample.")
                 .Output("output", "The filled tensors.")
                 .Factory("cpu", MakeFactory<FullLikeOp>()));
}

}  // namespace sluice
