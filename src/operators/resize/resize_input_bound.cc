#include "operators/resize/resize_input_bound.h"

#include <cmath>
#include <string>

#include "kernels/resize/resize_window.h"
#include "operators/resize/resize_plan.h"

namespace sluice {
namespace {

std::optional<double> Num(const OpSpec& s, const char* name) {
  auto it = s.args.find(name);
  if (it == s.args.end()) return std::nullopt;
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return std::nullopt;
}

class ResizeRegion final : public RegionMap {
 public:
  explicit ResizeRegion(const OpSpec& spec) : op_(spec), args_(op_), sample_(ResizeSampleArgs::Constant(op_)) {}
  std::array<int, 2> OutputSize(int in_h, int in_w) const override {
    const ResizeSamplePlan p = Plan(in_h, in_w);
    return {p.out_h, p.out_w};
  }
  kernels::CropWindow InputWindow(int in_h, int in_w, const kernels::CropWindow& out) const override {
    const ResizeSamplePlan p = Plan(in_h, in_w);
    const kernels::CropWindow o = kernels::ClampToImage(out, p.out_h, p.out_w);
    const kernels::ResizeRoi& roi = *p.params.roi;
    const kernels::Span xs = kernels::ResizeSourceSpan(in_w, roi.x0, roi.x1, p.out_w, p.params, {o.x, o.x + o.w});
    const kernels::Span ys = kernels::ResizeSourceSpan(in_h, roi.y0, roi.y1, p.out_h, p.params, {o.y, o.y + o.h});
    return kernels::ClampToImage({xs.begin, ys.begin, xs.end - xs.begin, ys.end - ys.begin}, in_h, in_w);
  }

 private:
  ResizeSamplePlan Plan(int in_h, int in_w) const {
    ResizeSamplePlan p;
    PlanResizeSample(op_, args_, sample_, in_h, in_w, 1, p);
    return p;
  }
  const SpecArgs op_;
  const ResizeArgs args_;
  const ResizeSampleArgs sample_;
};

}  // namespace

std::shared_ptr<const RegionMap> ResizeInputRegion(const OpSpec& resize) {
  if (!resize.arg_inputs.empty()) return nullptr;
  if (auto it = resize.args.find("dtype"); it != resize.args.end()) {
    const auto* s = std::get_if<std::string>(&it->second);
    if (!s || *s != "uint8") return nullptr;
  }
  return std::make_shared<ResizeRegion>(resize);
}

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
