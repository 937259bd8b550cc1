// decoders.image, decoders.image_random_crop, decoders.image_crop.
#include "kernels/random_crop_window.h"
#include "operators/image/crop_args.h"
#include "operators/image/decoder_base.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class ImageDecoder : public ImageDecoderBase {
 public:
  using ImageDecoderBase::ImageDecoderBase;

 protected:
  std::optional<kernels::CropWindow> Window(const Workspace&, int, int, int) override { return std::nullopt; }
};

// Picks DALI's random-resized-crop window and decodes only that window.
class ImageRandomCropDecoder : public ImageDecoderBase {
 public:
  explicit ImageRandomCropDecoder(const OpSpec& spec) : ImageDecoderBase(spec) {
    auto area = Arg<std::vector<double>>("random_area");
    auto ratio = Arg<std::vector<double>>("random_aspect_ratio");
    if (area.size() == 1) area.push_back(area[0]);
    if (ratio.size() == 1) ratio.push_back(ratio[0]);
    if (area.size() != 2 || !(area[0] > 0 && area[0] <= area[1] && area[1] <= 1))
      ThrowArgError("random_area", "expected [min, max] with 0 < min <= max <= 1");
    if (ratio.size() != 2 || !(ratio[0] > 0 && ratio[0] <= ratio[1]))
      ThrowArgError("random_aspect_ratio", "expected [min, max] with 0 < min <= max");
    params_.area_min = static_cast<float>(area[0]);
    params_.area_max = static_cast<float>(area[1]);
    params_.ratio_min = static_cast<float>(ratio[0]);
    params_.ratio_max = static_cast<float>(ratio[1]);
    params_.num_attempts = static_cast<int>(Arg<int64_t>("num_attempts"));
    if (params_.num_attempts < 1) ThrowArgError("num_attempts", "must be at least 1");
  }

 protected:
  std::optional<kernels::CropWindow> Window(const Workspace& ws, int i, int h, int w) override {
    RandomGenerator rng = ws.SampleRng(i);
    return kernels::RandomCropWindow(h, w, params_, [&] { return rng.Uniform01(); });
  }

 private:
  kernels::RandomCropParams params_;
};

// A fixed window (crop, crop_pos_x/y), clamped to the image.
class ImageCropDecoder : public ImageDecoderBase {
 public:
  using ImageDecoderBase::ImageDecoderBase;

 protected:
  void PrepareBatch(const Workspace& ws) override { crop_ = ReadCropArgs(*this, ws); }
  std::optional<kernels::CropWindow> Window(const Workspace&, int i, int h, int w) override {
    kernels::CropWindow win = ResolveCrop(crop_, i, h, w, name());
    // Decoding can only produce pixels of the image: keep the part of the window inside it.
    const int x0 = std::max(0, win.x), y0 = std::max(0, win.y);
    const int x1 = std::min(w, win.x + win.w), y1 = std::min(h, win.y + win.h);
    if (x1 <= x0 || y1 <= y0) throw Error("the crop window lies outside the image");
    return kernels::CropWindow{x0, y0, x1 - x0, y1 - y0};
  }

 private:
  CropArgs crop_;
};


}  // namespace

void RegisterDecoders(OperatorRegistry& r) {
  OpSchema image("decoders.image");
  image.Doc("Decodes images (JPEG with libjpeg-turbo, PNG, WebP, BMP, PNM) into HWC uint8. Grayscale, CMYK and "
            "progressive JPEGs are supported and EXIF orientation is applied.")
      .Factory("cpu", MakeFactory<ImageDecoder>());
  r.Register(std::move(AddDecoderArgs(image)));

  OpSchema rc("decoders.image_random_crop");
  rc.Doc("Decodes a random crop of each image (DALI's random-resized-crop window), decoding only that window: "
         "JPEG rows above and below it are skipped and columns cropped to iMCU boundaries.")
      .Arg("random_area", ArgType::kFloatList, std::vector<double>{0.08, 1.0},
           "Range of the crop's area as a fraction of the image area; uniform.")
      .Arg("random_aspect_ratio", ArgType::kFloatList, std::vector<double>{3.0 / 4.0, 4.0 / 3.0},
           "Range of the crop's aspect ratio (width / height); log-uniform.")
      .Arg("num_attempts", ArgType::kInt, int64_t{10},
           "Tries to find a window that fits before falling back to the whole image clamped to the ratio range.")
      .Random()
      .Factory("cpu", MakeFactory<ImageRandomCropDecoder>());
  r.Register(std::move(AddDecoderArgs(rc)));

  OpSchema crop("decoders.image_crop");
  crop.Doc("Decodes a fixed window of each image (crop, crop_pos_x, crop_pos_y), decoding only that window. A window "
           "extending past the image is clamped to it.")
      .Factory("cpu", MakeFactory<ImageCropDecoder>());
  AddCropArgs(crop);
  r.Register(std::move(AddDecoderArgs(crop)));
}

}  // namespace sluice
