#include "operators/crop/crop_args.h"

#include <cmath>

#include <sluice/error.h>

#include "operators/operator.h"

namespace sluice {

OpSchema& AddCropArgs(OpSchema& s, bool volumetric) {
  if (volumetric)
    s.Arg("crop", ArgType::kFloatList, std::vector<double>{},
          "Crop size (crop_H, crop_W), or (crop_D, crop_H, crop_W) for volumes, or one value for a square "
          "(cubic) window.", true)
        .Count({0, 1, 2, 3}).Min(0)
        .Arg("crop_d", ArgType::kFloat, 0.0, "Crop depth of volumes; 0 keeps the input depth.", true)
        .Min(0)
        .Arg("crop_pos_z", ArgType::kFloat, 0.5, "Relative depth anchor of volumes: 0 = front, 1 = back.", true)
        .Exclusive({"crop", "crop_d"});
  else
    s.Arg("crop", ArgType::kFloatList, std::vector<double>{},
          "Crop size (crop_H, crop_W), or one value for a square window.", true)
        .Count({0, 1, 2}).Min(0);
  return s
      .Arg("crop_h", ArgType::kFloat, 0.0, "Crop height; 0 keeps the input height (with crop_w).", true)
      .Min(0)
      .Arg("crop_w", ArgType::kFloat, 0.0, "Crop width; 0 keeps the input width (with crop_h).", true)
      .Min(0)
      .Arg("crop_pos_x", ArgType::kFloat, 0.5, "Relative horizontal anchor: 0 = left, 1 = right.", true)
      .Arg("crop_pos_y", ArgType::kFloat, 0.5, "Relative vertical anchor: 0 = top, 1 = bottom.", true)
      .Arg("rounding", ArgType::kString, std::string("round"),
           "How the anchor pos * (in - crop) becomes an integer: \"round\" (halfway cases away from zero) or "
           "\"truncate\" (toward zero).")
      .Enum({"round", "truncate"})
      .Exclusive({"crop", "crop_h"})
      .Exclusive({"crop", "crop_w"});
}

CropArgs ReadCropArgs(const Operator& op, const Workspace& ws, bool volumetric) {
  CropArgs a;
  if (volumetric) {
    a.crop_d = op.PerSampleArg<float>(ws, "crop_d");
    a.pos_z = op.PerSampleArg<float>(ws, "crop_pos_z");
  }
  a.crop = op.PerSampleListArg<float>(ws, "crop");
  a.crop_h = op.PerSampleArg<float>(ws, "crop_h");
  a.crop_w = op.PerSampleArg<float>(ws, "crop_w");
  a.pos_x = op.PerSampleArg<float>(ws, "crop_pos_x");
  a.pos_y = op.PerSampleArg<float>(ws, "crop_pos_y");
  a.any_crop = op.HasArg("crop") || op.HasArg("crop_h") || op.HasArg("crop_w") || (volumetric && op.HasArg("crop_d"));
  a.truncate = op.Arg<std::string>("rounding") == "truncate";
  return a;
}

kernels::CropWindow ResolveCrop(const CropArgs& a, int i, int in_h, int in_w, const std::string& op_name) {
  const size_t k = static_cast<size_t>(i);
  double h = 0, w = 0;
  if (!a.crop[k].empty()) {
    if (a.crop[k].size() > 2) {
      Error::Context c;
      c.op = op_name;
      c.argument = "crop";
      throw Error("expected (crop_H, crop_W) or one value, got " + std::to_string(a.crop[k].size()) + " values", c);
    }
    h = a.crop[k][0];
    w = a.crop[k].size() == 2 ? a.crop[k][1] : h;  // one value: a square window, as in DALI
  } else {
    h = a.crop_h[k];
    w = a.crop_w[k];
  }
  if (h < 0 || w < 0) {
    Error::Context c;
    c.op = op_name;
    c.argument = "crop";
    throw Error("crop extents must be non-negative", c);
  }
  const int ch = h > 0 ? static_cast<int>(std::lround(h)) : in_h;
  const int cw = w > 0 ? static_cast<int>(std::lround(w)) : in_w;
  kernels::CropWindow win;
  win.h = ch;
  win.w = cw;
  auto anchor = [&](double x) { return static_cast<int>(a.truncate ? std::trunc(x) : std::round(x)); };
  win.x = anchor(static_cast<double>(a.pos_x[k]) * (in_w - cw));
  win.y = anchor(static_cast<double>(a.pos_y[k]) * (in_h - ch));
  return win;
}

CropWindow3 ResolveCrop3(const CropArgs& a, int i, int in_d, int in_h, int in_w, const std::string& op_name) {
  const size_t k = static_cast<size_t>(i);
  CropArgs hw = a;  // the height and width part: (h, w) of a 3-value or a 1-value crop
  double d = a.crop_d.empty() ? 0.0 : a.crop_d[k];
  const std::vector<float>& c = a.crop[k];
  if (c.size() == 3) {
    d = c[0];
    hw.crop[k] = {c[1], c[2]};
  } else if (c.size() == 1) {
    d = c[0];
  }
  CropWindow3 out;
  out.hw = ResolveCrop(hw, i, in_h, in_w, op_name);
  out.d = d > 0 ? static_cast<int>(std::lround(d)) : in_d;
  const double z = static_cast<double>(a.pos_z.empty() ? 0.5f : a.pos_z[k]) * (in_d - out.d);
  out.z = static_cast<int>(a.truncate ? std::trunc(z) : std::round(z));
  return out;
}

namespace {

class CropRegion final : public RegionMap {
 public:
  CropRegion(CropArgs args, bool trim, std::string op_name)
      : args_(std::move(args)), trim_(trim), op_name_(std::move(op_name)) {}
  std::array<int, 2> OutputSize(int in_h, int in_w) const override {
    const kernels::CropWindow w = Window(in_h, in_w);
    return {w.h, w.w};
  }
  kernels::CropWindow InputWindow(int in_h, int in_w, const kernels::CropWindow&) const override {
    return kernels::ClampToImage(Window(in_h, in_w), in_h, in_w);
  }

 private:
  kernels::CropWindow Window(int in_h, int in_w) const {
    const kernels::CropWindow w = ResolveCrop(args_, 0, in_h, in_w, op_name_);
    return trim_ ? kernels::ClampToImage(w, in_h, in_w) : w;
  }
  CropArgs args_;
  bool trim_;
  std::string op_name_;
};

}  // namespace

std::shared_ptr<const RegionMap> CropInputRegion(const OpSpec& spec) {
  for (const char* a : {"crop", "crop_h", "crop_w", "crop_pos_x", "crop_pos_y"})
    if (spec.arg_inputs.count(a)) return nullptr;
  const SpecArgs op(spec);
  CropArgs a;
  a.crop = {op.Arg<std::vector<float>>("crop")};
  a.crop_h = {op.Arg<float>("crop_h")};
  a.crop_w = {op.Arg<float>("crop_w")};
  a.pos_x = {op.Arg<float>("crop_pos_x")};
  a.pos_y = {op.Arg<float>("crop_pos_y")};
  a.any_crop = op.HasArg("crop") || op.HasArg("crop_h") || op.HasArg("crop_w");
  a.truncate = op.Arg<std::string>("rounding") == "truncate";
  if (!a.any_crop) return nullptr;  // reads the whole input
  return std::make_shared<CropRegion>(std::move(a), ReadOutOfBoundsPolicy(op) == kernels::OutOfBoundsPolicy::kTrim,
                                      spec.name);
}

kernels::OutOfBoundsPolicy ReadOutOfBoundsPolicy(const Operator& op) {
  const std::string s = op.Arg<std::string>("out_of_bounds_policy");
  if (s == "pad") return kernels::OutOfBoundsPolicy::kPad;
  if (s == "trim_to_shape") return kernels::OutOfBoundsPolicy::kTrim;
  return kernels::OutOfBoundsPolicy::kError;
}

}  // namespace sluice
