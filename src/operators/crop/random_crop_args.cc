#include "operators/crop/random_crop_args.h"

namespace sluice {

OpSchema& AddRandomCropArgs(OpSchema& s, const std::string& what) {
  return s.Arg("random_area", ArgType::kFloatList, std::vector<double>{0.08, 1.0},
               "Range of the " + what + "'s area as a fraction of the image's, drawn uniformly (one value: fixed).")
      .Count({1, 2})
      .Range(0, 1)
      .Arg("random_aspect_ratio", ArgType::kFloatList, std::vector<double>{3.0 / 4.0, 4.0 / 3.0},
           "Range of the " + what + "'s aspect ratio (width / height), drawn log-uniformly (one value: fixed).")
      .Count({1, 2})
      .Above(0)
      .Arg("num_attempts", ArgType::kInt, int64_t{10},
           "Tries at a " + what + " that fits before the fallback (the whole image clamped to the ratio range, centred).")
      .Min(1)
      .Check([](const ArgView& a) {
        const auto area = a.Numbers("random_area");
        if (!area.empty() && (!(area.front() > 0) || area.front() > area.back()))
          throw ArgCheckError{"random_area", "expected 0 < min <= max <= 1"};
        const auto ratio = a.Numbers("random_aspect_ratio");
        if (!ratio.empty() && ratio.front() > ratio.back())
          throw ArgCheckError{"random_aspect_ratio", "expected 0 < min <= max"};
      });
}

kernels::RandomCropParams RandomCropParamsFrom(const Operator& op) {
  const auto area = op.Arg<std::vector<double>>("random_area");
  const auto ratio = op.Arg<std::vector<double>>("random_aspect_ratio");
  kernels::RandomCropParams p;
  p.area_min = static_cast<float>(area.front());
  p.area_max = static_cast<float>(area.back());
  p.ratio_min = static_cast<float>(ratio.front());
  p.ratio_max = static_cast<float>(ratio.back());
  p.num_attempts = op.Arg<int>("num_attempts");
  return p;
}

}  // namespace sluice
