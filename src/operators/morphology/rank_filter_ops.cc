// experimental.median_blur, experimental.dilate, experimental.erode: DALI's rank filters (GPU-only in
// DALI, through CV-CUDA; these CPU versions follow CV-CUDA's semantics, kernels/morphology/
// rank_filter.h). Windows are (width, height) as DALI passes them to CV-CUDA (window_size,
// mask_size), anchors (x, y), -1 the centre. median_blur replicates the border; dilate / erode take
// border_mode (constant: the neutral value, CV-CUDA's) and iterations (a grown mask, as DALI documents). Layouts HWC, CHW, HW and
// their sequences (frame by frame; per-frame arguments through fn.per_frame).
#include "kernels/morphology/rank_filter.h"
#include "operators/filter/image_geom.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<DType> kRankTypes = {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32};

kernels::BorderMode ParseMorphBorder(const std::string& s) {
  if (s == "replicate") return kernels::BorderMode::kClamp;
  if (s == "reflect") return kernels::BorderMode::kReflect1001;
  if (s == "reflect_101") return kernels::BorderMode::kReflect101;
  if (s == "wrap") return kernels::BorderMode::kWrap;
  return kernels::BorderMode::kConstant;
}

class RankFilterOp : public Operator {
 public:
  RankFilterOp(const OpSpec& spec, kernels::RankOp op)
      : Operator(spec), op_(op), size_arg_(op == kernels::RankOp::kMedian ? "window_size" : "mask_size") {
    if (op_ != kernels::RankOp::kMedian) {
      border_ = ParseMorphBorder(Arg<std::string>("border_mode"));
      iterations_ = Arg<int>("iterations");
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    layout_ = InputLayout(ws, 0);
    const int n = ws.batch_size();
    const auto sizes = PerSampleListArg<int>(ws, size_arg_);
    std::vector<std::vector<int>> anchors;
    if (op_ != kernels::RankOp::kMedian) anchors = PerSampleListArg<int>(ws, "anchor");
    params_.assign(static_cast<size_t>(n), {});
    for (int i = 0; i < n; ++i) {
      const auto& s = sizes[size_t(i)];
      if (s.size() != 1 && s.size() != 2)
        ThrowPerSample(size_arg_, i, "expected (width, height) or one value, got " + std::to_string(s.size()) + " values");
      kernels::RankFilterParams& p = params_[size_t(i)];
      p.op = op_;
      p.kw = s[0];
      p.kh = s[s.size() == 1 ? 0 : 1];
      if (p.kw < 1 || p.kh < 1) ThrowPerSample(size_arg_, i, "must be >= 1");
      p.anchor_x = p.kw / 2;
      p.anchor_y = p.kh / 2;
      if (!anchors.empty()) {
        const auto& a = anchors[size_t(i)];
        if (a.size() != 1 && a.size() != 2)
          ThrowPerSample("anchor", i, "expected (x, y) or one value, got " + std::to_string(a.size()) + " values");
        const int ax = a[0], ay = a[a.size() == 1 ? 0 : 1];
        if (ax >= p.kw || ay >= p.kh)
          ThrowPerSample("anchor", i, "(" + std::to_string(ax) + ", " + std::to_string(ay) + ") is outside the " +
                                          std::to_string(p.kw) + "x" + std::to_string(p.kh) + " mask");
        if (ax >= 0) p.anchor_x = ax;
        if (ay >= 0) p.anchor_y = ay;
        p.border = border_;
        // DALI's iterations (as OpenCV for a rectangular element): the mask grown by (kw - 1, kh - 1)
        // per extra iteration, the anchor scaled by the iterations.
        p.kw += (iterations_ - 1) * (p.kw - 1);
        p.kh += (iterations_ - 1) * (p.kh - 1);
        p.anchor_x *= iterations_;
        p.anchor_y *= iterations_;
      }
    }
    return {OutputDesc{in.shapes(), in.dtype(), layout_, in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::RankFilter2D(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), in.dtype(),
                          FilterImageGeom(in.shape(i), layout_), params_[size_t(i)]);
  }

 private:
  const kernels::RankOp op_;
  const std::string size_arg_;
  kernels::BorderMode border_ = kernels::BorderMode::kClamp;
  int iterations_ = 1;
  std::string layout_;
  std::vector<kernels::RankFilterParams> params_;
};

template <kernels::RankOp kOp>
OperatorFactory RankFactory() {
  return [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<RankFilterOp>(spec, kOp); };
}

OpSchema& AddImageInput(OpSchema& s, const std::string& what) {
  return s.Input("input", "Images (HWC, CHW, HW, or sequences of them): uint8, int16, uint16 or float32.", kRankTypes,
                 InputLayouts{"HWC", "CHW", "HW"}.AllowSequence())
      .UnfoldsSequences()
      .Output("output", what + ", same shape and type.");
}

OpSchema MorphologySchema(const std::string& name, const std::string& doc, OperatorFactory f) {
  OpSchema s(name);
  s.Doc(doc);
  AddImageInput(s, "The filtered images");
  s.Arg("mask_size", ArgType::kIntList, std::vector<int64_t>{3, 3},
        "Size of the rectangular structuring element, (width, height) or one value for both (per sample allowed).",
        true)
      .Min(1)
      .Count({1, 2})
      .Arg("anchor", ArgType::kIntList, std::vector<int64_t>{-1, -1},
           "Anchor of the structuring element, (x, y) or one value for both; -1: the centre (size / 2) (per sample "
           "allowed).",
           true)
      .Min(-1)
      .Count({1, 2})
      .Arg("iterations", ArgType::kInt, int64_t{1},
           "Times the operation is applied: as DALI documents (and OpenCV computes for a rectangular element), the "
           "mask grows by (width - 1, height - 1) and the anchor is multiplied per extra iteration.")
      .Min(1)
      .Arg("border_mode", ArgType::kString, std::string("constant"),
           "Pixels outside the image: constant (the neutral value: the type's maximum for erode, its minimum for "
           "dilate, as CV-CUDA), replicate, reflect (fedcba|abcdef), reflect_101 (fedcb|abcdef) or wrap.")
      .Enum({"constant", "replicate", "reflect", "reflect_101", "wrap"})
      .Check([](const ArgView& a) {
        const auto m = a.Numbers("mask_size"), an = a.Numbers("anchor");
        if (m.empty() || an.empty()) return;  // per sample: checked per batch
        for (size_t k = 0; k < 2; ++k) {
          const double mk = m[m.size() == 1 ? 0 : k], ak = an[an.size() == 1 ? 0 : k];
          if (ak >= mk)
            throw ArgCheckError{"anchor", "must lie inside the mask (anchor " + std::to_string(int64_t(ak)) +
                                              " >= mask size " + std::to_string(int64_t(mk)) + ")"};
        }
      })
      .Factory("cpu", std::move(f));
  return s;
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRankFilters) {
  OpSchema median("experimental.median_blur");
  median.Doc("Replaces each pixel by the median of the window_size window around it, each channel on its own "
             "(the element of rank (width * height) / 2 of the sorted window), borders replicated. DALI runs it "
             "only on the GPU (CV-CUDA's MedianBlur); this is its CPU version.");
  AddImageInput(median, "The blurred images");
  median
      .Arg("window_size", ArgType::kIntList, std::vector<int64_t>{3, 3},
           "Size of the window, (width, height) or one value for both (per sample allowed).", true)
      .Min(1)
      .Count({1, 2})
      .Factory("cpu", RankFactory<kernels::RankOp::kMedian>());
  r.Register(std::move(median));
  r.Register(MorphologySchema("experimental.dilate",
                              "Dilation: each pixel becomes the maximum of the mask_size window at anchor, each "
                              "channel on its own. DALI runs it only on the GPU (CV-CUDA's Morphology); this is its "
                              "CPU version.",
                              RankFactory<kernels::RankOp::kMax>()));
  r.Register(MorphologySchema("experimental.erode",
                              "Erosion: each pixel becomes the minimum of the mask_size window at anchor, each "
                              "channel on its own. DALI runs it only on the GPU (CV-CUDA's Morphology); this is its "
                              "CPU version.",
                              RankFactory<kernels::RankOp::kMin>()));
}

}  // namespace sluice
