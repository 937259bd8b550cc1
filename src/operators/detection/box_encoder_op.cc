// box_encoder: DALI's BoxEncoder (kernels/detection/box_encoder.h) over a constant anchor set.
#include "kernels/detection/box_encoder.h"
#include "operators/detection/box_input.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class BoxEncoderOp : public Operator {
 public:
  explicit BoxEncoderOp(const OpSpec& spec) : Operator(spec) {
    const auto a = Arg<std::vector<double>>("anchors");
    if (a.empty() || a.size() % 4 != 0)
      ThrowArgError("anchors", "must hold 4 values (l, t, r, b) per anchor, got " + std::to_string(a.size()));
    for (size_t i = 0; i < a.size(); i += 4) {
      const kernels::Box b{static_cast<float>(a[i]), static_cast<float>(a[i + 1]), static_cast<float>(a[i + 2]),
                           static_cast<float>(a[i + 3])};
      if (!(b.r > b.l && b.b > b.t)) ThrowArgError("anchors", "anchor " + std::to_string(i / 4) + " is empty (r <= l or b <= t)");
      anchors_.push_back(b);
    }
    p_.criteria = Arg<float>("criteria");
    p_.offset = Arg<bool>("offset");
    p_.scale = Arg<float>("scale");
    const auto means = Arg<std::vector<double>>("means"), stds = Arg<std::vector<double>>("stds");
    for (int k = 0; k < 4; ++k) {
      p_.means[k] = static_cast<float>(means[static_cast<size_t>(k)]);
      p_.stds[k] = static_cast<float>(stds[static_cast<size_t>(k)]);
      if (p_.stds[k] == 0) ThrowArgError("stds", "must not contain 0");
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    CheckBoxInput(*this, ws, 0);
    const TensorList& in = ws.Input(0);
    const TensorList& lab = ws.Input(1);
    const int n = in.num_samples();
    for (int i = 0; i < n; ++i)
      if (lab.shape(i).num_elements() != in.shape(i)[0])
        throw Error("sample " + std::to_string(i) + ": " + std::to_string(in.shape(i)[0]) + " boxes but labels of shape " +
                    lab.shape(i).ToString());
    scratch_.resize(static_cast<size_t>(ws.pool().num_threads()) + 1);
    const auto na = static_cast<int64_t>(anchors_.size());
    OutputDesc boxes, labels;
    boxes.dtype = DType::kFloat32;
    labels.dtype = DType::kInt32;
    boxes.shapes.assign(static_cast<size_t>(n), TensorShape{na, 4});
    labels.shapes.assign(static_cast<size_t>(n), TensorShape{na});
    boxes.contiguous = labels.contiguous = n > 0;
    return {boxes, labels};
  }

  void RunSample(Workspace& ws, int i, int thread) override {
    const TensorList& in = ws.Input(0);
    const auto boxes = ReadBoxes(in, i, /*ltrb=*/true);
    kernels::EncodeBoxes(boxes.data(), ws.Input(1).sample<int32_t>(i), static_cast<int64_t>(boxes.size()), anchors_, p_,
                         ws.Output(0).mutable_sample<float>(i), ws.Output(1).mutable_sample<int32_t>(i),
                         scratch_[static_cast<size_t>(thread)]);
  }

 private:
  std::vector<kernels::Box> anchors_;
  kernels::BoxEncoderParams p_;
  std::vector<std::vector<float>> scratch_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterBoxEncoder) {
  r.Register(OpSchema("box_encoder")
                 .Doc("Encodes boxes against anchors as SSD does (DALI's BoxEncoder): every box takes its best anchor "
                      "(highest IoU, the last on ties), every other anchor the box it overlaps most when that IoU > "
                      "criteria. Outputs one [cx, cy, w, h] row per anchor (the matched box, or the anchor itself; "
                      "with offset the normalised offsets ((c - ac) / a_size - mean) / std and (log(size / a_size) - "
                      "mean) / std, 0 where nothing matched) and one label per anchor (0: background).")
                 .Input("bboxes", "float [N, 4] boxes, [l, t, r, b] (relative, like the anchors).", {DType::kFloat32})
                 .Input("labels", "int32 [N] (or [N, 1]) labels of the boxes.", {DType::kInt32})
                 .Output("encoded_bboxes", "float [A, 4] per anchor.")
                 .Output("encoded_labels", "int32 [A] per anchor.")
                 .Arg("anchors", ArgType::kFloatList, std::nullopt, "The anchors, l, t, r, b each, flattened.")
                 .Arg("criteria", ArgType::kFloat, 0.5, "IoU above which an anchor matches a box.")
                 .Range(0, 1)
                 .Arg("offset", ArgType::kBool, false, "Output the normalised offsets instead of the boxes.")
                 .Arg("scale", ArgType::kFloat, 1.0,
                      "Boxes and anchors are multiplied by it before the offsets are computed (which cancels out; as "
                      "DALI).")
                 .Arg("means", ArgType::kFloatList, std::vector<double>{0, 0, 0, 0}, "[x, y, w, h] means of the offsets.")
                 .Count({4})
                 .Arg("stds", ArgType::kFloatList, std::vector<double>{1, 1, 1, 1}, "[x, y, w, h] standard deviations.")
                 .Count({4})
                 .Factory("cpu", MakeFactory<BoxEncoderOp>()));
}

}  // namespace sluice
