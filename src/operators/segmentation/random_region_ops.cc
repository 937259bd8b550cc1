// segmentation.random_mask_pixel and roi_random_crop: random points and windows for segmentation
// crops (DALI's RandomMaskPixel and ROIRandomCrop), drawn with each sample's own generator (the
// same for any num_threads).
//
// random_mask_pixel: with foreground = 1, a pixel uniformly among those equal to `value` (when
// given) or above `threshold`; with foreground = 0, or when the mask has no such pixel, uniformly
// among all pixels. Output: its coordinates (int64 [ndim]).
// roi_random_crop: per axis, the start of a crop_shape window placed uniformly (integers,
// inclusive) so that it contains the ROI when it is bigger, or lies inside the ROI when smaller,
// then within [0, in_shape - crop_shape] when the input's shape is known (in_shape or the input).
#include <algorithm>
#include <type_traits>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class RandomMaskPixelOp : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    value_ = PerSampleArg<int64_t>(ws, "value");
    threshold_ = PerSampleArg<double>(ws, "threshold");
    foreground_ = PerSampleArg<int64_t>(ws, "foreground");
    OutputDesc d;
    d.dtype = DType::kInt64;
    for (int i = 0; i < in.num_samples(); ++i) d.shapes.push_back(TensorShape{in.shape(i).ndim()});
    return {d};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const int64_t total = s.num_elements();
    int64_t* out = ws.Output(0).mutable_sample<int64_t>(i);
    const auto k = static_cast<size_t>(i);
    RandomGenerator rng = ws.SampleRng(i);
    int64_t flat = 0;
    if (total > 0) {
      std::vector<int64_t> hits;
      if (foreground_[k] != 0) {
        const bool by_value = HasArg("value");
        VisitDType(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* p = in.sample<T>(i);
          for (int64_t e = 0; e < total; ++e) {
            double v;
            if constexpr (std::is_same_v<T, float16>) v = static_cast<float>(p[e]);
            else v = static_cast<double>(p[e]);
            if (by_value ? v == static_cast<double>(value_[k]) : v > threshold_[k]) hits.push_back(e);
          }
        });
      }
      flat = hits.empty() ? rng.UniformInt(0, total - 1) : hits[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(hits.size()) - 1))];
    }
    for (int d = s.ndim() - 1; d >= 0; --d) {
      out[d] = s[d] ? flat % s[d] : 0;
      flat = s[d] ? flat / s[d] : 0;
    }
  }

 private:
  std::vector<int64_t> value_, foreground_;
  std::vector<double> threshold_;
};

class RoiRandomCropOp : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.batch_size();
    const auto crop = PerSampleListArg<int64_t>(ws, "crop_shape");
    const auto start = PerSampleListArg<int64_t>(ws, "roi_start");
    const auto end = PerSampleListArg<int64_t>(ws, "roi_end");
    const auto shape = PerSampleListArg<int64_t>(ws, "roi_shape");
    const auto in_shape = PerSampleListArg<int64_t>(ws, "in_shape");
    if (HasArg("roi_end") == HasArg("roi_shape")) ThrowArgError("roi_end", "give exactly one of roi_end and roi_shape");
    if (HasArg("in_shape") && ws.num_inputs() > 0) ThrowArgError("in_shape", "cannot be combined with the input");
    starts_.assign(static_cast<size_t>(n), {});
    OutputDesc d;
    d.dtype = DType::kInt64;
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const size_t nd = crop[k].size();
      std::vector<int64_t> lo = start[k], hi = HasArg("roi_end") ? end[k] : start[k];
      if (lo.size() != nd || hi.size() != nd) ThrowPerSample("roi_start", i, "roi_start, roi_end/roi_shape and crop_shape need one value per axis");
      if (HasArg("roi_shape"))
        for (size_t a = 0; a < nd; ++a) hi[a] = lo[a] + shape[k][a];
      std::vector<int64_t> bounds;
      if (HasArg("in_shape")) bounds = in_shape[k];
      if (ws.num_inputs() > 0) bounds = ws.Input(0).shape(i).to_vector();
      if (!bounds.empty() && bounds.size() != nd) ThrowPerSample("in_shape", i, "the input has " + std::to_string(bounds.size()) + " axes, crop_shape " + std::to_string(nd));
      RandomGenerator rng = ws.SampleRng(i);
      for (size_t a = 0; a < nd; ++a) {
        const int64_t c = crop[k][a];
        if (c < 0) ThrowPerSample("crop_shape", i, "must not be negative");
        if (hi[a] < lo[a]) ThrowPerSample("roi_start", i, "the ROI ends before it starts along axis " + std::to_string(a));
        int64_t first = c >= hi[a] - lo[a] ? hi[a] - c : lo[a];
        int64_t last = c >= hi[a] - lo[a] ? lo[a] : hi[a] - c;
        if (!bounds.empty()) {
          if (c > bounds[a]) ThrowPerSample("crop_shape", i, "is larger than the input along axis " + std::to_string(a));
          if (lo[a] < 0 || hi[a] > bounds[a]) ThrowPerSample("roi_start", i, "the ROI is outside the input along axis " + std::to_string(a));
          first = std::clamp<int64_t>(first, 0, bounds[a] - c);
          last = std::clamp<int64_t>(last, 0, bounds[a] - c);
        }
        starts_[k].push_back(rng.UniformInt(first, last));
      }
      d.shapes.push_back(TensorShape{static_cast<int64_t>(nd)});
    }
    return {d};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const auto& s = starts_[static_cast<size_t>(i)];
    std::copy(s.begin(), s.end(), ws.Output(0).mutable_sample<int64_t>(i));
  }

 private:
  std::vector<std::vector<int64_t>> starts_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRandomRegionOps) {
  r.Register(OpSchema("segmentation.random_mask_pixel")
                 .Doc("A random pixel of a mask: uniformly among the foreground pixels (== value, or > threshold) with "
                      "foreground=1 (among all pixels when there is none), among all pixels with foreground=0. Output: "
                      "its coordinates (int64 [ndim]).")
                 .Input("mask", "The mask (any numeric type, any rank).")
                 .Output("coordinates", "int64 [ndim].")
                 .Arg("value", ArgType::kInt, int64_t{0}, "Foreground is mask == value (when given; else > threshold).", true)
                 .Arg("threshold", ArgType::kFloat, 0.0, "Foreground is mask > threshold (without value).", true)
                 .Arg("foreground", ArgType::kInt, int64_t{0}, "1: draw a foreground pixel; 0: any pixel.", true)
                 .Range(0, 1)
                 .Exclusive({"value", "threshold"})
                 .Random()
                 .Factory("cpu", MakeFactory<RandomMaskPixelOp>()));
  r.Register(OpSchema("roi_random_crop")
                 .Doc("The start of a random crop_shape window that contains the ROI (or lies inside it when the ROI is "
                      "bigger), within the input's shape when known. Output: int64 [ndim] (feed it to slice).")
                 .Input("data", "Optional: the data to crop (only its shape is used).")
                 .OptionalInputs(1)
                 .Output("anchor", "int64 [ndim]: the window's start.")
                 .Arg("crop_shape", ArgType::kIntList, std::nullopt, "The window's shape.", true)
                 .Arg("roi_start", ArgType::kIntList, std::nullopt, "The ROI's start.", true)
                 .Arg("roi_end", ArgType::kIntList, std::vector<int64_t>{}, "The ROI's end (exclusive).", true)
                 .Arg("roi_shape", ArgType::kIntList, std::vector<int64_t>{}, "The ROI's shape.", true)
                 .Arg("in_shape", ArgType::kIntList, std::vector<int64_t>{}, "The input's shape (without the input).", true)
                 .Random()
                 .Factory("cpu", MakeFactory<RoiRandomCropOp>()));
}

}  // namespace sluice
