// dump_image: writes each image of the batch to the working directory as ASCII PPM (3 channels, P3)
// or PGM (1 channel, P2), named "<sample index>-<suffix>-0.ppm" as DALI's fn.dump_image names them
// (the files of the next batch overwrite them), and passes the images through unchanged. For
// debugging. As any operator, it is pruned when nothing uses its output, unless preserve=True.
#include <cstdio>
#include <cstring>
#include <string>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class DumpImage : public Operator {
 public:
  explicit DumpImage(const OpSpec& spec) : Operator(spec), suffix_(Arg<std::string>("suffix")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      if (s.ndim() != 3)
        throw Error("sample " + std::to_string(i) + ": images must have three dimensions (HWC), got shape " + s.ToString());
      if (s[2] != 1 && s[2] != 3)
        throw Error("sample " + std::to_string(i) + ": only 3-channel and gray images are supported, got " +
                    std::to_string(s[2]) + " channels");
    }
    return {{in.shapes(), in.dtype(), InputLayout(ws, 0), false}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const TensorShape& s = in.shape(i);
    const int64_t h = s[0], w = s[1], c = s[2];
    const uint8_t* px = in.sample<uint8_t>(i);
    const std::string path = std::to_string(i) + "-" + suffix_ + "-0.ppm";
    std::string text = (c == 3 ? "P3\n" : "P2\n") + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
    text.reserve(text.size() + static_cast<size_t>(h * w * c) * 4 + static_cast<size_t>(h));
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t k = 0; k < w * c; ++k) text += std::to_string(px[y * w * c + k]) + ' ';
      text += '\n';
    }
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw Error("cannot write '" + path + "': " + std::strerror(errno));
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) throw Error("cannot write '" + path + "': " + std::strerror(errno));
    std::memcpy(out.raw_mutable_sample(i), px, in.sample_bytes(i));
    out.source(i) = in.source(i);
  }

 private:
  std::string suffix_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterDumpImage) {
  r.Register(OpSchema("dump_image")
                 .Doc("Writes each image of the batch to the working directory as ASCII PPM (3 channels) or PGM (1 channel), "
                      "named <sample index>-<suffix>-0.ppm (DALI's names: the next batch overwrites them), and passes the "
                      "images through. For debugging.")
                 .Input("images", "HWC uint8 images of 1 or 3 channels.", {DType::kUInt8}, InputLayouts{"HWC"})
                 .Output("images", "The input, unchanged.")
                 .Arg("suffix", ArgType::kString, std::string(""), "Added to the file names.")
                 .Arg("input_layout", ArgType::kString, std::string("HWC"), "Layout of the input images (only HWC, as DALI).")
                 .Enum({"HWC"})
                 .Factory("cpu", MakeFactory<DumpImage>()));
}

}  // namespace sluice
