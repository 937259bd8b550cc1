// decoders.image, decoders.image_random_crop, decoders.image_crop.
#include "kernels/crop/random_crop_window.h"
#include "operators/decoder/decoder_base.h"
#include "operators/image/crop_args.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class WholeImage : public DecodeWindow {
 public:
  std::optional<kernels::CropWindow> Window(const Operator&, const Workspace&, int, int, int) const override {
    return std::nullopt;
  }
};

// DALI's random-resized-crop window.
class RandomWindow : public DecodeWindow {
 public:
  explicit RandomWindow(const Operator& op) {
    auto area = op.Arg<std::vector<double>>("random_area");
    auto ratio = op.Arg<std::vector<double>>("random_aspect_ratio");
    if (area.size() == 1) area.push_back(area[0]);
    if (ratio.size() == 1) ratio.push_back(ratio[0]);
    params_.area_min = static_cast<float>(area[0]);
    params_.area_max = static_cast<float>(area[1]);
    params_.ratio_min = static_cast<float>(ratio[0]);
    params_.ratio_max = static_cast<float>(ratio[1]);
    params_.num_attempts = static_cast<int>(op.Arg<int64_t>("num_attempts"));
  }
  std::optional<kernels::CropWindow> Window(const Operator&, const Workspace& ws, int i, int h, int w) const override {
    RandomGenerator rng = ws.SampleRng(i);
    return kernels::RandomCropWindow(h, w, params_, [&] { return rng.Uniform01(); });
  }

 private:
  kernels::RandomCropParams params_;
};

// A fixed window (crop, crop_pos_x/y), clamped to the image.
class FixedWindow : public DecodeWindow {
 public:
  void PrepareBatch(const Operator& op, const Workspace& ws) override { crop_ = ReadCropArgs(op, ws); }
  std::optional<kernels::CropWindow> Window(const Operator& op, const Workspace&, int i, int h, int w) const override {
    // Decoding can only produce pixels of the image: keep the part of the window inside it.
    const kernels::CropWindow win = kernels::ClampToImage(ResolveCrop(crop_, i, h, w, op.name()), h, w);
    if (win.w == 0 || win.h == 0) throw Error("the crop window lies outside the image");
    return win;
  }

 private:
  CropArgs crop_;
};

}  // namespace

std::unique_ptr<DecodeWindow> MakeDecodeWindow(const Operator& op) {
  if (op.spec().op == "decoders.image_random_crop") return std::make_unique<RandomWindow>(op);
  if (op.spec().op == "decoders.image_crop") return std::make_unique<FixedWindow>();
  return std::make_unique<WholeImage>();
}

SLUICE_REGISTER_OPERATORS(RegisterDecoders) {
  OpSchema image("decoders.image");
  image.Doc("Decodes images (JPEG with libjpeg-turbo, PNG, WebP, BMP, PNM) into HWC uint8. Grayscale, CMYK and "
            "progressive JPEGs are supported and EXIF orientation is applied.")
      .ProducesWindows("roi_decode_rule", "roi_decode")
      .NumOutputsFn([](const OpSpec& s) {
        auto it = s.args.find("roi_decode_rule");
        const auto* chain = it == s.args.end() ? nullptr : std::get_if<std::vector<std::string>>(&it->second);
        return s.device == "cpu" && chain && !chain->empty() ? 2 : 1;
      })
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  r.Register(std::move(AddDecoderArgs(image)));

  OpSchema rc("decoders.image_random_crop");
  rc.Doc("Decodes a random crop of each image (DALI's random-resized-crop window), decoding only that window: "
         "JPEG rows above and below it are skipped and columns cropped to iMCU boundaries.")
      .Arg("random_area", ArgType::kFloatList, std::vector<double>{0.08, 1.0},
           "Range of the crop's area as a fraction of the image area; uniform.")
      .Count({1, 2}).Range(0, 1)
      .Arg("random_aspect_ratio", ArgType::kFloatList, std::vector<double>{3.0 / 4.0, 4.0 / 3.0},
           "Range of the crop's aspect ratio (width / height); log-uniform.")
      .Count({1, 2}).Above(0)
      .Arg("num_attempts", ArgType::kInt, int64_t{10},
           "Tries to find a window that fits before falling back to the whole image clamped to the ratio range.")
      .Min(1)
      .Check([](const ArgView& a) {
        const auto area = a.Numbers("random_area");
        if (area.size() == 2 && area[0] > area[1]) throw ArgCheckError{"random_area", "expected [min, max] with min <= max"};
        if (!area.empty() && area[0] == 0) throw ArgCheckError{"random_area", "the smallest area must be above 0"};
        const auto ratio = a.Numbers("random_aspect_ratio");
        if (ratio.size() == 2 && ratio[0] > ratio[1])
          throw ArgCheckError{"random_aspect_ratio", "expected [min, max] with min <= max"};
      })
      .Random()
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  r.Register(std::move(AddDecoderArgs(rc)));

  OpSchema crop("decoders.image_crop");
  crop.Doc("Decodes a fixed window of each image (crop, crop_pos_x, crop_pos_y), decoding only that window. A window "
           "extending past the image is clamped to it.")
      .Factory("cpu", MakeFactory<ImageDecoderOp>());
  AddCropArgs(crop);
  r.Register(std::move(AddDecoderArgs(crop)));
}

}  // namespace sluice
