// random.coin_flip, random.uniform, random.normal, random.beta: per-sample random values drawn from each
// sample's own stream, so results are identical for any num_threads. Each sample has the shape
// `shape`, or the shape of the optional `shape_like` input's sample (DALI's: fn.random.normal(audio)
// draws one value per element of audio), else is a scalar.
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// Shared shape/dtype handling; Draw(rng, sample) returns one value as double.
class RandomOp : public Operator {
 public:
  RandomOp(const OpSpec& s, DType default_dtype) : Operator(s) {
    dtype_ = HasArg("dtype") ? Arg<DType>("dtype") : default_dtype;
    if (HasArg("shape")) {
      // DALI: 'Providing argument "shape" is incompatible with providing a shape-like input'.
      if (!s.inputs.empty()) ThrowArgError("shape", "cannot be given together with the shape_like input (the output takes its shape)");
      shape_ = Arg<std::vector<int64_t>>("shape");
    }
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    Prepare(ws);
    OutputDesc d;
    if (ws.num_inputs() > 0) d.shapes = ws.Input(0).shapes();  // shape_like: only its shapes are read
    else d.shapes.assign(static_cast<size_t>(ws.batch_size()), TensorShape(shape_));
    d.dtype = dtype_;
    d.contiguous = true;
    return {d};
  }
  void Run(Workspace& ws) override {
    // Cheap per sample: no need for the thread pool.
    TensorList& out = ws.Output(0);
    for (int i = 0; i < out.num_samples(); ++i) {
      RandomGenerator rng = ws.SampleRng(i);
      const int64_t n = out.shape(i).num_elements();
      VisitDType(dtype_, [&](auto tag) {
        using T = decltype(tag);
        T* p = out.mutable_sample<T>(i);
        for (int64_t e = 0; e < n; ++e) {
          const double v = Draw(rng, i);
          if constexpr (std::is_same_v<T, float16>) p[e] = float16(static_cast<float>(v));
          else p[e] = static_cast<T>(v);
        }
      });
    }
  }

 protected:
  virtual void Prepare(Workspace& ws) {}
  virtual double Draw(RandomGenerator& rng, int sample) = 0;
  DType dtype_;
  std::vector<int64_t> shape_;
};

class CoinFlip : public RandomOp {
 public:
  explicit CoinFlip(const OpSpec& s) : RandomOp(s, DType::kInt32) {}
  void Prepare(Workspace& ws) override {
    p_ = PerSampleArg<double>(ws, "probability");  // the schema checks the range of per-sample values too
  }
  double Draw(RandomGenerator& rng, int i) override { return rng.Bernoulli(p_[static_cast<size_t>(i)]) ? 1.0 : 0.0; }

 private:
  std::vector<double> p_;
};

class Uniform : public RandomOp {
 public:
  explicit Uniform(const OpSpec& s) : RandomOp(s, DType::kFloat32) {
    if (HasArg("values")) values_ = Arg<std::vector<double>>("values");
  }
  void Prepare(Workspace& ws) override {
    range_ = PerSampleListArg<double>(ws, "range");
    // Argument inputs are checked per batch (a constant range is checked at the call).
    if (IsArgInput("range"))
      for (const auto& r : range_)
        if (r.size() != 2 || !(r[0] <= r[1])) ThrowArgError("range", "expected [lo, hi] with lo <= hi");
  }
  double Draw(RandomGenerator& rng, int i) override {
    if (!values_.empty()) return values_[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(values_.size()) - 1))];
    const auto& r = range_[static_cast<size_t>(i)];
    return rng.Uniform(r[0], r[1]);
  }

 private:
  std::vector<double> values_;
  std::vector<std::vector<double>> range_;
};

class Normal : public RandomOp {
 public:
  explicit Normal(const OpSpec& s) : RandomOp(s, DType::kFloat32) {}
  void Prepare(Workspace& ws) override {
    mean_ = PerSampleArg<double>(ws, "mean");
    stddev_ = PerSampleArg<double>(ws, "stddev");
  }
  double Draw(RandomGenerator& rng, int i) override {
    return mean_[static_cast<size_t>(i)] + stddev_[static_cast<size_t>(i)] * rng.Normal();
  }

 private:
  std::vector<double> mean_, stddev_;
};

class Beta : public RandomOp {
 public:
  explicit Beta(const OpSpec& s) : RandomOp(s, DType::kFloat32) {}
  void Prepare(Workspace& ws) override {
    alpha_ = PerSampleArg<double>(ws, "alpha");
    beta_ = PerSampleArg<double>(ws, "beta");
  }
  double Draw(RandomGenerator& rng, int i) override {
    return rng.Beta(alpha_[static_cast<size_t>(i)], beta_[static_cast<size_t>(i)]);
  }

 private:
  std::vector<double> alpha_, beta_;
};

OpSchema& CommonRandomArgs(OpSchema& s, const char* default_dtype) {
  return s.Input("shape_like", "Data (any type; its values are not read) whose shape each output sample takes, "
                 "as DALI's (fn.random.normal(audio): one value per element of audio); not together with `shape`.")
      .OptionalInputs(1)
      .Arg("shape", ArgType::kIntList, std::vector<int64_t>{}, "Shape of each sample; empty: a scalar (or the shape of `shape_like`).")
      .Min(0)
      .Arg("dtype", ArgType::kDType, std::string(default_dtype), "Output type.")
      .Random();
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRandomOperators) {
  OpSchema coin("random.coin_flip");
  coin.Doc("Random 0/1 values (Bernoulli), e.g. for mirror=fn.random.coin_flip().")
      .Output("values", "1 with probability `probability`, else 0.")
      .Arg("probability", ArgType::kFloat, 0.5, "Probability of a 1.", true)
      .Range(0, 1)
      .Factory("cpu", MakeFactory<CoinFlip>());
  r.Register(std::move(CommonRandomArgs(coin, "int32")));

  OpSchema uni("random.uniform");
  uni.Doc("Uniformly distributed random values in `range`, or drawn from the discrete set `values`.")
      .Output("values", "The random values.")
      .Arg("range", ArgType::kFloatList, std::vector<double>{-1.0, 1.0}, "[lo, hi) of the distribution.", true)
      .Count({2})
      .Arg("values", ArgType::kFloatList, std::vector<double>{}, "Discrete values to draw from (overrides range when not empty).")
      .Check([](const ArgView& a) {
        const auto r = a.Numbers("range");
        if (r.size() == 2 && !(r[0] <= r[1])) throw ArgCheckError{"range", "expected [lo, hi] with lo <= hi"};
      })
      .Factory("cpu", MakeFactory<Uniform>());
  r.Register(std::move(CommonRandomArgs(uni, "float32")));

  OpSchema normal("random.normal");
  normal.Doc("Normally distributed random values.")
      .Output("values", "The random values.")
      .Arg("mean", ArgType::kFloat, 0.0, "Mean.", true)
      .Arg("stddev", ArgType::kFloat, 1.0, "Standard deviation.", true)
      .Min(0)
      .Factory("cpu", MakeFactory<Normal>());
  r.Register(std::move(CommonRandomArgs(normal, "float32")));

  OpSchema beta("random.beta");
  beta.Doc("Beta-distributed random values in [0, 1] (e.g. MixUp's mixing weight: random.beta(alpha=0.2, beta=0.2)).")
      .Output("values", "The random values.")
      .Arg("alpha", ArgType::kFloat, 1.0, "The alpha parameter (> 0).", true)
      .Above(0)
      .Arg("beta", ArgType::kFloat, 1.0, "The beta parameter (> 0).", true)
      .Above(0)
      .Factory("cpu", MakeFactory<Beta>());
  CommonRandomArgs(beta, "float32");
  r.Register(std::move(beta.Enum({"float32", "float64"})));
}

}  // namespace sluice
