#include "operators/resize/resampling_args.h"

#include <algorithm>

namespace sluice {
namespace {

constexpr kernels::ResizeFilter kFilters[] = {kernels::ResizeFilter::kNearest, kernels::ResizeFilter::kLinear,
                                              kernels::ResizeFilter::kCubic, kernels::ResizeFilter::kLanczos3,
                                              kernels::ResizeFilter::kTriangular, kernels::ResizeFilter::kGaussian};

kernels::ResizeFilter FilterOf(const std::string& s) {
  const auto& names = ResizeFilterNames();
  return kFilters[std::find(names.begin(), names.end(), s) - names.begin()];  // the schema admits only these
}

}  // namespace

const std::vector<std::string>& ResizeFilterNames() {
  static const std::vector<std::string> names = {"NN", "LINEAR", "CUBIC", "LANCZOS3", "TRIANGULAR", "GAUSSIAN"};
  return names;
}

void AddResamplingArgs(OpSchema& s, bool antialias_default) {
  const std::vector<std::string>& filter_names = ResizeFilterNames();
  s.Arg("interp_type", ArgType::kString, std::string("LINEAR"), "Interpolation (types.INTERP_* or its name).")
      .Enum(filter_names, true)
      .Arg("min_filter", ArgType::kString, std::string("LINEAR"), "Filter when downscaling (default: interp_type).")
      .Enum(filter_names, true)
      .Arg("mag_filter", ArgType::kString, std::string("LINEAR"), "Filter when upscaling (default: interp_type).")
      .Enum(filter_names, true)
      .Arg("antialias", ArgType::kBool, antialias_default, "Widen the filter when downscaling.")
      .Arg("dtype", ArgType::kDType, std::string("uint8"), "Output type: the input's (the default) or float32; float32 input may also give uint8.")
      .Enum({"uint8", "int16", "uint16", "float32"})
      .Arg("minibatch_size", ArgType::kInt, int64_t{32}, "Images per GPU kernel call in DALI; no effect.")
      .Min(1)
      .Arg("temp_buffer_hint", ArgType::kInt, int64_t{0}, "DALI's GPU scratch-buffer presize; no effect.")
      .Min(0);
}

kernels::ResizeParams ResizeFilterParams(const Operator& op) {
  kernels::ResizeParams params;
  const auto interp = FilterOf(op.Arg<std::string>("interp_type"));
  params.min_filter = op.HasArg("min_filter") ? FilterOf(op.Arg<std::string>("min_filter")) : interp;
  params.mag_filter = op.HasArg("mag_filter") ? FilterOf(op.Arg<std::string>("mag_filter")) : interp;
  params.antialias = op.Arg<bool>("antialias");
  params.dali_nearest = true;  // NEAREST picks DALI's pixel where the source position is a tie
  return params;
}

}  // namespace sluice
