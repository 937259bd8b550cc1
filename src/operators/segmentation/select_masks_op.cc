// segmentation.select_masks: DALI's SelectMasks. Input polygons are readers.coco's [P, 3] (mask id,
// first vertex, end vertex). DALI gives each selected mask exactly one output polygon: the LAST input
// polygon with that mask id (a mask's earlier polygons are dropped), in mask_ids' order, its vertices
// copied contiguously and the vertex ranges renumbered from 0; vertices no selected polygon uses are
// dropped. With reindex_masks the mask id becomes its position in mask_ids. Only the selected masks'
// polygons are validated (as DALI: the others are never read). A listed id without polygons, an id
// listed twice, and a selected polygon whose vertex range is outside the vertices are errors.
#include <cstring>
#include <unordered_map>
#include <utility>

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
      const int64_t m = ids.shape(i).num_elements();
      // mask id -> (position in mask_ids, its last polygon or -1).
      std::unordered_map<int64_t, std::pair<int64_t, int64_t>> selected;
      for (int64_t j = 0; j < m; ++j) {
        const int64_t id = detail::ReadElement<int64_t>(ids, i, j);
        if (!selected.emplace(id, std::make_pair(j, int64_t{-1})).second)
          throw Error("sample " + std::to_string(i) + ": mask id " + std::to_string(id) + " is selected twice");
      }
      for (int64_t k = 0; k < ps[0]; ++k) {
        auto it = selected.find(p[3 * k]);
        if (it == selected.end()) continue;
        if (p[3 * k + 1] < 0 || p[3 * k + 2] < p[3 * k + 1] || p[3 * k + 2] > vs[0])
          throw Error("sample " + std::to_string(i) + ": polygon " + std::to_string(k) + " (mask id " +
                      std::to_string(p[3 * k]) + ") has vertices [" + std::to_string(p[3 * k + 1]) + ", " +
                      std::to_string(p[3 * k + 2]) + ") outside the " + std::to_string(vs[0]) + " vertices");
        it->second.second = k;
      }
      Plan& pl = plan_[static_cast<size_t>(i)];
      for (int64_t j = 0; j < m; ++j) {
        const int64_t id = detail::ReadElement<int64_t>(ids, i, j);
        const int64_t k = selected.at(id).second;
        if (k < 0) throw Error("sample " + std::to_string(i) + ": mask id " + std::to_string(id) + " has no polygon");
        const int32_t begin = static_cast<int32_t>(pl.vertex_rows.size());
        for (int32_t v = p[3 * k + 1]; v < p[3 * k + 2]; ++v) pl.vertex_rows.push_back(v);
        pl.polygons.insert(pl.polygons.end(), {static_cast<int32_t>(reindex_ ? j : id), begin,
                                               static_cast<int32_t>(pl.vertex_rows.size())});
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
                 .Doc("Selects one polygon per mask listed in mask_ids (in their order): as DALI, the last polygon with "
                      "that mask id; its vertices are copied and renumbered from 0. With reindex_masks the mask ids "
                      "become their positions in mask_ids.")
                 .Input("mask_ids", "The mask ids to keep (1-D integers).")
                 .Input("polygons", "int32 [P, 3]: mask id, first vertex, end vertex (readers.coco's).", {DType::kInt32})
                 .Input("vertices", "[V, D] vertices (any type).")
                 .Output("polygons", "int32 [len(mask_ids), 3]: one polygon per selected mask.")
                 .Output("vertices", "[V', D]: the vertices of the selected polygons.")
                 .Arg("reindex_masks", ArgType::kBool, false, "Replace each mask id by its position in mask_ids.")
                 .Factory("cpu", MakeFactory<SelectMasksOp>()));
}

}  // namespace sluice
