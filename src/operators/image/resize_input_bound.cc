#include "operators/image/resize_input_bound.h"

#include <cmath>
#include <string>

namespace sluice {
namespace {

std::optional<double> Num(const OpSpec& s, const char* name) {
  auto it = s.args.find(name);
  if (it == s.args.end()) return std::nullopt;
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return std::nullopt;
}

}  // namespace

std::optional<std::array<int64_t, 2>> ResizeMinInputSize(const OpSpec& resize) {
  for (const char* a : {"resize_x", "resize_y", "size", "resize_shorter", "resize_longer", "roi_start", "roi_end"})
    if (resize.arg_inputs.count(a)) return std::nullopt;
  if (resize.args.count("roi_start") || resize.args.count("roi_end") || resize.args.count("resize_longer"))
    return std::nullopt;
  if (auto it = resize.args.find("mode"); it != resize.args.end() && std::get<std::string>(it->second) == "not_larger")
    return std::nullopt;
  if (auto s = Num(resize, "resize_shorter")) {
    const auto v = static_cast<int64_t>(std::ceil(*s));
    return v > 0 ? std::optional(std::array<int64_t, 2>{v, v}) : std::nullopt;
  }
  double h = 0, w = 0;
  if (auto it = resize.args.find("size"); it != resize.args.end()) {
    const auto& v = std::get<std::vector<double>>(it->second);
    if (v.empty() || v.size() > 2) return std::nullopt;
    h = v[0];
    w = v.back();  // one value: every extent
  } else {
    h = std::abs(Num(resize, "resize_y").value_or(0));
    w = std::abs(Num(resize, "resize_x").value_or(0));
  }
  // A missing extent is derived from the image's aspect ratio: no bound without both.
  if (h <= 0 || w <= 0) return std::nullopt;
  return std::array<int64_t, 2>{static_cast<int64_t>(std::ceil(h)), static_cast<int64_t>(std::ceil(w))};
}

}  // namespace sluice
