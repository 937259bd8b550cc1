// multi_paste: DALI's MultiPaste. Output sample i is a zeroed output_size[i] canvas (default: input
// sample i's height and width) with the channels of the input, onto which regions of batch samples
// in_ids[i][k] are copied in order (a later region covers an earlier one): from in_anchors (or
// in_anchors_rel, fractions of the source, rounded down) of size shapes (or shapes_rel, rounded up;
// default the rest of the source from the anchor) to out_anchors (or out_anchors_rel, rounded down;
// default 0), DALI's rounding in float. Anchors and shapes are
// [y, x] / [h, w] per region, flattened per sample. A region outside its source or the canvas, or a
// source with other channels, is an error naming the sample and the region. dtype converts with
// saturation.
#include <cmath>
#include <cstring>

#include "core/dtype_list.h"
#include "kernels/tensor/cast.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

using PasteDTypes = DTypeList<uint8_t, int16_t, int32_t, float>;

struct Region {
  int src;
  int64_t in_y, in_x, h, w, out_y, out_x;
};

template <typename Out, typename In>
void PasteRegion(const In* src, int64_t src_w, int64_t c, const Region& r, Out* dst, int64_t dst_w) {
  for (int64_t y = 0; y < r.h; ++y) {
    const In* s = src + ((r.in_y + y) * src_w + r.in_x) * c;
    Out* d = dst + ((r.out_y + y) * dst_w + r.out_x) * c;
    if constexpr (std::is_same_v<In, Out>) {
      std::memcpy(d, s, static_cast<size_t>(r.w * c) * sizeof(In));
    } else {
      for (int64_t k = 0; k < r.w * c; ++k) d[k] = kernels::ConvertSaturate<Out>(s[k]);
    }
  }
}

class MultiPasteOp : public Operator {
 public:
  using Operator::Operator;

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    out_type_ = HasArg("dtype") ? Arg<DType>("dtype") : in.dtype();
    VisitDTypeIn<PasteDTypes>(in.dtype(), "multi_paste", [](auto) {});
    VisitDTypeIn<PasteDTypes>(out_type_, "multi_paste", [](auto) {});
    const auto ids = PerSampleListArg<int64_t>(ws, "in_ids");
    const auto in_a = PerSampleListArg<double>(ws, "in_anchors"), in_ar = PerSampleListArg<double>(ws, "in_anchors_rel");
    const auto sh = PerSampleListArg<double>(ws, "shapes"), shr = PerSampleListArg<double>(ws, "shapes_rel");
    const auto out_a = PerSampleListArg<double>(ws, "out_anchors"), out_ar = PerSampleListArg<double>(ws, "out_anchors_rel");
    const auto size = PerSampleListArg<int64_t>(ws, "output_size");
    regions_.assign(static_cast<size_t>(n), {});
    OutputDesc d;
    d.dtype = out_type_;
    d.layout = in.layout().empty() ? "HWC" : in.layout();
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      if (in.shape(i).ndim() != 3) throw Error("sample " + std::to_string(i) + " is not an HWC image: " + in.shape(i).ToString());
      int64_t oh = in.shape(i)[0], ow = in.shape(i)[1];
      const int64_t c = in.shape(i)[2];
      if (HasArg("output_size")) {
        if (size[k].size() != 2 || size[k][0] < 0 || size[k][1] < 0) ThrowPerSample("output_size", i, "must be [H, W]");
        oh = size[k][0], ow = size[k][1];
      }
      const size_t m = ids[k].size();
      auto pair = [&](const char* name, const std::vector<double>& v, size_t r, double& a, double& b) {
        if (v.size() != 2 * m) ThrowPerSample(name, i, "needs 2 values per region (" + std::to_string(m) + " regions), got " + std::to_string(v.size()));
        a = v[2 * r], b = v[2 * r + 1];
      };
      for (size_t r = 0; r < m; ++r) {
        const int64_t s = ids[k][r];
        if (s < 0 || s >= n) ThrowPerSample("in_ids", i, "region " + std::to_string(r) + " names sample " + std::to_string(s) + " of a batch of " + std::to_string(n));
        const int64_t sh_ = in.shape(static_cast<int>(s))[0], sw = in.shape(static_cast<int>(s))[1];
        if (in.shape(static_cast<int>(s))[2] != c)
          throw Error("sample " + std::to_string(i) + ", region " + std::to_string(r) + ": sample " + std::to_string(s) + " has " +
                      std::to_string(in.shape(static_cast<int>(s))[2]) + " channels, the canvas " + std::to_string(c));
        double iy = 0, ix = 0, h = -1, w = -1, oy = 0, ox = 0;
        // DALI's relative values: fractions in [0, 1] of the extent, multiplied in float; anchors
        // rounded down and shapes up (so that anchor 0.5 + shape 0.5 fits the source).
        auto rel = [&](const char* name, double f, int64_t extent, bool up) {
          if (!(f >= 0 && f <= 1)) ThrowPerSample(name, i, "region " + std::to_string(r) + ": " + std::to_string(f) + " is not in [0, 1]");
          const float v = static_cast<float>(extent) * static_cast<float>(f);
          return static_cast<double>(up ? std::ceil(v) : std::floor(v));
        };
        if (HasArg("in_anchors")) pair("in_anchors", in_a[k], r, iy, ix);
        if (HasArg("in_anchors_rel")) {
          pair("in_anchors_rel", in_ar[k], r, iy, ix);
          iy = rel("in_anchors_rel", iy, sh_, false), ix = rel("in_anchors_rel", ix, sw, false);
        }
        if (HasArg("shapes")) pair("shapes", sh[k], r, h, w);
        if (HasArg("shapes_rel")) {
          pair("shapes_rel", shr[k], r, h, w);
          h = rel("shapes_rel", h, sh_, true), w = rel("shapes_rel", w, sw, true);
        }
        if (HasArg("out_anchors")) pair("out_anchors", out_a[k], r, oy, ox);
        if (HasArg("out_anchors_rel")) {
          pair("out_anchors_rel", out_ar[k], r, oy, ox);
          oy = rel("out_anchors_rel", oy, oh, false), ox = rel("out_anchors_rel", ox, ow, false);
        }
        Region g{static_cast<int>(s), std::llround(iy), std::llround(ix), 0, 0, std::llround(oy), std::llround(ox)};
        g.h = h < 0 ? sh_ - g.in_y : std::llround(h);
        g.w = w < 0 ? sw - g.in_x : std::llround(w);
        if (g.in_y < 0 || g.in_x < 0 || g.h < 0 || g.w < 0 || g.in_y + g.h > sh_ || g.in_x + g.w > sw)
          ThrowPerSample("in_anchors", i, "region " + std::to_string(r) + " [" + std::to_string(g.in_y) + ", " + std::to_string(g.in_x) +
                                              "] + [" + std::to_string(g.h) + ", " + std::to_string(g.w) + "] is outside sample " +
                                              std::to_string(s) + " (" + std::to_string(sh_) + "x" + std::to_string(sw) + ")");
        if (g.out_y < 0 || g.out_x < 0 || g.out_y + g.h > oh || g.out_x + g.w > ow)
          ThrowPerSample("out_anchors", i, "region " + std::to_string(r) + " at [" + std::to_string(g.out_y) + ", " + std::to_string(g.out_x) +
                                               "] of size [" + std::to_string(g.h) + ", " + std::to_string(g.w) +
                                               "] does not fit the " + std::to_string(oh) + "x" + std::to_string(ow) + " output");
        regions_[k].push_back(g);
      }
      d.shapes.push_back(TensorShape{oh, ow, c});
    }
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    std::memset(out.raw_mutable_sample(i), 0, static_cast<size_t>(out.shape(i).num_elements()) * SizeOf(out_type_));
    const int64_t ow = out.shape(i)[1], c = out.shape(i)[2];
    VisitDTypeIn<PasteDTypes>(in.dtype(), "multi_paste", [&](auto in_tag) {
      using In = decltype(in_tag);
      VisitDTypeIn<PasteDTypes>(out_type_, "multi_paste", [&](auto out_tag) {
        using Out = decltype(out_tag);
        for (const Region& r : regions_[static_cast<size_t>(i)])
          PasteRegion(in.sample<In>(r.src), in.shape(r.src)[1], c, r, out.mutable_sample<Out>(i), ow);
      });
    });
  }

 private:
  DType out_type_ = DType::kUInt8;
  std::vector<std::vector<Region>> regions_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterMultiPaste) {
  r.Register(OpSchema("multi_paste")
                 .Doc("Pastes regions of the batch's images into each output (mosaic / copy-paste augmentation): "
                      "output i is a zeroed canvas of output_size (default: input i's size) onto which the regions of "
                      "samples in_ids[i] are copied in order, a later one over an earlier one.")
                 .Input("images", "HWC images (uint8, int16, int32 or float32).", {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kFloat32})
                 .Output("pasted", "The canvases.")
                 .Arg("in_ids", ArgType::kIntList, std::nullopt, "Per sample: the batch indices of the regions' sources.", true)
                 .Arg("in_anchors", ArgType::kFloatList, std::vector<double>{}, "Per sample: [y, x] of each region in its source (pixels; default 0).", true)
                 .Arg("in_anchors_rel", ArgType::kFloatList, std::vector<double>{}, "As in_anchors, fractions of the source's size.", true)
                 .Arg("shapes", ArgType::kFloatList, std::vector<double>{}, "Per sample: [h, w] of each region (default: the rest of the source).", true)
                 .Arg("shapes_rel", ArgType::kFloatList, std::vector<double>{}, "As shapes, fractions of the source's size.", true)
                 .Arg("out_anchors", ArgType::kFloatList, std::vector<double>{}, "Per sample: [y, x] of each region in the output (default 0).", true)
                 .Arg("out_anchors_rel", ArgType::kFloatList, std::vector<double>{}, "As out_anchors, fractions of the output's size.", true)
                 .Arg("output_size", ArgType::kIntList, std::vector<int64_t>{}, "Per sample: the output's [H, W] (default: the input's).", true)
                 .Arg("dtype", ArgType::kDType, std::string("uint8"), "Output type (default: the input's).")
                 .Enum({"uint8", "int16", "int32", "float32"})
                 .Exclusive({"in_anchors", "in_anchors_rel"})
                 .Exclusive({"shapes", "shapes_rel"})
                 .Exclusive({"out_anchors", "out_anchors_rel"})
                 .Factory("cpu", MakeFactory<MultiPasteOp>()));
}

}  // namespace sluice
