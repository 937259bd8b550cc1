// bbox_rotate: DALI's BBoxRotate (kernels/detection/bbox_rotate.h). The canvas is rotate's: `size`
// (H, W) if given, the image's with keep_size, else the rotated image's bounding box with DALI's
// parity rule (kernels::RotatedCanvasSize, the function rotate uses), so boxes and image agree.
#include <cmath>
#include <cstring>

#include "kernels/detection/bbox_rotate.h"
#include "kernels/warp/affine_transform.h"
#include "operators/detection/box_input.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class BboxRotateOp : public Operator {
 public:
  explicit BboxRotateOp(const OpSpec& spec) : Operator(spec), keep_size_(Arg<bool>("keep_size")) {
    const std::string layout = Arg<std::string>("bbox_layout");
    if (layout != "xyXY" && layout != "xyWH") ThrowArgError("bbox_layout", "must be \"xyXY\" or \"xyWH\", got \"" + layout + "\"");
    base_.ltrb = layout == "xyXY";
    base_.normalized = Arg<bool>("bbox_normalized");
    const std::string mode = Arg<std::string>("mode");
    base_.mode = mode == "fixed" ? kernels::BoxRotateMode::kFixed
                 : mode == "halfway" ? kernels::BoxRotateMode::kHalfway : kernels::BoxRotateMode::kExpand;
    base_.remove_threshold = Arg<float>("remove_threshold");
    const std::string shape_layout = Arg<std::string>("shape_layout");
    h_index_ = static_cast<int>(shape_layout.find('H'));
    w_index_ = static_cast<int>(shape_layout.find('W'));
    if (h_index_ < 0 || w_index_ < 0) ThrowArgError("shape_layout", "must name H and W, got \"" + shape_layout + "\"");
    if (keep_size_ && HasArg("size")) ThrowArgError("size", "cannot be combined with keep_size");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    CheckBoxInput(*this, ws, 0);
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    const bool labels = ws.num_inputs() > 1;
    const auto angle = PerSampleArg<float>(ws, "angle");
    const auto shape = PerSampleListArg<double>(ws, "input_shape");
    const auto size = PerSampleListArg<double>(ws, "size");
    boxes_.assign(static_cast<size_t>(n), {});
    kept_.assign(static_cast<size_t>(n), {});
    OutputDesc ob, ol;
    ob.dtype = DType::kFloat32;
    if (labels) ol.dtype = ws.Input(1).dtype();
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const auto& s = shape[k];
      if (static_cast<int>(s.size()) <= std::max(h_index_, w_index_) || !(s[h_index_] > 0) || !(s[w_index_] > 0))
        ThrowPerSample("input_shape", i, "needs a positive H and W (shape_layout \"" + Arg<std::string>("shape_layout") + "\")");
      kernels::BoxRotateParams p = base_;
      p.degrees = angle[k];
      p.in_h = static_cast<float>(s[h_index_]);
      p.in_w = static_cast<float>(s[w_index_]);
      if (HasArg("size")) {
        if (size[k].size() != 2 || !(size[k][0] > 0) || !(size[k][1] > 0)) ThrowPerSample("size", i, "must be 2 positive values (H, W)");
        p.out_h = static_cast<float>(std::floor(size[k][0]));
        p.out_w = static_cast<float>(std::floor(size[k][1]));
      } else if (keep_size_) {
        p.out_h = p.in_h, p.out_w = p.in_w;
      } else {
        const auto hw = kernels::RotatedCanvasSize(static_cast<int64_t>(s[h_index_]), static_cast<int64_t>(s[w_index_]), angle[k]);
        p.out_h = static_cast<float>(hw[0]);
        p.out_w = static_cast<float>(hw[1]);
      }
      const int64_t nb = in.shape(i)[0];
      if (labels && (ws.Input(1).shape(i).ndim() < 1 || ws.Input(1).shape(i)[0] != nb))
        throw Error("sample " + std::to_string(i) + ": " + std::to_string(nb) + " boxes but labels of shape " +
                    ws.Input(1).shape(i).ToString());
      boxes_[k].resize(static_cast<size_t>(4 * nb));
      kept_[k] = kernels::RotateBoxes(in.sample<float>(i), nb, p, boxes_[k].data());
      const auto m = static_cast<int64_t>(kept_[k].size());
      ob.shapes.push_back(TensorShape{m, 4});
      if (labels) {
        std::vector<int64_t> ls = ws.Input(1).shape(i).to_vector();
        ls[0] = m;
        ol.shapes.push_back(TensorShape(ls));
      }
    }
    if (labels) return {ob, ol};
    return {ob};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const auto k = static_cast<size_t>(i);
    std::memcpy(ws.Output(0).raw_mutable_sample(i), boxes_[k].data(), kept_[k].size() * 4 * sizeof(float));
    if (ws.num_inputs() > 1) {
      const TensorList& lab = ws.Input(1);
      const int64_t n = lab.shape(i)[0];
      const size_t row = n ? static_cast<size_t>(lab.shape(i).num_elements() / n) * SizeOf(lab.dtype()) : 0;
      auto* dst = static_cast<char*>(ws.Output(1).raw_mutable_sample(i));
      const auto* src = static_cast<const char*>(lab.raw_sample(i));
      for (size_t b = 0; b < kept_[k].size(); ++b) std::memcpy(dst + b * row, src + static_cast<size_t>(kept_[k][b]) * row, row);
    }
  }

 private:
  const bool keep_size_;
  kernels::BoxRotateParams base_;
  int h_index_ = 0, w_index_ = 1;
  std::vector<std::vector<float>> boxes_;
  std::vector<std::vector<int32_t>> kept_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterBboxRotate) {
  r.Register(OpSchema("bbox_rotate")
                 .Doc("Moves bounding boxes as rotate moves their image (same angle, keep_size and size): the "
                      "corners rotated about the image's centre onto rotate's canvas, then the bounding box "
                      "(mode \"expand\"), the original size (\"fixed\") or half-way (\"halfway\"); boxes are clipped "
                      "to the canvas and dropped (with their labels) when less than remove_threshold of their area "
                      "stays. Give it the image's shape before the rotation (input_shape).")
                 .Input("bboxes", "float [N, 4] boxes (bbox_layout; relative with bbox_normalized).", {DType::kFloat32})
                 .Input("labels", "Labels of the boxes ([N] or [N, ...], any type), dropped with them.")
                 .OptionalInputs(1)
                 .Output("bboxes", "float [K, 4]: the rotated boxes that stay, relative to (or in pixels of) the canvas.")
                 .NumOutputsFn([](const OpSpec& spec) { return spec.inputs.size() > 1 ? 2 : 1; })
                 .Arg("angle", ArgType::kFloat, std::nullopt, "Degrees, counter-clockwise (as rotate).", true)
                 .Arg("input_shape", ArgType::kFloatList, std::nullopt,
                      "The image's shape before rotation, in shape_layout's order (e.g. image.shape()).", true)
                 .Arg("shape_layout", ArgType::kString, std::string("HW"), "The meaning of input_shape's values.")
                 .Arg("bbox_layout", ArgType::kString, std::string("xyXY"), "\"xyXY\" (ltrb) or \"xyWH\".")
                 .Arg("bbox_normalized", ArgType::kBool, true, "Boxes are relative to the image (else pixels).")
                 .Arg("keep_size", ArgType::kBool, false, "The canvas is the image's size (as rotate's keep_size).")
                 .Arg("size", ArgType::kFloatList, std::vector<double>{}, "The canvas [H, W] (as rotate's size).", true)
                 .Arg("mode", ArgType::kString, std::string("expand"), "\"expand\", \"halfway\" or \"fixed\".")
                 .Enum({"expand", "halfway", "fixed"})
                 .Arg("remove_threshold", ArgType::kFloat, 0.1,
                      "Boxes keeping less than this fraction of their area on the canvas are dropped.")
                 .Range(0, 1)
                 .Factory("cpu", MakeFactory<BboxRotateOp>()));
}

}  // namespace sluice
