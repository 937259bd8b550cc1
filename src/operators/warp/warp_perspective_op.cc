// experimental.warp_perspective: DALI 2.4's perspective warp (its CPU operator; OpenCV's
// warpPerspective). The 3x3 matrix comes from `matrix` (constant or per sample) or from a second
// input (one float32 3x3 tensor per sample); with inverse_map (default) it maps destination to
// source, else source to destination (inverted here). pixel_origin "corner" (DALI's default) puts
// (0, 0) at the top-left corner of the top-left pixel, "center" at its centre (OpenCV's); the
// kernel works in the centre convention, so "corner" becomes T(-0.5) * M * T(0.5). Output size:
// `size` (height, width) or the input's. Layouts HWC, CHW, HW and their sequences.
#include <cmath>

#include "kernels/warp/warp_perspective.h"
#include "operators/filter/image_geom.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/warp/warp_op_base.h"

namespace sluice {
namespace {

kernels::BorderMode ParseBorder(const std::string& s) {
  if (s == "replicate") return kernels::BorderMode::kClamp;
  if (s == "reflect") return kernels::BorderMode::kReflect1001;
  if (s == "reflect_101") return kernels::BorderMode::kReflect101;
  if (s == "wrap") return kernels::BorderMode::kWrap;
  return kernels::BorderMode::kConstant;
}

class WarpPerspectiveOp : public Operator {
 public:
  explicit WarpPerspectiveOp(const OpSpec& spec)
      : Operator(spec), inverse_(Arg<bool>("inverse_map")), corner_(Arg<std::string>("pixel_origin") == "corner") {
    const std::string interp = Arg<std::string>("interp_type");
    base_.interp = interp == "NN"       ? kernels::PerspectiveInterp::kNearest
                   : interp == "CUBIC" ? kernels::PerspectiveInterp::kCubic
                                       : kernels::PerspectiveInterp::kLinear;
    base_.border = ParseBorder(Arg<std::string>("border_mode"));
    for (double v : Arg<std::vector<double>>("fill_value")) base_.fill.push_back(static_cast<float>(v));
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    layout_ = InputLayout(ws, 0);
    const int n = ws.batch_size();
    const bool matrix_input = ws.num_inputs() > 1;
    std::vector<std::vector<double>> matrices;
    if (!matrix_input) matrices = PerSampleListArg<double>(ws, "matrix");
    const auto sizes = PerSampleListArg<double>(ws, "size");
    params_.assign(size_t(n), base_);
    out_shapes_.clear();
    for (int i = 0; i < n; ++i) {
      double m[9];
      if (matrix_input) {
        const TensorList& mt = ws.Input(1);
        if (mt.shape(i).num_elements() != 9)
          throw Error("matrix_input: sample " + std::to_string(i) + " has shape " + mt.shape(i).ToString() +
                      "; expected a 3x3 matrix");
        const float* p = static_cast<const float*>(mt.raw_sample(i));
        for (int k = 0; k < 9; ++k) m[k] = p[k];
      } else {
        const auto& v = matrices[size_t(i)];
        if (v.size() != 9)
          ThrowPerSample("matrix", i, "expected a 3x3 matrix (9 values), got " + std::to_string(v.size()) + " values");
        for (int k = 0; k < 9; ++k) m[k] = v[size_t(k)];
      }
      double dst_to_src[9];
      if (inverse_) {
        std::copy(m, m + 9, dst_to_src);
      } else if (!kernels::Invert3x3(m, dst_to_src)) {
        ThrowPerSample(matrix_input ? "matrix_input" : "matrix", i, "is singular (inverse_map=False needs its inverse)");
      }
      kernels::PerspectiveParams& p = params_[size_t(i)];
      if (corner_) {
        // T(-0.5) * M * T(0.5): output centre (x + 0.5) in corner coordinates, input point - 0.5.
        const double* a = dst_to_src;
        double t[9];
        for (int r = 0; r < 3; ++r) {
          t[r * 3 + 0] = a[r * 3 + 0];
          t[r * 3 + 1] = a[r * 3 + 1];
          t[r * 3 + 2] = 0.5 * (a[r * 3 + 0] + a[r * 3 + 1]) + a[r * 3 + 2];
        }
        for (int c = 0; c < 3; ++c) {
          p.map[c] = t[c] - 0.5 * t[6 + c];
          p.map[3 + c] = t[3 + c] - 0.5 * t[6 + c];
          p.map[6 + c] = t[6 + c];
        }
      } else {
        std::copy(dst_to_src, dst_to_src + 9, p.map);
      }
      const kernels::ImageGeom g = FilterImageGeom(in.shape(i), layout_);
      if (!p.fill.empty() && p.fill.size() != 1 && int64_t(p.fill.size()) != g.channels)
        ThrowArgError("fill_value", "has " + std::to_string(p.fill.size()) + " values; the image has " +
                                        std::to_string(g.channels) + " channels (give 1 or one per channel)");
      int64_t oh = g.height, ow = g.width;
      const auto& s = sizes[size_t(i)];
      if (!s.empty()) {
        if (s.size() != 2)
          ThrowPerSample("size", i, "expected (height, width), got " + std::to_string(s.size()) + " values");
        if (!(s[0] > 0) || !(s[1] > 0) || s[0] > 1e8 || s[1] > 1e8) ThrowPerSample("size", i, "extents must be positive");
        oh = std::max<int64_t>(std::llround(s[0]), 1);
        ow = std::max<int64_t>(std::llround(s[1]), 1);
      }
      out_shapes_.push_back(FilterImageShape(oh, ow, g.channels, layout_));
    }
    return {OutputDesc{out_shapes_, in.dtype(), layout_, true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::WarpPerspective(in.raw_sample(i), FilterImageGeom(in.shape(i), layout_), ws.Output(0).raw_mutable_sample(i),
                             FilterImageGeom(out_shapes_[size_t(i)], layout_), in.dtype(), params_[size_t(i)]);
  }

 private:
  const bool inverse_, corner_;
  kernels::PerspectiveParams base_;
  std::string layout_;
  std::vector<kernels::PerspectiveParams> params_;
  std::vector<TensorShape> out_shapes_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterWarpPerspective) {
  r.Register(
      OpSchema("experimental.warp_perspective")
          .Doc("Performs a perspective transform on images: output pixel p samples the input at M * p (projective), "
               "M a 3x3 matrix from `matrix` or the second input (destination -> source; source -> destination with "
               "inverse_map=False). Equivalent to OpenCV's warpPerspective (inverse_map as WARP_INVERSE_MAP) with "
               "pixel_origin=\"center\".")
          .Input("input", "Images (HWC, CHW, HW, or sequences of them): uint8, int16, uint16 or float32.",
                 {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32},
                 InputLayouts{"HWC", "CHW", "HW"}.AllowSequence())
          .Input("matrix_input", "Optional: one 3x3 float32 perspective matrix per sample (instead of `matrix`).",
                 {DType::kFloat32})
          .OptionalInputs(1)
          .UnfoldsSequences()
          .Output("output", "The warped images, same type and layout.")
          .Arg("matrix", ArgType::kFloatList, std::vector<double>{},
               "3x3 perspective matrix (9 values, row-major), destination -> source (source -> destination with "
               "inverse_map=False); per sample allowed. Required unless the second input is given.",
               true)
          .Count({0, 9})
          .Arg("size", ArgType::kFloatList, std::vector<double>{},
               "Output size (height, width), rounded; empty: the input's size (per sample allowed).", true)
          .Count({0, 2})
          .Above(0)
          .Arg("border_mode", ArgType::kString, std::string("constant"),
               "Pixels outside the input: constant (fill_value), replicate, reflect (fedcba|abcdef), reflect_101 "
               "(fedcb|abcdef) or wrap.")
          .Enum({"constant", "replicate", "reflect", "reflect_101", "wrap"})
          .Arg("fill_value", ArgType::kFloatList, std::vector<double>{},
               "Value outside the input with border_mode=\"constant\": one for every channel or one per channel; "
               "empty: 0.")
          .Arg("interp_type", ArgType::kString, std::string("LINEAR"),
               "Interpolation: types.INTERP_NN, INTERP_LINEAR or INTERP_CUBIC (or their names).")
          .Enum(WarpInterpNames(), true)
          .Arg("inverse_map", ArgType::kBool, true,
               "True: the matrix maps destination to source coordinates; False: source to destination.")
          .Arg("pixel_origin", ArgType::kString, std::string("corner"),
               "\"corner\": (0, 0) is the top-left corner of the top-left pixel; \"center\": its centre (OpenCV's).")
          .Enum({"corner", "center"})
          .Check([](const ArgView& a) {
            const std::string t = a.String("interp_type");
            if (!t.empty() && t != "NN" && t != "LINEAR" && t != "CUBIC")
              throw ArgCheckError{"interp_type",
                                  "only INTERP_NN, INTERP_LINEAR and INTERP_CUBIC are supported (as in DALI), got "
                                  "INTERP_" + t};
            const bool has_input = a.spec().inputs.size() > 1;
            if (has_input && a.Given("matrix"))
              throw ArgCheckError{"matrix", "must not be given together with the matrix input"};
            if (!has_input && !a.Given("matrix"))
              throw ArgCheckError{"matrix", "is required (a 3x3 matrix) unless the matrix is given as the second input"};
          })
          .Factory("cpu", MakeFactory<WarpPerspectiveOp>()));
}

}  // namespace sluice
