// segmentation.random_object_bbox: DALI's RandomObjectBBox. With probability foreground_prob, a
// class is drawn (by class_weights, else uniformly) among the foreground classes (`classes`, else
// every label present but `background`) that have a blob passing `threshold` (every extent >= it);
// a blob of that class is drawn uniformly among its k_largest (by volume; ties in first-element
// order) passing blobs; with ignore_class the blob is drawn uniformly among all classes' passing
// blobs (k_largest over all). Otherwise, or when no blob passes, the box is the whole input and the
// class the background. Blobs are face-connected (kernels/segmentation/connected_blobs.h). Outputs by
// `format`: anchor and shape, start and end, or one box [start..., end...] (int32, every axis of the
// mask, in its order), then the class (int32 scalar) with output_class.
#include <algorithm>
#include <numeric>
#include <set>

#include "kernels/segmentation/connected_blobs.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

int NumBoxOutputs(const OpSpec& s) {
  auto it = s.args.find("format");
  const std::string* f = it == s.args.end() ? nullptr : std::get_if<std::string>(&it->second);
  return f && *f == "box" ? 1 : 2;
}

class RandomObjectBBoxOp : public Operator {
 public:
  explicit RandomObjectBBoxOp(const OpSpec& spec)
      : Operator(spec),
        format_(Arg<std::string>("format")),
        ignore_class_(Arg<bool>("ignore_class")),
        output_class_(Arg<bool>("output_class")),
        k_largest_(Arg<int64_t>("k_largest")) {
    if (ignore_class_)
      for (const char* a : {"classes", "class_weights", "output_class"})
        if (HasArg(a)) ThrowArgError(a, "cannot be combined with ignore_class");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    const auto background = PerSampleArg<int64_t>(ws, "background");
    const auto classes = PerSampleListArg<int64_t>(ws, "classes");
    const auto weights = PerSampleListArg<double>(ws, "class_weights");
    const auto fg_prob = PerSampleArg<double>(ws, "foreground_prob");
    const auto threshold = PerSampleListArg<int64_t>(ws, "threshold");
    boxes_.assign(static_cast<size_t>(n), {});
    classes_out_.assign(static_cast<size_t>(n), 0);
    std::vector<int64_t> labels;
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const TensorShape& s = in.shape(i);
      const std::vector<int64_t> shape = s.to_vector();
      const int64_t total = s.num_elements();
      labels.resize(static_cast<size_t>(total));
      VisitDType(in.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>) {
          const T* p = in.sample<T>(i);
          for (int64_t e = 0; e < total; ++e) labels[static_cast<size_t>(e)] = static_cast<int64_t>(p[e]);
        } else {
          throw Error(std::string("the mask must hold integer labels, got ") + std::string(ToString(in.dtype())));
        }
      });
      // The foreground classes and their weights.
      std::vector<int64_t> cls = classes[k];
      std::vector<double> w = weights[k];
      if (!w.empty() && !cls.empty() && w.size() != cls.size())
        ThrowPerSample("class_weights", i, "has " + std::to_string(w.size()) + " values for " + std::to_string(cls.size()) + " classes");
      if (cls.empty() && !w.empty())
        for (size_t c = 0; c < w.size(); ++c) cls.push_back(static_cast<int64_t>(c) + 1);
      const std::set<int64_t> wanted(cls.begin(), cls.end());
      const int64_t bg = background[k];
      auto keep = [&](int64_t l) { return wanted.empty() ? l != bg : wanted.count(l) > 0; };
      std::vector<kernels::Blob> blobs = kernels::FindBlobs(labels.data(), shape, keep, scratch_);
      // Blobs passing the threshold.
      const auto& th = threshold[k];
      if (!th.empty() && th.size() != shape.size())
        ThrowPerSample("threshold", i, "needs one value per axis of the mask (" + std::to_string(shape.size()) + ")");
      std::vector<const kernels::Blob*> ok;
      for (const kernels::Blob& b : blobs) {
        bool pass = true;
        for (size_t d = 0; d < th.size(); ++d) pass = pass && b.hi[d] - b.lo[d] >= th[d];
        if (pass) ok.push_back(&b);
      }
      RandomGenerator rng = ws.SampleRng(i);
      const kernels::Blob* chosen = nullptr;
      if (rng.Uniform01() < fg_prob[k] && !ok.empty()) {
        auto largest = [&](std::vector<const kernels::Blob*> v) {
          std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->volume > b->volume; });
          if (k_largest_ > 0 && static_cast<int64_t>(v.size()) > k_largest_) v.resize(static_cast<size_t>(k_largest_));
          return v;
        };
        if (ignore_class_) {
          const auto v = largest(ok);
          chosen = v[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(v.size()) - 1))];
        } else {
          // Classes in ascending order (or `classes`' order), those with a passing blob.
          std::vector<int64_t> order = cls;
          if (order.empty()) {
            std::set<int64_t> present;
            for (auto* b : ok) present.insert(b->label);
            order.assign(present.begin(), present.end());
          }
          std::vector<int64_t> cand;
          std::vector<double> cw;
          for (size_t c = 0; c < order.size(); ++c) {
            const bool has = std::any_of(ok.begin(), ok.end(), [&](auto* b) { return b->label == order[c]; });
            const double weight = w.empty() ? 1.0 : w[c];
            if (has && weight > 0) cand.push_back(order[c]), cw.push_back(weight);
          }
          if (!cand.empty()) {
            double u = rng.Uniform01() * std::accumulate(cw.begin(), cw.end(), 0.0);
            size_t c = 0;
            while (c + 1 < cand.size() && u >= cw[c]) u -= cw[c++];
            std::vector<const kernels::Blob*> of;
            for (auto* b : ok)
              if (b->label == cand[c]) of.push_back(b);
            const auto v = largest(of);
            chosen = v[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(v.size()) - 1))];
          }
        }
      }
      std::vector<int64_t>& box = boxes_[k];
      if (chosen) {
        box = chosen->lo;
        box.insert(box.end(), chosen->hi.begin(), chosen->hi.end());
        classes_out_[k] = static_cast<int32_t>(chosen->label);
      } else {
        box.assign(shape.size(), 0);
        box.insert(box.end(), shape.begin(), shape.end());
        classes_out_[k] = static_cast<int32_t>(bg);
      }
    }
    OutputDesc a, b, c;
    a.dtype = b.dtype = c.dtype = DType::kInt32;
    for (int i = 0; i < n; ++i) {
      const int64_t nd = in.shape(i).ndim();
      a.shapes.push_back(TensorShape{format_ == "box" ? 2 * nd : nd});
      b.shapes.push_back(TensorShape{nd});
      c.shapes.push_back(TensorShape(std::vector<int64_t>{}));
    }
    std::vector<OutputDesc> out{a};
    if (format_ != "box") out.push_back(b);
    if (output_class_) out.push_back(c);
    return out;
  }

  void RunSample(Workspace& ws, int i, int) override {
    const auto& box = boxes_[static_cast<size_t>(i)];
    const size_t nd = box.size() / 2;
    int32_t* o0 = ws.Output(0).mutable_sample<int32_t>(i);
    int o = 1;
    if (format_ == "box") {
      for (size_t d = 0; d < 2 * nd; ++d) o0[d] = static_cast<int32_t>(box[d]);
    } else {
      int32_t* o1 = ws.Output(o++).mutable_sample<int32_t>(i);
      for (size_t d = 0; d < nd; ++d) {
        o0[d] = static_cast<int32_t>(box[d]);
        o1[d] = static_cast<int32_t>(format_ == "anchor_shape" ? box[nd + d] - box[d] : box[nd + d]);
      }
    }
    if (output_class_) *ws.Output(o).mutable_sample<int32_t>(i) = classes_out_[static_cast<size_t>(i)];
  }

 private:
  const std::string format_;
  const bool ignore_class_, output_class_;
  const int64_t k_largest_;
  std::vector<std::vector<int64_t>> boxes_;
  std::vector<int32_t> classes_out_;
  std::vector<int32_t> scratch_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRandomObjectBBox) {
  r.Register(OpSchema("segmentation.random_object_bbox")
                 .Doc("The bounding box of a random object (a face-connected blob of one label) of a label map: with "
                      "probability foreground_prob a class is drawn (class_weights, else uniformly) among those with a "
                      "blob passing threshold, then one of its k_largest blobs uniformly (ignore_class: among all "
                      "blobs); otherwise, or without such a blob, the whole input. Outputs per format: anchor + shape, "
                      "start + end, or one box; then the class with output_class.")
                 .Input("mask", "The label map (integer type, any rank; every axis is spatial).")
                 .Output("anchor", "int32 [ndim] (format \"anchor_shape\"), the start (\"start_end\") or [start..., end...] (\"box\").")
                 .NumOutputsFn([](const OpSpec& s) {
                   auto it = s.args.find("output_class");
                   const bool cls = it != s.args.end() && std::holds_alternative<bool>(it->second) && std::get<bool>(it->second);
                   return NumBoxOutputs(s) + (cls ? 1 : 0);
                 })
                 .Arg("format", ArgType::kString, std::string("anchor_shape"), "\"anchor_shape\", \"start_end\" or \"box\".")
                 .Enum({"anchor_shape", "start_end", "box"})
                 .Arg("background", ArgType::kInt, int64_t{0}, "The background label (per sample).", true)
                 .Arg("classes", ArgType::kIntList, std::vector<int64_t>{},
                      "The foreground labels (per sample; default: every label but the background).", true)
                 .Arg("class_weights", ArgType::kFloatList, std::vector<double>{},
                      "Relative probabilities of the classes (per sample; classes 1..N when classes is not given).", true)
                 .Arg("foreground_prob", ArgType::kFloat, 1.0, "Probability of an object's box (else the whole input).", true)
                 .Range(0, 1)
                 .Arg("ignore_class", ArgType::kBool, false, "Draw among all blobs, whatever their class.")
                 .Arg("k_largest", ArgType::kInt, int64_t{-1}, "Only the k largest blobs are drawn from (-1: all).")
                 .Arg("threshold", ArgType::kIntList, std::vector<int64_t>{},
                      "Per axis, the smallest extent a blob's box must have (per sample).", true)
                 .Arg("output_class", ArgType::kBool, false, "Add an output with the chosen box's label (the background's for the whole input).")
                 .Arg("cache_objects", ArgType::kBool, false, "Accepted for compatibility; the blobs are found every time.")
                 .Random()
                 .Factory("cpu", MakeFactory<RandomObjectBBoxOp>()));
}

}  // namespace sluice
