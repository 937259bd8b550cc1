#include "operators/slice/slice_pad_util.h"

#include <algorithm>
#include <memory>

#include "core/dtype_list.h"
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
    VisitDTypeIn<DTypeList<uint8_t, float16, float>>(out_type, "slice's output", [&](auto out_tag) {
      RunTyped<decltype(out_tag), In>(in, out, s, fill);
    });
  });
}

bool AllSameShape(const std::vector<TensorShape>& shapes) {
  if (shapes.empty()) return false;
  for (const auto& s : shapes)
    if (s != shapes[0]) return false;
  return true;
}

}  // namespace sluice
