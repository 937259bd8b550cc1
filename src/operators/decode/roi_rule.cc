#include "operators/decode/roi_rule.h"

#include <array>

#include "operators/op_spec_encoding.h"
#include "operators/registry.h"

namespace sluice {

RoiRule::RoiRule(const std::vector<std::string>& chain, const std::string& op_name, const std::string& arg) {
  auto fail = [&](const std::string& msg) {
    Error::Context c;
    c.op = op_name;
    c.argument = arg;
    return Error(msg, c);
  };
  for (const auto& entry : chain) {
    OpSpec spec;
    try {
      spec = DecodeSpec(entry);
    } catch (const Error& e) {
      throw fail(e.message());
    }
    const OpSchema* schema = OperatorRegistry::Get().Find(spec.op);
    std::shared_ptr<const RegionMap> map = schema && schema->input_region() ? schema->input_region()(spec) : nullptr;
    if (!map) throw fail("operator '" + spec.op + "' has no input region for these arguments");
    maps_.push_back(std::move(map));
  }
}

kernels::CropWindow RoiRule::Window(int full_h, int full_w) const {
  const kernels::CropWindow whole{0, 0, full_w, full_h};
  try {
    std::vector<std::array<int, 2>> in_sizes;  // input extents of each map
    std::array<int, 2> size{full_h, full_w};
    for (const auto& m : maps_) {
      in_sizes.push_back(size);
      size = m->OutputSize(size[0], size[1]);
      if (size[0] <= 0 || size[1] <= 0) return whole;
    }
    kernels::CropWindow need{0, 0, size[1], size[0]};  // the last output is needed whole
    for (size_t k = maps_.size(); k-- > 0;) {
      need = maps_[k]->InputWindow(in_sizes[k][0], in_sizes[k][1], need);
      if (need.w <= 0 || need.h <= 0) return whole;
    }
    return kernels::ClampToImage(need, full_h, full_w);
  } catch (const Error&) {
    return whole;  // e.g. a size rule that rejects these extents: the operators will say so
  }
}

}  // namespace sluice
