// random_bbox_crop: DALI's RandomBBoxCrop for 2-D boxes (kernels/detection/bbox_crop.h). Outputs the
// window (anchor [x, y] and shape [w, h], relative, or absolute in input_shape units with
// crop_shape), the boxes that stay (relative to the window, in the input's layout), their labels
// (with the labels input) and their indices (output_bbox_indices).
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/detection/bbox_crop.h"
#include "operators/detection/box_input.h"
#include "operators/registry.h"

namespace sluice {
namespace {

bool LtrbLayout(const Operator& op) {
  const std::string layout = op.Arg<std::string>("bbox_layout");
  if (layout.empty() || layout == "xyXY") return true;
  if (layout == "xyWH") return false;
  op.ThrowArgError("bbox_layout", "'" + layout + "' is not supported: \"xyXY\" (ltrb, the default) or \"xyWH\" (2-D boxes only)");
}

// shape_layout: the order of crop_shape and input_shape; true when it is "HW" (else DALI's 2-D default "WH").
bool HeightFirst(const Operator& op) {
  const std::string layout = op.Arg<std::string>("shape_layout");
  if (layout.empty() || layout == "WH") return false;
  if (layout == "HW") return true;
  op.ThrowArgError("shape_layout", "'" + layout + "' is not supported: \"WH\" (the default) or \"HW\" (2-D boxes only)");
}

std::pair<float, float> Range(const Operator& op, const char* name) {
  const auto v = op.Arg<std::vector<double>>(name);
  if (v.size() != 2 || !(v[0] <= v[1]) || !(v[0] > 0))
    op.ThrowArgError(name, "expected [min, max] with 0 < min <= max (2-D boxes)");
  return {static_cast<float>(v[0]), static_cast<float>(v[1])};
}

class RandomBBoxCropOp : public Operator {
 public:
  explicit RandomBBoxCropOp(const OpSpec& spec) : Operator(spec), ltrb_(LtrbLayout(*this)) {
    params_.thresholds.clear();
    for (double t : Arg<std::vector<double>>("thresholds")) params_.thresholds.push_back(static_cast<float>(t));
    std::tie(params_.aspect_min, params_.aspect_max) = Range(*this, "aspect_ratio");
    std::tie(params_.scaling_min, params_.scaling_max) = Range(*this, "scaling");
    params_.allow_no_crop = Arg<bool>("allow_no_crop");
    params_.num_attempts = Arg<int>("num_attempts");
    params_.total_num_attempts = Arg<int64_t>("total_num_attempts");
    params_.overlap = Arg<std::string>("threshold_type") == "overlap";
    params_.all_boxes_above_threshold = Arg<bool>("all_boxes_above_threshold");
    params_.prune_threshold = Arg<float>("bbox_prune_threshold");
    if (params_.thresholds.empty() && !params_.allow_no_crop)
      ThrowArgError("thresholds", "is empty and allow_no_crop is False: there is nothing to choose from");
    if (HasArg("crop_shape") != HasArg("input_shape"))
      ThrowArgError("crop_shape", "crop_shape and input_shape go together");
    indices_ = Arg<bool>("output_bbox_indices");
    height_first_ = HeightFirst(*this);
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    CheckBoxInput(*this, ws, 0);
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    const bool labels = ws.num_inputs() > 1;
    if (labels) {
      const TensorList& lab = ws.Input(1);
      for (int i = 0; i < n; ++i)
        if (lab.shape(i).ndim() < 1 || lab.shape(i)[0] != in.shape(i)[0])
          throw Error("sample " + std::to_string(i) + ": " + std::to_string(in.shape(i)[0]) + " boxes but labels of shape " +
                      lab.shape(i).ToString());
    }
    std::vector<std::vector<int64_t>> crop, input;
    if (HasArg("crop_shape")) {
      crop = PerSampleListArg<int64_t>(ws, "crop_shape");
      input = PerSampleListArg<int64_t>(ws, "input_shape");
    }
    results_.assign(static_cast<size_t>(n), {});
    absolute_.assign(static_cast<size_t>(n), {});
    // The draws happen here (cheap next to decoding), each sample with its own generator.
    for (int i = 0; i < n; ++i) {
      kernels::BBoxCropParams p = params_;
      if (HasArg("crop_shape")) {
        std::vector<int64_t> c = crop[static_cast<size_t>(i)];
        std::vector<int64_t> s = input[static_cast<size_t>(i)];
        if (c.size() != 2 || s.size() != 2 || s[0] <= 0 || s[1] <= 0 || c[0] <= 0 || c[1] <= 0 || c[0] > s[0] || c[1] > s[1])
          ThrowPerSample("crop_shape", i, "crop_shape and input_shape must be 2 positive values (in shape_layout's "
                                          "order), the crop inside the input");
        if (height_first_) {  // [H, W] -> [W, H]
          std::swap(c[0], c[1]);
          std::swap(s[0], s[1]);
        }
        p.fixed_w = static_cast<float>(c[0]) / static_cast<float>(s[0]);
        p.fixed_h = static_cast<float>(c[1]) / static_cast<float>(s[1]);
        absolute_[static_cast<size_t>(i)] = {static_cast<float>(s[0]), static_cast<float>(s[1])};
      }
      RandomGenerator rng = ws.SampleRng(i);
      results_[static_cast<size_t>(i)] = kernels::RandomBBoxCrop(ReadBoxes(in, i, ltrb_), p, rng);
    }
    OutputDesc anchor, shape, boxes, out_labels, idx;
    anchor.dtype = shape.dtype = boxes.dtype = DType::kFloat32;
    idx.dtype = DType::kInt32;
    if (labels) out_labels.dtype = ws.Input(1).dtype();
    for (int i = 0; i < n; ++i) {
      const int64_t k = static_cast<int64_t>(results_[static_cast<size_t>(i)].boxes.size());
      anchor.shapes.push_back(TensorShape{2});
      shape.shapes.push_back(TensorShape{2});
      boxes.shapes.push_back(TensorShape{k, 4});
      if (labels) {
        std::vector<int64_t> s = ws.Input(1).shape(i).to_vector();
        s[0] = k;
        out_labels.shapes.push_back(TensorShape(s));
      }
      idx.shapes.push_back(TensorShape{k});
    }
    std::vector<OutputDesc> out{anchor, shape, boxes};
    if (labels) out.push_back(out_labels);
    if (indices_) out.push_back(idx);
    return out;
  }

  void RunSample(Workspace& ws, int i, int) override {
    const auto& r = results_[static_cast<size_t>(i)];
    const auto& abs = absolute_[static_cast<size_t>(i)];
    float* anchor = ws.Output(0).mutable_sample<float>(i);
    float* shape = ws.Output(1).mutable_sample<float>(i);
    const float sx = abs.empty() ? 1.f : abs[0], sy = abs.empty() ? 1.f : abs[1];
    anchor[0] = r.window.l * sx;
    anchor[1] = r.window.t * sy;
    shape[0] = (r.window.r - r.window.l) * sx;
    shape[1] = (r.window.b - r.window.t) * sy;
    float* boxes = ws.Output(2).mutable_sample<float>(i);
    for (size_t b = 0; b < r.boxes.size(); ++b) kernels::WriteBox(r.boxes[b], boxes + 4 * b, ltrb_);
    int o = 3;
    if (ws.num_inputs() > 1) {
      const TensorList& lab = ws.Input(1);
      const int64_t n = lab.shape(i)[0];
      const size_t row = n ? static_cast<size_t>(lab.shape(i).num_elements() / n) * SizeOf(lab.dtype()) : 0;
      auto* dst = static_cast<char*>(ws.Output(o++).raw_mutable_sample(i));
      const auto* src = static_cast<const char*>(lab.raw_sample(i));
      for (size_t b = 0; b < r.indices.size(); ++b) std::memcpy(dst + b * row, src + static_cast<size_t>(r.indices[b]) * row, row);
    }
    if (indices_) {
      int32_t* idx = ws.Output(o).mutable_sample<int32_t>(i);
      for (size_t b = 0; b < r.indices.size(); ++b) idx[b] = r.indices[b];
    }
  }

 private:
  const bool ltrb_;
  bool indices_ = false;
  bool height_first_ = false;
  kernels::BBoxCropParams params_;
  std::vector<kernels::BBoxCropResult> results_;
  std::vector<std::vector<float>> absolute_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRandomBBoxCrop) {
  OpSchema s("random_bbox_crop");
  s.Doc("Draws a random crop window that keeps the bounding boxes (SSD's sampling, DALI's RandomBBoxCrop, 2-D): a "
        "threshold is drawn uniformly from thresholds (and \"no crop\" with allow_no_crop), then windows with sides "
        "uniform in scaling and aspect ratio in aspect_ratio until every box overlaps the window by at least the "
        "threshold (IoU, or the box's covered fraction with threshold_type=\"overlap\"). Outputs: anchor [x, y], shape "
        "[w, h] of the window (relative, or absolute with crop_shape), the boxes that stay (centre in the window, or "
        "covered by bbox_prune_threshold) clipped and relative to the window, their labels (with the labels input) "
        "and their indices (output_bbox_indices). Feed anchor and shape to decoders.image_slice or slice.")
      .Input("bboxes", "float [N, 4] relative boxes (bbox_layout).", {DType::kFloat32})
      .Input("labels", "Labels of the boxes ([N] or [N, ...], any type).")
      .OptionalInputs(1)
      .Output("anchor", "float [2]: the window's [x, y].")
      .Output("shape", "float [2]: the window's [w, h].")
      .Output("bboxes", "float [K, 4]: the boxes that stay, relative to the window.")
      .NumOutputsFn([](const OpSpec& spec) {
        auto it = spec.args.find("output_bbox_indices");
        const bool idx = it != spec.args.end() && std::holds_alternative<bool>(it->second) && std::get<bool>(it->second);
        return 3 + (spec.inputs.size() > 1 ? 1 : 0) + (idx ? 1 : 0);
      })
      .Arg("thresholds", ArgType::kFloatList, std::vector<double>{0.0},
           "The minimum overlaps to choose from (uniformly, per sample).")
      .Range(0, 1)
      .Arg("aspect_ratio", ArgType::kFloatList, std::vector<double>{1.0, 1.0},
           "[min, max] of the window's aspect ratio w / h (relative to the image).")
      .Arg("scaling", ArgType::kFloatList, std::vector<double>{1.0, 1.0},
           "[min, max] of each window side relative to the image's.")
      .Arg("bbox_layout", ArgType::kString, std::string(), "\"xyXY\" (ltrb, default) or \"xyWH\".")
      .Arg("allow_no_crop", ArgType::kBool, true, "\"No crop\" is one of the options drawn.")
      .Arg("num_attempts", ArgType::kInt, int64_t{1}, "Windows tried per drawn threshold before drawing again.")
      .Min(1)
      .Arg("total_num_attempts", ArgType::kInt, int64_t{-1},
           "Windows tried in all before returning the whole image (-1: 10,000, so an impossible request ends).")
      .Arg("threshold_type", ArgType::kString, std::string("iou"),
           "\"iou\": intersection over union; \"overlap\": intersection / box area.")
      .Enum({"iou", "overlap"})
      .Arg("all_boxes_above_threshold", ArgType::kBool, true,
           "Every box must pass the threshold (else one box suffices).")
      .Arg("bbox_prune_threshold", ArgType::kFloat, -1.0,
           "Keep the boxes at least this fraction of which lies in the window (DALI's default None, here any negative "
           "value: those whose centre does).")
      .Range(-1, 1)
      .Arg("crop_shape", ArgType::kIntList, std::vector<int64_t>{}, "A fixed window [W, H] (with input_shape).", true)
      .Arg("input_shape", ArgType::kIntList, std::vector<int64_t>{}, "The image's [W, H] (with crop_shape).", true)
      .Arg("shape_layout", ArgType::kString, std::string(),
           "The order of crop_shape and input_shape: \"WH\" (DALI's 2-D default, also when empty) or \"HW\".")
      .Arg("output_bbox_indices", ArgType::kBool, false, "Add an output with the indices of the boxes that stay.")
      .Random()
      .Factory("cpu", MakeFactory<RandomBBoxCropOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
