// debayer: a Bayer mosaic (one channel, uint8 or uint16) to RGB (DALI's fn.debayer; legacy
// fn.experimental.debayer), with DALI's CPU algorithms: bilinear_ocv, edgeaware_ocv, vng_ocv (uint8
// only, as DALI) and gray_ocv, each OpenCV's demosaicing bit for bit (kernels/color/debayer.h). HW
// or HWC with one channel, and sequences (FHW, FHWC); the output is HWC (FHWC) with three channels,
// one for gray_ocv. blue_position is constant or per sample.
#include <string>
#include <type_traits>

#include "kernels/color/debayer.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class DebayerOp : public Operator {
 public:
  explicit DebayerOp(const OpSpec& spec) : Operator(spec) {
    const std::string alg = Arg<std::string>("algorithm");
    algorithm_ = alg == "edgeaware_ocv" ? kEdgeAware : alg == "vng_ocv" ? kVng : alg == "gray_ocv" ? kGray : kBilinear;
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const std::string layout = InputLayout(ws, 0);
    seq_ = layout[0] == 'F';
    positions_ = PerSampleListArg<int64_t>(ws, "blue_position");
    if (algorithm_ == kVng && in.dtype() != DType::kUInt8)
      ThrowArgError("algorithm", "vng_ocv supports uint8 mosaics only (as DALI and OpenCV), got " +
                                     std::string(ToString(in.dtype())));
    const int64_t channels = algorithm_ == kGray ? 1 : 3;
    OutputDesc d;
    d.dtype = in.dtype();
    d.layout = seq_ ? "FHWC" : "HWC";
    for (int i = 0; i < in.num_samples(); ++i) {
      const auto& pos = positions_[static_cast<size_t>(i)];
      if (pos.size() != 2 || (pos[0] != 0 && pos[0] != 1) || (pos[1] != 0 && pos[1] != 1))
        ThrowArgError("blue_position", "sample " + std::to_string(i) + ": expected [y, x] with each 0 or 1");
      const TensorShape& s = in.shape(i);
      const bool has_c = layout.back() == 'C';
      if (has_c && s[s.ndim() - 1] != 1)
        throw Error("sample " + std::to_string(i) + ": a Bayer mosaic has one channel, got " +
                    std::to_string(s[s.ndim() - 1]));
      const int o = seq_ ? 1 : 0;
      d.shapes.push_back(seq_ ? TensorShape{s[0], s[o], s[o + 1], channels} : TensorShape{s[0], s[1], channels});
    }
    d.contiguous = AllSameShape(d.shapes);
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const TensorShape& s = out.shape(i);
    const int o = seq_ ? 1 : 0;
    const int64_t frames = seq_ ? s[0] : 1, h = s[o], w = s[o + 1], c = s[o + 2];
    const auto& pos = positions_[static_cast<size_t>(i)];
    const int by = static_cast<int>(pos[0]), bx = static_cast<int>(pos[1]);
    auto run = [&](const auto* src, auto* dst) {
      for (int64_t f = 0; f < frames; ++f) {
        const auto* fin = src + f * h * w;
        auto* fout = dst + f * h * w * c;
        switch (algorithm_) {
          case kBilinear: kernels::DebayerBilinear(fin, fout, h, w, by, bx); break;
          case kEdgeAware: kernels::DebayerEdgeAware(fin, fout, h, w, by, bx); break;
          case kGray: kernels::DebayerGray(fin, fout, h, w, by, bx); break;
          case kVng:
            if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(src)>>, uint8_t>)
              kernels::DebayerVng(fin, fout, h, w, by, bx);
            break;
        }
      }
    };
    if (in.dtype() == DType::kUInt8) run(in.sample<uint8_t>(i), out.mutable_sample<uint8_t>(i));
    else run(in.sample<uint16_t>(i), out.mutable_sample<uint16_t>(i));
  }

 private:
  static bool AllSameShape(const std::vector<TensorShape>& v) {
    for (const auto& s : v)
      if (s != v.front()) return false;
    return true;
  }

  enum Algorithm { kBilinear, kEdgeAware, kVng, kGray };
  Algorithm algorithm_ = kBilinear;
  bool seq_ = false;
  std::vector<std::vector<int64_t>> positions_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterDebayer) {
  r.Register(OpSchema("debayer")
                 .Doc("Demosaics a Bayer mosaic (one channel, uint8 or uint16) into RGB, or gray, with DALI's CPU "
                      "algorithms (OpenCV's demosaicing, bit-exact with OpenCV 5.0, which DALI 2.4 links). HW or HWC "
                      "with one channel, or sequences (FHW, FHWC); the output is HWC (FHWC), three channels (one for "
                      "gray_ocv).")
                 .Input("input", "Bayer mosaics, uint8 or uint16.", {DType::kUInt8, DType::kUInt16},
                        InputLayouts{"HW", "HWC"}.AllowSequence())
                 .Output("output", "RGB images (HWC or FHWC).")
                 .Arg("blue_position", ArgType::kIntList, std::nullopt,
                      "[y, x] of blue in the 2x2 tile that starts at the second row and column, as OpenCV names its "
                      "patterns: [0, 0] BG (BGGR), [0, 1] GB, [1, 0] GR, [1, 1] RG. Constant or per sample.",
                      true)
                 .Arg("algorithm", ArgType::kString, std::string("bilinear_ocv"),
                      "bilinear_ocv (DALI's CPU default): bilinear interpolation; edgeaware_ocv: edge-aware "
                      "interpolation of green; vng_ocv: variable number of gradients (uint8 only); gray_ocv: gray "
                      "from the bilinear colours, one output channel. DALI's GPU algorithm default_npp is not "
                      "supported.")
                 .Enum({"bilinear_ocv", "edgeaware_ocv", "vng_ocv", "gray_ocv"})
                 .Factory("cpu", MakeFactory<DebayerOp>()));
}

}  // namespace sluice
