#include "pipeline/scaled_decode.h"

#include <cmath>
#include <map>
#include <optional>

namespace sluice {
namespace {

std::optional<double> Num(const OpSpec& s, const char* name) {
  auto it = s.args.find(name);
  if (it == s.args.end()) return std::nullopt;
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return std::nullopt;
}

// The (height, width) that the resize's output is at least, when its arguments say so for every
// image; nullopt when they do not (per-sample sizes, resize_longer, not_larger, a region of interest).
std::optional<std::pair<int64_t, int64_t>> LowerBound(const OpSpec& resize) {
  for (const char* a : {"resize_x", "resize_y", "size", "resize_shorter", "resize_longer", "roi_start", "roi_end"})
    if (resize.arg_inputs.count(a)) return std::nullopt;
  if (resize.args.count("roi_start") || resize.args.count("roi_end") || resize.args.count("resize_longer"))
    return std::nullopt;
  std::string mode = "default";
  if (auto it = resize.args.find("mode"); it != resize.args.end()) mode = std::get<std::string>(it->second);
  if (mode == "not_larger") return std::nullopt;
  if (auto s = Num(resize, "resize_shorter")) {
    const auto v = static_cast<int64_t>(std::ceil(*s));
    return v > 0 ? std::optional(std::make_pair(v, v)) : std::nullopt;
  }
  double h = 0, w = 0;
  if (auto it = resize.args.find("size"); it != resize.args.end()) {
    const auto& v = std::get<std::vector<double>>(it->second);
    if (v.size() != 2) return std::nullopt;
    h = v[0];
    w = v[1];
  } else {
    h = std::abs(Num(resize, "resize_y").value_or(0));
    w = std::abs(Num(resize, "resize_x").value_or(0));
  }
  // A missing extent is derived from the image's aspect ratio: no bound without both.
  if (h <= 0 || w <= 0) return std::nullopt;
  return std::make_pair(static_cast<int64_t>(std::ceil(h)), static_cast<int64_t>(std::ceil(w)));
}

}  // namespace

int ApplyScaledDecode(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs) {
  std::map<std::string, int> uses;  // edge -> number of consumers
  std::map<std::string, size_t> consumer;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (const auto& e : specs[i].inputs) { ++uses[e]; consumer[e] = i; }
    for (const auto& [a, e] : specs[i].arg_inputs) { ++uses[e]; consumer[e] = i; }
  }
  for (const auto& e : outputs) ++uses[e];
  int changed = 0;
  for (auto& s : specs) {
    if (s.op.rfind("decoders.image", 0) != 0 || (s.device != "cpu" && s.device != "mixed") || s.outputs.empty()) continue;
    if (auto it = s.args.find("scaled_decode"); it != s.args.end() && !std::get<bool>(it->second)) continue;
    if (s.args.count("decode_size_hint")) continue;
    const std::string& edge = s.outputs[0];
    if (uses[edge] != 1 || !consumer.count(edge)) continue;
    const OpSpec& user = specs[consumer[edge]];
    if (user.op != "resize" || user.inputs.empty() || user.inputs[0] != edge) continue;
    auto bound = LowerBound(user);
    if (!bound) continue;
    s.args["decode_size_hint"] = std::vector<int64_t>{bound->first, bound->second};
    ++changed;
  }
  return changed;
}

}  // namespace sluice
