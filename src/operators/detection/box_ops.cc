// bb_flip and bbox_paste: DALI's per-sample box arithmetic (kernels/detection/boxes.h).
#include "kernels/detection/boxes.h"
#include "operators/detection/box_input.h"
#include "operators/registry.h"

namespace sluice {
namespace {

OutputDesc SameAsInput(const TensorList& in) {
  OutputDesc d;
  for (int i = 0; i < in.num_samples(); ++i) d.shapes.push_back(in.shape(i));
  d.dtype = DType::kFloat32;
  d.layout = in.layout();
  return d;
}

class BbFlipOp : public Operator {
 public:
  explicit BbFlipOp(const OpSpec& spec) : Operator(spec), ltrb_(Arg<bool>("ltrb")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    CheckBoxInput(*this, ws, 0);
    horizontal_ = PerSampleArg<int64_t>(ws, "horizontal");
    vertical_ = PerSampleArg<int64_t>(ws, "vertical");
    return {SameAsInput(ws.Input(0))};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::FlipBoxes(in.sample<float>(i), ws.Output(0).mutable_sample<float>(i), in.shape(i)[0], ltrb_,
                       horizontal_[static_cast<size_t>(i)] != 0, vertical_[static_cast<size_t>(i)] != 0);
  }

 private:
  const bool ltrb_;
  std::vector<int64_t> horizontal_, vertical_;
};

class BboxPasteOp : public Operator {
 public:
  explicit BboxPasteOp(const OpSpec& spec) : Operator(spec), ltrb_(Arg<bool>("ltrb")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    CheckBoxInput(*this, ws, 0);
    ratio_ = PerSampleArg<float>(ws, "ratio");
    x_ = PerSampleArg<float>(ws, "paste_x");
    y_ = PerSampleArg<float>(ws, "paste_y");
    return {SameAsInput(ws.Input(0))};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const auto k = static_cast<size_t>(i);
    kernels::PasteBoxes(in.sample<float>(i), ws.Output(0).mutable_sample<float>(i), in.shape(i)[0], ltrb_, ratio_[k],
                        x_[k], y_[k]);
  }

 private:
  const bool ltrb_;
  std::vector<float> ratio_, x_, y_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterBoxOps) {
  r.Register(OpSchema("bb_flip")
                 .Doc("Flips relative bounding boxes ([0, 1] coordinates) horizontally and/or vertically, as flip "
                      "flips their image: l' = 1 - r, r' = 1 - l (xywh: x' = 1 - x - w); likewise vertically.")
                 .Input("bboxes", "float [N, 4] boxes, [l, t, r, b] with ltrb, else [x, y, w, h].", {DType::kFloat32})
                 .Output("flipped", "The flipped boxes, in the input's format.")
                 .Arg("ltrb", ArgType::kBool, false, "The boxes are [l, t, r, b] (else [x, y, w, h]).")
                 .Arg("horizontal", ArgType::kInt, int64_t{1}, "Flip horizontally (per sample: 0 or 1).", true)
                 .Range(0, 1)
                 .Arg("vertical", ArgType::kInt, int64_t{0}, "Flip vertically (per sample: 0 or 1).", true)
                 .Range(0, 1)
                 .Factory("cpu", MakeFactory<BbFlipOp>()));
  r.Register(OpSchema("bbox_paste")
                 .Doc("Moves relative bounding boxes as paste moves their image into a canvas `ratio` times bigger at "
                      "(paste_x, paste_y): c' = c / ratio + paste * (1 - 1 / ratio); widths and heights (xywh) are "
                      "divided by ratio.")
                 .Input("bboxes", "float [N, 4] relative boxes, [l, t, r, b] with ltrb, else [x, y, w, h].",
                        {DType::kFloat32})
                 .Output("pasted", "The boxes relative to the canvas, in the input's format.")
                 .Arg("ratio", ArgType::kFloat, std::nullopt, "Canvas size / image size (per sample, >= 1 for paste).", true)
                 .Above(0)
                 .Arg("paste_x", ArgType::kFloat, 0.5, "Horizontal position of the image in the canvas (0: left, 1: right).",
                      true)
                 .Range(0, 1)
                 .Arg("paste_y", ArgType::kFloat, 0.5, "Vertical position of the image in the canvas (0: top, 1: bottom).",
                      true)
                 .Range(0, 1)
                 .Arg("ltrb", ArgType::kBool, false, "The boxes are [l, t, r, b] (else [x, y, w, h]).")
                 .Factory("cpu", MakeFactory<BboxPasteOp>()));
}

}  // namespace sluice
