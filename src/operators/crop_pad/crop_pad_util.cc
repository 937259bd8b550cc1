#include "operators/crop_pad/crop_pad_util.h"

#include <algorithm>
#include <memory>

#include "kernels/tensor/cast.h"

namespace sluice {

std::vector<int> AxesFromNames(const Operator& op, const std::string& arg, const std::string& names,
                               const std::string& layout) {
  std::vector<int> axes;
  for (char c : names) {
    const auto pos = layout.find(c);
    if (pos == std::string::npos)
      op.ThrowArgError(arg, "names dimension '" + std::string(1, c) + "', which the input's layout '" + layout +
                                "' does not have" + (layout.empty() ? " (the input has no layout; use axes)" : ""));
    const int a = static_cast<int>(pos);
    if (std::find(axes.begin(), axes.end(), a) != axes.end())
      op.ThrowArgError(arg, "names dimension '" + std::string(1, c) + "' twice");
    axes.push_back(a);
  }
  return axes;
}

std::vector<int> NormalizeAxes(const Operator& op, const std::string& arg, const std::vector<int>& axes, int ndim) {
  std::vector<int> out;
  for (int a : axes) {
    if (a < -ndim || a >= ndim)
      op.ThrowArgError(arg, "axis " + std::to_string(a) + " is out of range for " + std::to_string(ndim) +
                                "-D input (valid: " + std::to_string(-ndim) + ".." + std::to_string(ndim - 1) + ")");
    const int k = a < 0 ? a + ndim : a;
    if (std::find(out.begin(), out.end(), k) != out.end()) op.ThrowArgError(arg, "axis " + std::to_string(k) + " is listed twice");
    out.push_back(k);
  }
  return out;
}

namespace {

template <typename Out, typename In>
void RunTyped(const void* in, void* out, const kernels::SliceSpec& s, const std::vector<double>& fill) {
  std::unique_ptr<Out[]> f(new Out[fill.size()]);  // not std::vector: vector<bool> has no data()
  for (size_t k = 0; k < fill.size(); ++k) f[k] = kernels::ConvertSaturate<Out>(fill[k]);
  kernels::SlicePad<Out, In>(static_cast<const In*>(in), static_cast<Out*>(out), s, std::span<const Out>(f.get(), fill.size()));
}

}  // namespace

void RunSlicePad(const void* in, DType in_type, void* out, DType out_type, const kernels::SliceSpec& s,
                 const std::vector<double>& fill) {
  if (in_type == out_type) {
    VisitDType(in_type, [&](auto tag) {
      using T = decltype(tag);
      RunTyped<T, T>(in, out, s, fill);
    });
    return;
  }
  VisitDType(in_type, [&](auto tag) {
    using In = decltype(tag);
    switch (out_type) {
      case DType::kUInt8: RunTyped<uint8_t, In>(in, out, s, fill); break;
      case DType::kFloat16: RunTyped<float16, In>(in, out, s, fill); break;
      case DType::kFloat32: RunTyped<float, In>(in, out, s, fill); break;
      default: throw Error("slice: output type " + std::string(ToString(out_type)) + " is not supported");
    }
  });
}

bool AllSameShape(const std::vector<TensorShape>& shapes) {
  if (shapes.empty()) return false;
  for (const auto& s : shapes)
    if (s != shapes[0]) return false;
  return true;
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

void CheckRandomCropRanges(const ArgView& a) {
  const auto area = a.Numbers("random_area");
  if (!area.empty() && (!(area.front() > 0) || area.front() > area.back()))
    throw ArgCheckError{"random_area", "expected 0 < min <= max <= 1"};
  const auto ratio = a.Numbers("random_aspect_ratio");
  if (!ratio.empty() && ratio.front() > ratio.back()) throw ArgCheckError{"random_aspect_ratio", "expected 0 < min <= max"};
}

}  // namespace sluice
