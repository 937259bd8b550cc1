// clahe: Contrast Limited Adaptive Histogram Equalization (DALI's fn.clahe, whose CPU operator is
// OpenCV's cv::CLAHE; kernels/color/clahe.h). uint8 HW or HWC images of 1 or 3 channels (RGB); with
// luma_only (the default) an RGB image is equalized on the lightness of its L*a*b* form, else every
// channel on its own.
#include "kernels/color/clahe.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class ClaheOp : public Operator {
 public:
  explicit ClaheOp(const OpSpec& spec) : Operator(spec), luma_only_(Arg<bool>("luma_only")) {
    params_.tiles_x = Arg<int>("tiles_x");
    params_.tiles_y = Arg<int>("tiles_y");
    params_.clip_limit = Arg<double>("clip_limit");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      const int64_t c = s.ndim() == 3 ? s[2] : 1;
      if (c != 1 && c != 3)
        throw Error("sample " + std::to_string(i) + ": 1 or 3 channels are supported, got " + std::to_string(c));
    }
    return {OutputDesc{in.shapes(), DType::kUInt8, in.layout(), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const uint8_t* src = in.sample<uint8_t>(i);
    uint8_t* dst = ws.Output(0).mutable_sample<uint8_t>(i);
    const int64_t h = s[0], w = s[1], c = s.ndim() == 3 ? s[2] : 1;
    if (c == 3 && luma_only_) {
      kernels::ClaheRgbLuma(src, dst, h, w, params_);
      return;
    }
    for (int64_t k = 0; k < c; ++k) kernels::ClahePlane(src + k, dst + k, h, w, c, params_);
  }

 private:
  kernels::ClaheParams params_;
  bool luma_only_;
};

void CheckBins(const ArgView& a) {
  const auto bins = a.Numbers("bins");
  if (!bins.empty()) {
    const auto b = static_cast<int64_t>(bins.front());
    if (b < 2 || (b & (b - 1)) != 0) throw ArgCheckError{"bins", "must be a power of 2"};
  }
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterClahe) {
  r.Register(OpSchema("clahe")
                 .Doc("Contrast Limited Adaptive Histogram Equalization, as OpenCV's CLAHE (DALI's CPU clahe): tiles_x x "
                      "tiles_y tiles, each tile's histogram clipped at clip_limit * tile_area / 256, the tables blended "
                      "bilinearly between neighbouring tiles. uint8 HW or HWC images of 1 or 3 (RGB) channels; luma_only "
                      "equalizes an RGB image's L*a*b* lightness, else each channel.")
                 .Input("images", "uint8 images, HW or HWC (1 or 3 channels, RGB order).", {DType::kUInt8},
                        InputLayouts{"HWC", "HW"})
                 .Output("output", "The equalized images, same shape and layout.")
                 .Arg("tiles_x", ArgType::kInt, std::nullopt, "Number of tiles along the width.")
                 .Min(1)
                 .Arg("tiles_y", ArgType::kInt, std::nullopt, "Number of tiles along the height.")
                 .Min(1)
                 .Arg("clip_limit", ArgType::kFloat, std::nullopt,
                      "Relative clip limit: each bin is clipped at clip_limit * tile_area / bins (at least 1).")
                 .Arg("bins", ArgType::kInt, int64_t{256},
                      "Histogram bins, a power of 2. The CPU operator uses 256 (OpenCV's, as DALI's CPU operator).")
                 .Arg("luma_only", ArgType::kBool, true,
                      "RGB images: equalize the L*a*b* lightness only (true) or each channel on its own (false).")
                 .Check(CheckBins)
                 .Factory("cpu", MakeFactory<ClaheOp>()));
}

}  // namespace sluice
