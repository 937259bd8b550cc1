// filter: DALI's 2-D convolution with a per-sample filter (dali/operators/image/convolution/
// filter.h). Like DALI it computes a correlation (the filter is not flipped):
//   out[y, x] = sum_{i, j} in[y + i - anchor_y, x + j - anchor_x] * filter[i, j]
// in float32, the result converted to the output type (integers round and saturate). Inputs:
// the images (HWC, CHW or HW; sequences of them frame by frame, OpSchema::UnfoldsSequences), the filters (float32 2-D, one per sample) and optionally the fill
// values (one scalar per sample, for border="constant"; default 0). anchor -1: the centre
// (filter size / 2). mode="valid": the output is only where the filter fits, (H - kh + 1) x
// (W - kw + 1), anchor and border unused.
#include <cmath>

#include "kernels/filter/convolution.h"
#include "operators/filter/image_geom.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class FilterOp : public Operator {
 public:
  explicit FilterOp(const OpSpec& spec) : Operator(spec) {
    kernels::ParseBorderMode(Arg<std::string>("border"), &border_);  // the schema checked the spelling
    valid_ = Arg<std::string>("mode") == "valid";
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    types_ = ReadFilterBatchTypes(*this, ws);
    const int n = ws.batch_size();
    const TensorList& filters = ws.Input(1);
    if (filters.num_samples() != n)
      throw Error("input 'filter' has " + std::to_string(filters.num_samples()) + " samples, the images " +
                  std::to_string(n));
    if (filters.dtype() != DType::kFloat32)
      throw Error("input 'filter' must be float32, got " + std::string(ToString(filters.dtype())));
    const TensorList* fills = ws.num_inputs() >= 3 ? &ws.Input(2) : nullptr;
    if (fills && fills->num_samples() != n)
      throw Error("input 'fill_value' has " + std::to_string(fills->num_samples()) + " samples, the images " +
                  std::to_string(n));
    const auto anchors = PerSampleListArg<int>(ws, "anchor");
    params_.assign(static_cast<size_t>(n), {});
    std::vector<TensorShape> shapes;
    for (int i = 0; i < n; ++i) {
      const TensorShape& fs = filters.shape(i);
      if (fs.ndim() != 2 || fs[0] < 1 || fs[1] < 1)
        throw Error("input 'filter' must hold a non-empty 2-D filter per sample, sample " + std::to_string(i) +
                    " has shape " + fs.ToString());
      kernels::FilterParams& p = params_[static_cast<size_t>(i)];
      p.filter = filters.sample<float>(i);
      p.kh = static_cast<int>(fs[0]);
      p.kw = static_cast<int>(fs[1]);
      p.border = border_;
      p.valid = valid_;
      const auto& a = anchors[static_cast<size_t>(i)];
      if (a.size() != 1 && a.size() != 2)
        ThrowPerSample("anchor", i, "expected 1 value or 2 (one per spatial axis), got " + std::to_string(a.size()));
      const int ay = a[0], ax = a.size() == 2 ? a[1] : a[0];
      if (ay < -1 || ay >= p.kh || ax < -1 || ax >= p.kw)
        ThrowPerSample("anchor", i, "must be -1 (the centre) or inside the filter of shape " + fs.ToString());
      p.anchor_y = ay < 0 ? p.kh / 2 : ay;
      p.anchor_x = ax < 0 ? p.kw / 2 : ax;
      if (fills) {
        if (fills->shape(i).num_elements() != 1)
          throw Error("input 'fill_value' must be a scalar per sample, sample " + std::to_string(i) + " has shape " +
                      fills->shape(i).ToString());
        p.fill_value = detail::ReadElement<float>(*fills, i, 0);
      }
      const kernels::ImageGeom g = FilterImageGeom(in.shape(i), types_.layout);
      int64_t oh = g.height, ow = g.width;
      if (valid_) {
        oh = g.height - p.kh + 1;
        ow = g.width - p.kw + 1;
        if (oh < 1 || ow < 1)
          throw Error("mode='valid': filter of shape " + fs.ToString() + " is larger than sample " + std::to_string(i) +
                      " of shape " + in.shape(i).ToString());
      }
      shapes.push_back(FilterImageShape(oh, ow, g.channels, types_.layout));
    }
    return {OutputDesc{shapes, types_.out_type, types_.layout, false}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    kernels::Filter2D(in.raw_sample(i), types_.in_type, FilterImageGeom(in.shape(i), types_.layout),
                      out.raw_mutable_sample(i), types_.out_type, FilterImageGeom(out.shape(i), types_.layout),
                      params_[static_cast<size_t>(i)]);
  }

 private:
  kernels::BorderMode border_ = kernels::BorderMode::kReflect101;
  bool valid_ = false;
  FilterBatchTypes types_;
  std::vector<kernels::FilterParams> params_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterFilter) {
  OpSchema s("filter");
  s.Doc("Convolves images with a per-sample 2-D filter (a correlation, as DALI: the filter is not flipped), in "
        "float32. Inputs: the images, the filters (float32, 2-D) and optionally a scalar fill value per sample for "
        "border='constant'.")
      .Input("data", "Images: uint8, int16, uint16 or float32, or sequences of them (frame by frame).",
             {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32}, FilterImageLayouts().AllowSequence())
      .UnfoldsSequences()
      .Input("filter", "One float32 2-D filter (kh x kw) per sample (a sequence's frames share it).",
             {DType::kFloat32})
      .Input("fill_value", "One scalar per sample: the value outside the image for border='constant' (default 0).")
      .OptionalInputs(1)
      .Output("output", "The filtered images.")
      .Arg("anchor", ArgType::kIntList, std::vector<int64_t>{-1},
           "Position of the filter's origin, (y, x) or one value for both; -1: the centre (size / 2). Per sample "
           "allowed.",
           true)
      .Min(-1)
      .Count({1, 2})
      .Arg("border", ArgType::kString, std::string("reflect_101"),
           "How positions outside the image are read: reflect_101 (dcb|abcd|cba), reflect_1001 (cba|abcd|dcb), wrap, "
           "clamp or constant (the fill value).")
      .Enum({"reflect_101", "reflect_1001", "wrap", "clamp", "constant"})
      .Arg("mode", ArgType::kString, std::string("same"),
           "same: the output has the input's size; valid: only where the filter fits entirely.")
      .Enum({"same", "valid"})
      .Factory("cpu", MakeFactory<FilterOp>());
  AddFilterOutputTypeArg(s);
  r.Register(std::move(s));
}

}  // namespace sluice
