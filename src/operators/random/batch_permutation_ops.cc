// batch_permutation and permute_batch: what MixUp, CutMix and mosaic pair samples with. The
// permutation is drawn from one stream per (operator, iteration), so it is the same for any
// num_threads; permute_batch copies sample indices[i] of its input to sample i (sources follow).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class BatchPermutation : public Operator {
 public:
  explicit BatchPermutation(const OpSpec& spec)
      : Operator(spec), repetitions_(Arg<bool>("allow_repetitions")), no_fixed_points_(Arg<bool>("no_fixed_points")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    OutputDesc d;
    d.shapes.assign(static_cast<size_t>(ws.batch_size()), TensorShape{});
    d.dtype = DType::kInt32;
    d.contiguous = true;
    return {d};
  }
  void Run(Workspace& ws) override {
    const int n = ws.batch_size();
    RandomGenerator rng = ws.SampleRng(0);  // one stream for the whole batch
    std::vector<int32_t> perm(static_cast<size_t>(n));
    // DALI ignores no_fixed_points for a batch of one (there is no derangement of one element).
    const bool derange = no_fixed_points_ && n > 1;
    if (repetitions_) {
      for (int i = 0; i < n; ++i) {
        int32_t v;
        do {
          v = static_cast<int32_t>(rng.UniformInt(0, n - 1));
        } while (derange && v == i);
        perm[static_cast<size_t>(i)] = v;
      }
    } else {
      // Fisher-Yates, redrawn until there is no fixed point (about e ~ 2.7 draws on average).
      for (;;) {
        std::iota(perm.begin(), perm.end(), 0);
        for (int i = n - 1; i > 0; --i) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.UniformInt(0, i))]);
        bool fixed = false;
        for (int i = 0; i < n && derange && !fixed; ++i) fixed = perm[static_cast<size_t>(i)] == i;
        if (!fixed) break;
      }
    }
    TensorList& out = ws.Output(0);
    for (int i = 0; i < n; ++i) *out.mutable_sample<int32_t>(i) = perm[static_cast<size_t>(i)];
  }

 private:
  bool repetitions_, no_fixed_points_;
};

class PermuteBatch : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    indices_.assign(static_cast<size_t>(n), 0);
    const auto given = PerSampleListArg<int64_t>(ws, "indices");
    if (IsArgInput("indices")) {
      for (int i = 0; i < n; ++i) {
        const auto& v = given[static_cast<size_t>(i)];
        if (v.size() != 1)
          ThrowArgError("indices", "expected one scalar index per sample, got " + std::to_string(v.size()) +
                                       " values for sample " + std::to_string(i));
        indices_[static_cast<size_t>(i)] = v[0];
      }
    } else {
      const auto& v = given.empty() ? std::vector<int64_t>{} : given[0];
      if (static_cast<int>(v.size()) != n)
        ThrowArgError("indices", "has " + std::to_string(v.size()) + " entries but the batch has " + std::to_string(n) +
                                     " samples");
      indices_ = v;
    }
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int64_t k = indices_[static_cast<size_t>(i)];
      if (k < 0 || k >= n)
        ThrowArgError("indices", "index " + std::to_string(k) + " of sample " + std::to_string(i) +
                                     " is outside the batch [0, " + std::to_string(n) + ")");
      shapes[static_cast<size_t>(i)] = in.shape(static_cast<int>(k));
    }
    return {{shapes, in.dtype(), in.layout(), false}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const int k = static_cast<int>(indices_[static_cast<size_t>(i)]);
    TensorList& out = ws.Output(0);
    out.source(i) = in.source(k);
    if (const size_t bytes = in.sample_bytes(k)) std::memcpy(out.raw_mutable_sample(i), in.raw_sample(k), bytes);
  }

 private:
  std::vector<int64_t> indices_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterBatchPermutationOps) {
  r.Register(OpSchema("batch_permutation")
                 .Doc("Random indices of the batch's samples (int32 scalars): a permutation of 0..N-1, or with "
                      "allow_repetitions N independent draws. For MixUp/CutMix: permute_batch(x, indices=...).")
                 .Output("indices", "One int32 index per sample.")
                 .Arg("allow_repetitions", ArgType::kBool, false, "Draw each index independently (repetitions and omissions).")
                 .Arg("no_fixed_points", ArgType::kBool, false,
                      "No sample is paired with itself (out[i] != i); ignored for a batch of one.")
                 .Random()
                 .Factory("cpu", MakeFactory<BatchPermutation>()));
  r.Register(OpSchema("permute_batch")
                 .Doc("out[i] = input[indices[i]]: a batch made of the input's samples in another order (repetitions "
                      "and omissions allowed).")
                 .Input("input", "Any data.")
                 .Output("output", "The selected samples (shapes, sources and layout follow them).")
                 .Arg("indices", ArgType::kIntList, std::nullopt,
                      "A list of batch-size indices, or a batch of scalar indices (e.g. batch_permutation's output); each "
                      "in [0, batch size).",
                      true)
                 .Factory("cpu", MakeFactory<PermuteBatch>()));
}

}  // namespace sluice
