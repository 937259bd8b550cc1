// random_crop_generator: a random crop window for each input shape (DALI's fn.random_crop_generator),
// as [y, x] anchor and [h, w] shape (int32), for slice / decoders.image_slice / any ROI argument.
// The window is random_resized_crop's (kernels/crop/random_crop_window.h: torchvision's
// RandomResizedCrop.get_params distribution), drawn from the sample's own random stream, so it does
// not depend on num_threads.
#include "kernels/crop/random_crop_window.h"
#include "operators/crop/random_crop_args.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class RandomCropGenerator : public Operator {
 public:
  explicit RandomCropGenerator(const OpSpec& spec) : Operator(spec), crop_(RandomCropParamsFrom(*this)) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    windows_.assign(static_cast<size_t>(n), {});
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      if (s.ndim() != 1 || (s[0] != 2 && s[0] != 3))
        throw Error("random_crop_generator: sample " + std::to_string(i) + " must be a shape of 2 or 3 extents (HW or HWC), "
                    "got a tensor of shape " + s.ToString());
      const int64_t h = Extent(in, i, 0), w = Extent(in, i, 1);
      if (h < 1 || w < 1 || h > INT32_MAX || w > INT32_MAX)
        throw Error("random_crop_generator: sample " + std::to_string(i) + " has extents " + std::to_string(h) + " x " +
                    std::to_string(w) + "; both must be in [1, 2^31)");
      RandomGenerator rng = ws.SampleRng(i);
      windows_[static_cast<size_t>(i)] =
          kernels::RandomCropWindow(static_cast<int>(h), static_cast<int>(w), crop_, [&rng] { return rng.Uniform01(); });
    }
    const std::vector<TensorShape> pairs(static_cast<size_t>(n), TensorShape{2});
    return {{pairs, DType::kInt32, "", true}, {pairs, DType::kInt32, "", true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const kernels::CropWindow& win = windows_[static_cast<size_t>(i)];
    int32_t* anchor = ws.Output(0).mutable_sample<int32_t>(i);
    int32_t* shape = ws.Output(1).mutable_sample<int32_t>(i);
    anchor[0] = win.y;
    anchor[1] = win.x;
    shape[0] = win.h;
    shape[1] = win.w;
  }

 private:
  static int64_t Extent(const TensorList& in, int i, int d) {
    return in.dtype() == DType::kInt32 ? in.sample<int32_t>(i)[d] : in.sample<int64_t>(i)[d];
  }

  kernels::RandomCropParams crop_;
  std::vector<kernels::CropWindow> windows_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRandomCropGenerator) {
  OpSchema s("random_crop_generator");
  s.Doc("A random crop window for each input shape (HW or HWC): area fraction uniform in random_area, aspect "
        "ratio log-uniform in random_aspect_ratio, up to num_attempts tries, else the whole image clamped to the "
        "ratio range, centred (random_resized_crop's window). Outputs the anchor [y, x] and shape [h, w], int32, "
        "for slice, decoders.image_slice or any region-of-interest argument.")
      .Input("shape", "Per sample the shape to crop from, [H, W] or [H, W, C], int32 or int64.",
             {DType::kInt32, DType::kInt64})
      .Output("anchor", "Per sample [y, x] of the window, int32.")
      .Output("shape", "Per sample [height, width] of the window, int32.")
      .Random()
      .Factory("cpu", MakeFactory<RandomCropGenerator>());
  r.Register(std::move(AddRandomCropArgs(s, "window")));
}

}  // namespace sluice
