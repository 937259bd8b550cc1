// resize_crop_mirror (and DALI's legacy fast_resize_crop_mirror): resize, then crop, then flip, as
// one resize of a region of interest. resize's plan (resize_plan.h, resize_volume_plan.h) gives
// each sample's output extents and source region; the crop window (crop_args.h) is taken in the
// resized image's pixels and mapped back through the resize (source = roi_lo + resized * scale),
// the mirror bits swap the region's ends, and only the window is resampled. Each output pixel
// therefore samples the source where resize -> crop -> flip would, with the same filter width
// (the scale is unchanged); results equal that chain up to the rounding of the region to float
// (python/tests/test_resize_crop_mirror.py states the tolerance). A window reaching past the
// resized image reads the edge pixels, as DALI's resampling does.
#include <algorithm>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "operators/sequence_frames.h"
#include "operators/crop/crop_args.h"
#include "operators/resize/resampling_args.h"
#include "operators/resize/resize_types.h"
#include "operators/resize/resize_plan.h"
#include "operators/resize/resize_size_args.h"
#include "operators/resize/resize_volume_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// Maps the window [anchor, anchor + extent) of a resize of [lo, hi] to `out` pixels back to the
// source (lo > hi: the resize flips; the scale is then negative and the mapping still holds), and
// swaps the ends when this axis is mirrored.
void CropRegion(double& lo, double& hi, int out, int anchor, int extent, bool mirror) {
  const double scale = (hi - lo) / out, origin = lo;
  lo = origin + anchor * scale;
  hi = origin + (anchor + extent) * scale;
  if (mirror) std::swap(lo, hi);
}

class ResizeCropMirrorOp : public Operator {
 public:
  explicit ResizeCropMirrorOp(const OpSpec& spec) : Operator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    volumes_ = InputLayout(ws, 0) == "DHWC";
    const CropArgs crop = ReadCropArgs(*this, ws, /*volumetric=*/true);
    const std::vector<int> mirror = PerSampleArg<int>(ws, "mirror");
    if (volumes_) {
      PlanResizeVolumes(*this, args_, ws, volume_plan_);
      OutputDesc& d = volume_plan_.output;
      for (size_t k = 0; k < volume_plan_.samples.size(); ++k) {
        ResizeVolumeSamplePlan& p = volume_plan_.samples[k];
        const CropWindow3 w = ResolveCrop3(crop, int(k), p.out_d, p.out_h, p.out_w, name());
        kernels::ResizeRoi& r = *p.params.roi;
        double x0 = r.x0, x1 = r.x1, y0 = r.y0, y1 = r.y1;
        CropRegion(x0, x1, p.out_w, w.hw.x, w.hw.w, mirror[k] & 1);
        CropRegion(y0, y1, p.out_h, w.hw.y, w.hw.h, mirror[k] & 2);
        CropRegion(p.depth.z0, p.depth.z1, p.out_d, w.z, w.d, mirror[k] & 4);
        r = kernels::ResizeRoi{float(x0), float(y0), float(x1), float(y1)};
        p.depth = kernels::ResizeDepthRoi{double(float(p.depth.z0)), double(float(p.depth.z1))};
        p.out_d = w.d;
        p.out_h = w.hw.h;
        p.out_w = w.hw.w;
        d.shapes[k] = TensorShape{p.out_d, p.out_h, p.out_w, p.channels};
      }
      d.contiguous = SameShapes(d.shapes);
      return {d};
    }
    for (const char* a : {"crop_d", "crop_pos_z"})
      if (HasArg(a)) ThrowArgError(a, "is for volumes (DHWC)");
    PlanResize(*this, args_, ws, plan_);
    // DALI 2.4 mirrors the frames of an FHWC sequence as if they were volumes with the frame as
    // depth: bit 0 flips them vertically and bit 1 the (one-frame) depth, i.e. nothing; the
    // horizontal flip is not reachable (golden cov_seq_resize_crop_mirror; mirror=1, 2 and 3
    // checked against DALI). Sluice copies that, as documented in docs/dali-compatibility.md.
    const bool frames = SetupOnSequenceFrames();
    OutputDesc& d = plan_.output;
    for (size_t k = 0; k < plan_.samples.size(); ++k) {
      ResizeSamplePlan& p = plan_.samples[k];
      const kernels::CropWindow w = ResolveCrop(crop, int(k), p.out_h, p.out_w, name());
      kernels::ResizeRoi& r = *p.params.roi;
      double x0 = r.x0, x1 = r.x1, y0 = r.y0, y1 = r.y1;
      CropRegion(x0, x1, p.out_w, w.x, w.w, !frames && (mirror[k] & 1));
      CropRegion(y0, y1, p.out_h, w.y, w.h, frames ? (mirror[k] & 1) : (mirror[k] & 2));
      r = kernels::ResizeRoi{float(x0), float(y0), float(x1), float(y1)};
      p.out_h = w.h;
      p.out_w = w.w;
      d.shapes[k] = TensorShape{p.out_h, p.out_w, p.channels};
    }
    d.contiguous = SameShapes(d.shapes);
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    if (volumes_) {
      const ResizeVolumeSamplePlan& p = volume_plan_.samples[static_cast<size_t>(i)];
      if (p.out_d == 0 || p.out_h == 0 || p.out_w == 0) return;
      auto run = [&](const auto* src, auto* dst) {
        kernels::ResizeVolume(src, p.in_d, p.in_h, p.in_w, p.channels, dst, p.out_d, p.out_h, p.out_w, p.params, p.depth);
      };
      Dispatch(in, out, i, run);
      return;
    }
    const ResizeSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
    if (p.out_h == 0 || p.out_w == 0) return;  // an empty crop window
    auto run = [&](const auto* src, auto* dst) {
      kernels::Resize(src, p.in_h, p.in_w, p.channels, dst, p.out_h, p.out_w, p.params);
    };
    Dispatch(in, out, i, run);
  }

 private:
  // run(src, dst) with sample i's typed pointers.
  template <typename Run>
  static void Dispatch(const TensorList& in, TensorList& out, int i, Run&& run) {
    VisitResizeTypes(in, out, i, run);
  }

  const ResizeArgs args_;
  bool volumes_ = false;  // this batch is DHWC
  ResizePlan plan_;
  ResizeVolumePlan volume_plan_;
};

// The schema of resize_crop_mirror, or of its legacy name (antialiasing off by default, as DALI's).
OpSchema ResizeCropMirrorSchema(const std::string& name, bool legacy) {
  OpSchema s(name);
  s.Doc(std::string(legacy ? "DALI's deprecated name of resize_crop_mirror, with antialiasing off by default. " : "") +
        "Resize, then crop, then mirror, in one step: the crop window (crop, crop_h/crop_w, crop_pos_x/crop_pos_y, "
        "as crop's, in the resized image's pixels) is mapped back to a region of the input and only that region "
        "is resampled, with resize's size arguments, filters and antialiasing. The result equals resize followed by "
        "crop and flip. A window reaching past the resized image reads its edge pixels.")
      .Input("images", "HWC images or DHWC volumes (or FHWC sequences, frame by frame): uint8, int16, uint16 or "
             "float32.",
             ResizeInputTypes(), InputLayouts{"HWC"}.AllowSequence().AllowVolume())
      .UnfoldsSequences()
      .Output("output", "The resized, cropped and mirrored images (volumes), in the input's layout.")
      .Arg("mirror", ArgType::kInt, int64_t{0},
           "Flip mask, per sample: 1 horizontal, 2 vertical, 4 depthwise (volumes), or a sum of them. FHWC "
           "sequences, as DALI 2.4: 1 flips the frames vertically, 2 does nothing.", true)
      .Range(0, 7);
  AddResizeSizeArgs(s);
  AddCropArgs(s, /*volumetric=*/true);
  AddResamplingArgs(s, /*antialias_default=*/!legacy);
  s.Factory("cpu", MakeFactory<ResizeCropMirrorOp>());
  return s;
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterResizeCropMirror) {
  r.Register(ResizeCropMirrorSchema("resize_crop_mirror", false));
  r.Register(ResizeCropMirrorSchema("fast_resize_crop_mirror", true));
}

}  // namespace sluice
