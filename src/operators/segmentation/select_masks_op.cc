// segmentation.select_masks: DALI's SelectMasks. Keeps the polygons (readers.coco's [P, 3]:
// mask id, first vertex, end vertex) of the masks listed in mask_ids, in mask_ids' order (each
// mask's polygons in their input order), and only the vertices they use, renumbered; with
// reindex_masks the mask id becomes its position in mask_ids. A listed id without polygons, or
// listed twice, and a polygon whose vertex range is outside the vertices, are errors.
#include <cstring>
#include <unordered_map>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class SelectMasksOp : public Operator {
 public:
  explicit SelectMasksOp(const OpSpec& spec) : Operator(spec), reindex_(Arg<bool>("reindex_masks")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& ids = ws.Input(0);
    const TensorList& polys = ws.Input(1);
    const TensorList& verts = ws.Input(2);
    const int n = ids.num_samples();
    plan_.assign(static_cast<size_t>(n), {});
    OutputDesc dp, dv;
    dp.dtype = DType::kInt32;
    dv.dtype = verts.dtype();
    for (int i = 0; i < n; ++i) {
      const TensorShape& ps = polys.shape(i);
      const TensorShape& vs = verts.shape(i);
      if (ps.ndim() != 2 || ps[1] != 3) throw Error("sample " + std::to_string(i) + ": polygons must be [P, 3], got " + ps.ToString());
      if (vs.ndim() != 2) throw Error("sample " + std::to_string(i) + ": vertices must be [V, D], got " + vs.ToString());
      const int32_t* p = polys.sample<int32_t>(i);
      std::unordered_map<int64_t, std::vector<int64_t>> by_mask;
      for (int64_t k = 0; k < ps[0]; ++k) {
        if (p[3 * k + 1] < 0 || p[3 * k + 2] < p[3 * k + 1] || p[3 * k + 2] > vs[0])
          throw Error("sample " + std::to_string(i) + ": polygon " + std::to_string(k) + " has vertices [" +
                      std::to_string(p[3 * k + 1]) + ", " + std::to_string(p[3 * k + 2]) + ") outside the " +
                      std::to_string(vs[0]) + " vertices");
        by_mask[p[3 * k]].push_back(k);
      }
      Plan& pl = plan_[static_cast<size_t>(i)];
      const int64_t m = ids.shape(i).num_elements();
      std::unordered_map<int64_t, int> seen;
      for (int64_t j = 0; j < m; ++j) {
        const int64_t id = detail::ReadElement<int64_t>(ids, i, j);
        if (!seen.emplace(id, 0).second) throw Error("sample " + std::to_string(i) + ": mask id " + std::to_string(id) + " is selected twice");
        auto it = by_mask.find(id);
        if (it == by_mask.end()) throw Error("sample " + std::to_string(i) + ": mask id " + std::to_string(id) + " has no polygon");
        for (int64_t k : it->second) {
          const int32_t begin = static_cast<int32_t>(pl.vertex_rows.size());
          for (int32_t v = p[3 * k + 1]; v < p[3 * k + 2]; ++v) pl.vertex_rows.push_back(v);
          pl.polygons.insert(pl.polygons.end(), {static_cast<int32_t>(reindex_ ? j : id), begin,
                                                 static_cast<int32_t>(pl.vertex_rows.size())});
        }
      }
      dp.shapes.push_back(TensorShape{static_cast<int64_t>(pl.polygons.size() / 3), 3});
      dv.shapes.push_back(TensorShape{static_cast<int64_t>(pl.vertex_rows.size()), vs[1]});
    }
    return {dp, dv};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const Plan& pl = plan_[static_cast<size_t>(i)];
    std::memcpy(ws.Output(0).raw_mutable_sample(i), pl.polygons.data(), pl.polygons.size() * sizeof(int32_t));
    const TensorList& verts = ws.Input(2);
    const size_t row = static_cast<size_t>(verts.shape(i)[1]) * SizeOf(verts.dtype());
    auto* dst = static_cast<char*>(ws.Output(1).raw_mutable_sample(i));
    const auto* src = static_cast<const char*>(verts.raw_sample(i));
    for (size_t r = 0; r < pl.vertex_rows.size(); ++r) std::memcpy(dst + r * row, src + static_cast<size_t>(pl.vertex_rows[r]) * row, row);
  }

 private:
  struct Plan {
    std::vector<int32_t> polygons;
    std::vector<int32_t> vertex_rows;
  };
  const bool reindex_;
  std::vector<Plan> plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterSelectMasks) {
  r.Register(OpSchema("segmentation.select_masks")
                 .Doc("Selects the polygons of the masks listed in mask_ids (in their order) and the vertices they use, "
                      "renumbered; with reindex_masks the mask ids become their positions in mask_ids.")
                 .Input("mask_ids", "The mask ids to keep (1-D integers).")
                 .Input("polygons", "int32 [P, 3]: mask id, first vertex, end vertex (readers.coco's).", {DType::kInt32})
                 .Input("vertices", "[V, D] vertices (any type).")
                 .Output("polygons", "int32 [P', 3] of the selected masks.")
                 .Output("vertices", "[V', D]: the vertices they use.")
                 .Arg("reindex_masks", ArgType::kBool, false, "Replace each mask id by its position in mask_ids.")
                 .Factory("cpu", MakeFactory<SelectMasksOp>()));
}

}  // namespace sluice
