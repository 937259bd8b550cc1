// element_extract: slices of a sequence's first (F) dimension, one output per entry of element_map
// (DALI's fn.element_extract). Nothing is copied: each output sample is a view of its frame in
// the input's memory (TensorList::ShareSample).

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class ElementExtract : public Operator {
 public:
  explicit ElementExtract(const OpSpec& spec) : Operator(spec), map_(Arg<std::vector<int64_t>>("element_map")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const std::string& layout = in.layout();
    std::vector<TensorShape> shapes;
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      if (s.ndim() < 1) throw Error("element_extract: sample " + std::to_string(i) + " is a scalar; the input must be a sequence");
      for (int64_t e : map_)
        if (e < 0 || e >= s[0])
          ThrowArgError("element_map", "index " + std::to_string(e) + " is out of range for sample " + std::to_string(i) +
                                           " with " + std::to_string(s[0]) + " elements (shape " + s.ToString() + ")");
      const auto d = s.dims();
      shapes.push_back(TensorShape(std::vector<int64_t>(d.begin() + 1, d.end())));
    }
    const std::string out_layout = layout.empty() ? "" : layout.substr(1);
    OutputDesc d{shapes, in.dtype(), out_layout, false};
    d.views = true;
    return std::vector<OutputDesc>(map_.size(), d);
  }

  // One view per output sample: no copy, nothing worth the thread pool.
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    for (int i = 0; i < in.num_samples(); ++i) {
      const size_t frame = in.shape(i)[0] ? in.sample_bytes(i) / static_cast<size_t>(in.shape(i)[0]) : 0;
      for (size_t k = 0; k < map_.size(); ++k)
        ws.Output(static_cast<int>(k)).ShareSample(i, in, i, static_cast<size_t>(map_[k]) * frame);
    }
  }

 private:
  std::vector<int64_t> map_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterElementExtract) {
  r.Register(OpSchema("element_extract")
                 .Doc("Extracts elements (slices of the outermost dimension) of sequences: one output per entry of "
                      "element_map, as DALI's element_extract. An input layout must begin with F; the outputs drop it "
                      "(FHWC -> HWC).")
                 .Input("input", "Sequences (any type), first dimension F.", {}, InputLayouts::AnySequence())
                 .Output("output", "One output per element_map entry.")
                 .NumOutputsFn([](const OpSpec& spec) {
                   auto it = spec.args.find("element_map");
                   if (it == spec.args.end()) return 1;
                   if (auto* l = std::get_if<std::vector<int64_t>>(&it->second)) return static_cast<int>(l->size());
                   return 1;
                 })
                 .Arg("element_map", ArgType::kIntList, std::nullopt, "Indices of the elements to extract.")
                 .Check([](const ArgView& a) {
                   const auto v = a.Numbers("element_map");
                   if (v.empty()) throw ArgCheckError{"element_map", "must list at least one element"};
                   for (double e : v)
                     if (e < 0) throw ArgCheckError{"element_map", "index " + std::to_string(static_cast<int64_t>(e)) + " is negative"};
                 })
                 .Factory("cpu", MakeFactory<ElementExtract>()));
}

}  // namespace sluice
