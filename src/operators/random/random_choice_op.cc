// random.choice: values drawn from a 1-D tensor `a` (or from range(n) for a scalar n) with
// probabilities `p` (DALI's fn.random.choice). Each sample draws from its own stream
// (Workspace::SampleRng), so results are the same for any num_threads.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

bool IsIntegral(DType t) { return t != DType::kFloat16 && t != DType::kFloat32 && t != DType::kFloat64; }

class RandomChoice : public Operator {
 public:
  using Operator::Operator;

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& a = ws.Input(0);
    const int n = a.num_samples();
    counts_.assign(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = a.shape(i);
      if (s.ndim() == 0) {
        if (!IsIntegral(a.dtype()) || a.dtype() == DType::kBool)
          throw Error("input 'a': a scalar (choose from range(a)) must be an integer, got " + std::string(ToString(a.dtype())));
        int64_t v = 0;
        VisitDType(a.dtype(), [&](auto tag) {
          using T = decltype(tag);
          if constexpr (std::is_integral_v<T>) v = static_cast<int64_t>(*a.sample<T>(i));
        });
        if (v < 1) throw Error("input 'a': the scalar must be >= 1, got " + std::to_string(v) + " for sample " + std::to_string(i));
        counts_[static_cast<size_t>(i)] = v;
      } else if (s.ndim() == 1) {
        if (s[0] < 1) throw Error("input 'a': sample " + std::to_string(i) + " is empty (nothing to choose from)");
        counts_[static_cast<size_t>(i)] = s[0];
      } else {
        throw Error("input 'a' must be a scalar or 1-D per sample, got " + std::to_string(s.ndim()) + " dimensions for sample " +
                    std::to_string(i));
      }
    }
    // Cumulative probabilities per sample (empty: uniform).
    cdf_.assign(static_cast<size_t>(n), {});
    if (HasArg("p")) {
      const auto p = PerSampleListArg<double>(ws, "p");
      for (int i = 0; i < n; ++i) {
        const auto& pi = p[static_cast<size_t>(i)];
        const int64_t k = counts_[static_cast<size_t>(i)];
        if (static_cast<int64_t>(pi.size()) != k)
          ThrowArgError("p", "has " + std::to_string(pi.size()) + " probabilities but sample " + std::to_string(i) + " has " +
                                 std::to_string(k) + " values to choose from");
        double sum = 0;
        auto& c = cdf_[static_cast<size_t>(i)];
        for (double x : pi) {
          if (!(x >= 0)) ThrowArgError("p", "probabilities must be >= 0, got " + std::to_string(x));
          sum += x;
          c.push_back(sum);
        }
        if (std::abs(sum - 1.0) > 1e-4) ThrowArgError("p", "probabilities must sum to 1, got " + std::to_string(sum));
        for (double& x : c) x /= sum;
      }
    }
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    if (HasArg("shape")) {
      const auto sh = PerSampleListArg<int64_t>(ws, "shape");
      for (int i = 0; i < n; ++i) {
        for (int64_t d : sh[static_cast<size_t>(i)])
          if (d < 0) ThrowArgError("shape", "extents must be >= 0, got " + std::to_string(d));
        shapes[static_cast<size_t>(i)] = TensorShape(sh[static_cast<size_t>(i)]);
      }
    } else if (ws.num_inputs() > 1) {
      shapes = ws.Input(1).shapes();
    }
    return {{shapes, a.dtype(), "", true}};
  }

  void Run(Workspace& ws) override {
    ForEachSample(ws, [&](int i, int) {
      const TensorList& a = ws.Input(0);
      TensorList& out = ws.Output(0);
      RandomGenerator rng = ws.SampleRng(i);
      const int64_t k = counts_[static_cast<size_t>(i)];
      const auto& c = cdf_[static_cast<size_t>(i)];
      const bool range = a.shape(i).ndim() == 0;
      const size_t es = SizeOf(a.dtype());
      auto* dst = static_cast<uint8_t*>(out.raw_mutable_sample(i));
      const auto* src = static_cast<const uint8_t*>(a.raw_sample(i));
      const int64_t m = out.shape(i).num_elements();
      for (int64_t e = 0; e < m; ++e) {
        int64_t idx;
        if (c.empty()) {
          idx = rng.UniformInt(0, k - 1);
        } else {
          const double u = rng.Uniform01();
          idx = std::upper_bound(c.begin(), c.end(), u) - c.begin();
          idx = std::min<int64_t>(idx, k - 1);
          while (idx > 0 && c[static_cast<size_t>(idx)] == c[static_cast<size_t>(idx - 1)]) --idx;  // never a p=0 entry
        }
        if (range) {
          VisitDType(a.dtype(), [&](auto tag) {
            using T = decltype(tag);
            if constexpr (std::is_integral_v<T>) reinterpret_cast<T*>(dst)[e] = static_cast<T>(idx);
          });
        } else {
          std::memcpy(dst + static_cast<size_t>(e) * es, src + static_cast<size_t>(idx) * es, es);
        }
      }
    });
  }

 private:
  std::vector<int64_t> counts_;
  std::vector<std::vector<double>> cdf_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRandomChoice) {
  r.Register(OpSchema("random.choice")
                 .Doc("Random values drawn from `a` (DALI's random.choice): a 1-D sample is the set of values, a "
                      "scalar integer n means range(n). `p` gives the probabilities (default: uniform). The output "
                      "has `shape`, else the shape of `shape_like`, else is a scalar; its type is a's.")
                 .Input("a", "A 1-D tensor of values, or a scalar integer n (choose from 0..n-1), per sample.")
                 .Input("shape_like", "Data whose shape the output takes (when `shape` is not given).")
                 .OptionalInputs(1)
                 .Output("output", "The drawn values.")
                 .Arg("p", ArgType::kFloatList, std::vector<double>{}, "Probability of each value (default: uniform).", true)
                 .Min(0)
                 .Arg("shape", ArgType::kIntList, std::vector<int64_t>{}, "Shape of each output sample (default: a scalar).", true)
                 .Random()
                 .Factory("cpu", MakeFactory<RandomChoice>()));
}

}  // namespace sluice
