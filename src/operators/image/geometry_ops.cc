// crop, flip, transpose, cast: thin operators over the small kernels.
#include <algorithm>
#include <cstring>

#include "kernels/cast.h"
#include "kernels/crop.h"
#include "kernels/flip.h"
#include "kernels/transpose.h"
#include "operators/image/crop_args.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

bool SameShapes(const std::vector<TensorShape>& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](const TensorShape& t) { return t == s[0]; });
}

void RequireHwc(const TensorShape& s) {
  if (s.ndim() != 3) throw Error("expected an HWC image, got shape " + s.ToString());
}

class CropOp : public Operator {
 public:
  explicit CropOp(const OpSpec& spec) : Operator(spec) {
    const std::string p = Arg<std::string>("out_of_bounds_policy");
    if (p != "error" && p != "pad" && p != "trim_to_shape")
      ThrowArgError("out_of_bounds_policy", "expected error, pad or trim_to_shape, got '" + p + "'");
    policy_ = p;
    fill_ = Arg<std::vector<double>>("fill_values");
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const CropArgs crop = ReadCropArgs(*this, ws);
    windows_.resize(static_cast<size_t>(in.num_samples()));
    OutputDesc d{{}, in.dtype(), in.layout().empty() ? "HWC" : in.layout(), false};
    for (int i = 0; i < in.num_samples(); ++i) {
      RequireHwc(in.shape(i));
      const int h = static_cast<int>(in.shape(i)[0]), w = static_cast<int>(in.shape(i)[1]);
      kernels::CropWindow win = ResolveCrop(crop, i, h, w, name());
      const bool inside = win.x >= 0 && win.y >= 0 && win.x + win.w <= w && win.y + win.h <= h;
      if (!inside && policy_ == "error")
        throw Error("the crop window is outside the " + std::to_string(w) + "x" + std::to_string(h) +
                    " image (out_of_bounds_policy=\"error\")");
      if (!inside && policy_ == "trim_to_shape") {
        const int x0 = std::max(0, win.x), y0 = std::max(0, win.y);
        win = {x0, y0, std::max(0, std::min(w, win.x + win.w) - x0), std::max(0, std::min(h, win.y + win.h) - y0)};
      }
      windows_[static_cast<size_t>(i)] = win;
      d.shapes.push_back(TensorShape{win.h, win.w, in.shape(i)[2]});
    }
    d.contiguous = SameShapes(d.shapes);
    return {d};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const auto& win = windows_[static_cast<size_t>(i)];
    const size_t es = SizeOf(in.dtype());
    std::vector<uint8_t> fill(static_cast<size_t>(s[2]) * es);
    VisitDType(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (int64_t c = 0; c < s[2]; ++c) {
        const double v = fill_.empty() ? 0.0 : fill_[fill_.size() == 1 ? 0 : static_cast<size_t>(c) % fill_.size()];
        T t = kernels::ConvertSaturate<T>(v);
        std::memcpy(fill.data() + static_cast<size_t>(c) * es, &t, es);
      }
    });
    kernels::Crop(in.raw_sample(i), s[0], s[1], s[2], es, win.x, win.y, win.w, win.h, ws.Output(0).raw_mutable_sample(i),
                  fill.data());
  }

 private:
  std::string policy_;
  std::vector<double> fill_;
  std::vector<kernels::CropWindow> windows_;
};

class FlipOp : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    horizontal_ = PerSampleArg<int>(ws, "horizontal");
    vertical_ = PerSampleArg<int>(ws, "vertical");
    const TensorList& in = ws.Input(0);
    for (int i = 0; i < in.num_samples(); ++i) RequireHwc(in.shape(i));
    return {{in.shapes(), in.dtype(), in.layout().empty() ? "HWC" : in.layout(), SameShapes(in.shapes())}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    kernels::Flip(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), s[0], s[1], s[2], SizeOf(in.dtype()),
                  horizontal_[static_cast<size_t>(i)] != 0, vertical_[static_cast<size_t>(i)] != 0);
  }

 private:
  std::vector<int> horizontal_, vertical_;
};

class TransposeOp : public Operator {
 public:
  explicit TransposeOp(const OpSpec& spec) : Operator(spec) {
    for (int64_t p : Arg<std::vector<int64_t>>("perm")) perm_.push_back(static_cast<int>(p));
    output_layout_ = Arg<std::string>("output_layout");
    transpose_layout_ = Arg<bool>("transpose_layout");
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    OutputDesc d{{}, in.dtype(), "", false};
    for (int i = 0; i < in.num_samples(); ++i) {
      const auto& dims = in.shape(i).dims();
      if (dims.size() != perm_.size())
        ThrowArgError("perm", "has " + std::to_string(perm_.size()) + " entries for a " + std::to_string(dims.size()) + "-d input");
      std::vector<int64_t> out(dims.size());
      try {
        kernels::TransposedShape(dims, perm_, out);
      } catch (const Error& e) {
        ThrowArgError("perm", e.message());
      }
      d.shapes.push_back(TensorShape(out));
    }
    if (!output_layout_.empty()) {
      d.layout = output_layout_;
    } else if (transpose_layout_ && in.layout().size() == perm_.size()) {
      for (int p : perm_) d.layout += in.layout()[static_cast<size_t>(p)];
    }
    d.contiguous = SameShapes(d.shapes);
    return {d};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::Transpose(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), in.shape(i).dims(), perm_, SizeOf(in.dtype()));
  }

 private:
  std::vector<int> perm_;
  std::string output_layout_;
  bool transpose_layout_ = true;
};

class CastOp : public Operator {
 public:
  explicit CastOp(const OpSpec& spec) : Operator(spec), to_(Arg<DType>("dtype")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), to_, in.layout(), in.is_contiguous()}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::Cast(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i), to_,
                  static_cast<size_t>(in.shape(i).num_elements()));
  }

 private:
  DType to_;
};


}  // namespace

void RegisterGeometryOperators(OperatorRegistry& r) {
  OpSchema crop("crop");
  crop.Doc("Crops HWC images to a window (crop, crop_pos_x, crop_pos_y).")
      .Input("images", "HWC images of any type.")
      .Output("cropped", "The cropped images.")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"), "A window outside the image: error, pad or trim_to_shape.")
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Values of padded pixels, per channel.")
      .Factory("cpu", MakeFactory<CropOp>());
  AddCropArgs(crop);
  r.Register(std::move(crop));

  r.Register(OpSchema("flip")
                 .Doc("Flips HWC images horizontally and/or vertically.")
                 .Input("images", "HWC images of any type.")
                 .Output("flipped", "The flipped images.")
                 .Arg("horizontal", ArgType::kInt, int64_t{1}, "Flip horizontally (per sample: 0 or 1).", true)
                 .Arg("vertical", ArgType::kInt, int64_t{0}, "Flip vertically (per sample: 0 or 1).", true)
                 .Factory("cpu", MakeFactory<FlipOp>()));

  r.Register(OpSchema("transpose")
                 .Doc("Permutes dimensions: output dimension i is input dimension perm[i].")
                 .Input("input", "Tensors of any type.")
                 .Output("output", "The transposed tensors.")
                 .Arg("perm", ArgType::kIntList, std::nullopt, "The permutation, e.g. [2, 0, 1] for HWC -> CHW.")
                 .Arg("output_layout", ArgType::kString, std::string(), "Layout of the output (overrides transpose_layout).")
                 .Arg("transpose_layout", ArgType::kBool, true, "Permute the input's layout string too.")
                 .Factory("cpu", MakeFactory<TransposeOp>()));

  r.Register(OpSchema("cast")
                 .Doc("Converts elements to another type: integer targets saturate, floats round to nearest even.")
                 .Input("input", "Tensors of any type.")
                 .Output("output", "The converted tensors.")
                 .Arg("dtype", ArgType::kDType, std::nullopt, "Output type.")
                 .Factory("cpu", MakeFactory<CastOp>()));
}

}  // namespace sluice
