// transforms.rotation, transforms.scale, transforms.shear, transforms.translation, transforms.crop:
// DALI's affine matrix builders (dali/operators/geometry/affine_transforms), 2-D only. Each sample
// of the output is a 2x3 float32 matrix (row-major, x along the width). With an input matrix T the
// output is M * T (the new transform applied after T), or T * M with reverse_order. Every numeric
// argument may be given per sample (argument inputs), e.g. angle=fn.random.uniform(range=(-30, 30)).
#include <cmath>
#include <numbers>

#include "kernels/warp/affine_transform.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

using kernels::Affine2D;

// Checks that every sample of `tl` is a 2x3 float32 matrix.
void CheckMatrices(const TensorList& tl, const std::string& what) {
  if (tl.dtype() != DType::kFloat32)
    throw Error(what + " must be float32 2x3 affine matrices, got " + std::string(ToString(tl.dtype())));
  for (int i = 0; i < tl.num_samples(); ++i) {
    const TensorShape& s = tl.shape(i);
    if (s.ndim() != 2 || s[0] != 2 || s[1] != 3)
      throw Error(what + " must be 2x3 affine matrices (2-D transforms), sample " + std::to_string(i) + " has shape " +
                  s.ToString());
  }
}

OutputDesc MatrixOutput(int n) {
  OutputDesc d;
  d.shapes.assign(static_cast<size_t>(n), TensorShape{2, 3});
  d.dtype = DType::kFloat32;
  d.contiguous = true;
  return d;
}

// The common part: per-sample matrices from the arguments (Define), composed with the optional
// input matrix.
class TransformOp : public Operator {
 public:
  explicit TransformOp(const OpSpec& spec) : Operator(spec), reverse_order_(Arg<bool>("reverse_order")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.batch_size();
    if (ws.num_inputs() > 0) CheckMatrices(ws.Input(0), "the input");
    Prepare(ws);
    matrices_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      Affine2D m = Define(i);
      if (ws.num_inputs() > 0) {
        const Affine2D in = Affine2D::FromRowMajor(ws.Input(0).sample<float>(i));
        m = reverse_order_ ? kernels::Compose(in, m) : kernels::Compose(m, in);
      }
      matrices_[static_cast<size_t>(i)] = m;
    }
    return {MatrixOutput(n)};
  }

  void Run(Workspace& ws) override {  // a few numbers per sample: no thread pool
    TensorList& out = ws.Output(0);
    for (int i = 0; i < out.num_samples(); ++i) matrices_[static_cast<size_t>(i)].ToRowMajor(out.mutable_sample<float>(i));
  }

 protected:
  virtual void Prepare(const Workspace& ws) = 0;  // reads the per-sample arguments
  virtual Affine2D Define(int sample) const = 0;

  // One list per sample with a length in `counts` (argument inputs are checked here; constants
  // were checked at the call). An empty constant list gives empty lists (the argument is unset).
  std::vector<std::vector<double>> Lists(const Workspace& ws, const std::string& name, std::vector<size_t> counts) const {
    auto v = PerSampleListArg<double>(ws, name);
    if (IsArgInput(name)) {
      for (size_t i = 0; i < v.size(); ++i) {
        bool ok = false;
        for (size_t c : counts) ok = ok || v[i].size() == c;
        if (!ok) {
          std::string want;
          for (size_t c : counts) want += (want.empty() ? "" : " or ") + std::to_string(c);
          ThrowPerSample(name, static_cast<int>(i), "expected " + want + " values, got " + std::to_string(v[i].size()));
        }
        for (double x : v[i])
          if (!std::isfinite(x)) ThrowPerSample(name, static_cast<int>(i), "expected finite numbers");
      }
    }
    return v;
  }

  // `center` applied to `m`, if given for sample i.
  Affine2D Centered(const Affine2D& m, int i) const {
    if (center_.empty() || center_[static_cast<size_t>(i)].empty()) return m;
    const auto& c = center_[static_cast<size_t>(i)];
    return kernels::AboutCenter(m, c[0], c[1]);
  }
  void ReadCenter(const Workspace& ws) {
    center_.clear();
    if (HasArg("center")) center_ = Lists(ws, "center", {2});
  }

  std::vector<std::vector<double>> center_;

 private:
  bool reverse_order_;
  std::vector<Affine2D> matrices_;
};

class RotationOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override {
    angle_ = PerSampleArg<double>(ws, "angle");
    for (size_t i = 0; i < angle_.size(); ++i)
      if (!std::isfinite(angle_[i])) ThrowPerSample("angle", static_cast<int>(i), "expected a finite angle");
    ReadCenter(ws);
  }
  Affine2D Define(int i) const override { return Centered(kernels::Rotation(angle_[static_cast<size_t>(i)]), i); }

 private:
  std::vector<double> angle_;
};

class ScaleOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override {
    scale_ = Lists(ws, "scale", {1, 2});
    for (auto& s : scale_)
      if (s.size() == 1) s = {s[0], s[0]};
    ReadCenter(ws);
  }
  Affine2D Define(int i) const override {
    const auto& s = scale_[static_cast<size_t>(i)];
    // DALI: translation = center * (1 - scale), the same as AboutCenter for a diagonal matrix.
    return Centered(kernels::Scaling(s[0], s[1]), i);
  }

 private:
  std::vector<std::vector<double>> scale_;
};

class ShearOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override {
    use_angles_ = HasArg("angles");
    factors_ = Lists(ws, use_angles_ ? "angles" : "shear", {2});
    if (use_angles_)
      for (auto& f : factors_)
        for (double& a : f) a = std::tan(a * std::numbers::pi / 180.0);  // DALI: shear = tan(deg2rad(angle))
    ReadCenter(ws);
  }
  Affine2D Define(int i) const override {
    const auto& f = factors_[static_cast<size_t>(i)];
    return Centered(kernels::Shear(f[0], f[1]), i);
  }

 private:
  bool use_angles_ = false;
  std::vector<std::vector<double>> factors_;
};

class TranslationOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override { offset_ = Lists(ws, "offset", {2}); }
  Affine2D Define(int i) const override {
    const auto& o = offset_[static_cast<size_t>(i)];
    return kernels::Translation(o[0], o[1]);
  }

 private:
  std::vector<std::vector<double>> offset_;
};

class CropTransformOp : public TransformOp {
 public:
  explicit CropTransformOp(const OpSpec& spec) : TransformOp(spec), absolute_(Arg<bool>("absolute")) {}
  void Prepare(const Workspace& ws) override {
    for (int k = 0; k < 4; ++k) {
      args_[k] = Lists(ws, kNames[k], {1, 2});
      for (auto& v : args_[k])
        if (v.size() == 1) v = {v[0], v[0]};
    }
    for (size_t i = 0; i < args_[0].size(); ++i) {
      for (int d = 0; d < 2; ++d)
        if (args_[0][i][static_cast<size_t>(d)] == args_[1][i][static_cast<size_t>(d)])
          ThrowPerSample("from_end", static_cast<int>(i), "from_start and from_end must differ in every dimension");
    }
  }
  Affine2D Define(int i) const override {
    const auto k = static_cast<size_t>(i);
    auto a = [&](int arg) { return std::array<double, 2>{args_[arg][k][0], args_[arg][k][1]}; };
    return kernels::CropTransform(a(0), a(1), a(2), a(3), absolute_);
  }

 private:
  static constexpr const char* kNames[4] = {"from_start", "from_end", "to_start", "to_end"};
  bool absolute_;
  std::vector<std::vector<double>> args_[4];
};

OpSchema& Common(OpSchema& s, const std::string& what) {
  return s.Input("input", "An affine transform to compose with: 2x3 float32 matrices, one per sample.", {DType::kFloat32})
      .OptionalInputs(1)
      .Output("matrix", "2x3 float32 affine matrices, one per sample (the input's composed with this " + what + ").")
      .Arg("reverse_order", ArgType::kBool, false,
           "With an input T: False gives M * T (this transform applied after T), True gives T * M.");
}

void CheckCropArgs(const ArgView& a) {
  const char* names[4] = {"from_start", "from_end", "to_start", "to_end"};
  std::vector<double> v[4];
  for (int k = 0; k < 4; ++k) {
    v[k] = a.Numbers(names[k]);
    if (v[k].size() == 1) v[k] = {v[k][0], v[k][0]};
  }
  if (v[0].size() == 2 && v[1].size() == 2)
    for (int d = 0; d < 2; ++d)
      if (v[0][static_cast<size_t>(d)] == v[1][static_cast<size_t>(d)])
        throw ArgCheckError{"from_end", "from_start and from_end must differ in every dimension"};
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterAffineTransforms) {
  OpSchema rot("transforms.rotation");
  rot.Doc("Produces a 2-D rotation affine transform matrix, [[cos, -sin, 0], [sin, cos, 0]] for `angle` in degrees "
          "(about `center` if given). With an input matrix, the rotation is applied to it.")
      .Arg("angle", ArgType::kFloat, std::nullopt, "Angle, in degrees.", true)
      .Arg("center", ArgType::kFloatList, std::vector<double>{}, "The centre of the rotation (x, y); empty: the origin.", true)
      .Count({0, 2})
      .Factory("cpu", MakeFactory<RotationOp>());
  r.Register(std::move(Common(rot, "rotation")));

  OpSchema scale("transforms.scale");
  scale.Doc("Produces a 2-D scale affine transform matrix (about `center` if given). With an input matrix, the scaling "
            "is applied to it.")
      .Arg("scale", ArgType::kFloatList, std::nullopt, "The scale factor per dimension (x, y); one value: both.", true)
      .Count({1, 2})
      .Arg("center", ArgType::kFloatList, std::vector<double>{}, "The centre of the scaling (x, y); empty: the origin.", true)
      .Count({0, 2})
      .Arg("ndim", ArgType::kInt, int64_t{2}, "Number of dimensions: only 2-D transforms are supported.")
      .Range(2, 2)
      .Factory("cpu", MakeFactory<ScaleOp>());
  r.Register(std::move(Common(scale, "scaling")));

  OpSchema shear("transforms.shear");
  shear.Doc("Produces a 2-D shear affine transform matrix [[1, shear_x, 0], [shear_y, 1, 0]] (about `center` if given). "
            "Exactly one of `shear` and `angles` is given. With an input matrix, the shear is applied to it.")
      .Arg("shear", ArgType::kFloatList, std::vector<double>{}, "The shear factors (shear_x, shear_y).", true)
      .Count({0, 2})
      .Arg("angles", ArgType::kFloatList, std::vector<double>{},
           "The shear angles (angle_x, angle_y) in degrees, in [-90, 90]: shear = tan(angle).", true)
      .Count({0, 2})
      .Range(-90, 90)
      .Arg("center", ArgType::kFloatList, std::vector<double>{}, "The centre of the shear (x, y); empty: the origin.", true)
      .Count({0, 2})
      .Exclusive({"shear", "angles"})
      .Check([](const ArgView& a) {
        if (!a.Given("shear") && !a.Given("angles"))
          throw ArgCheckError{"shear", "give one of shear or angles"};
      })
      .Factory("cpu", MakeFactory<ShearOp>());
  r.Register(std::move(Common(shear, "shear")));

  OpSchema tr("transforms.translation");
  tr.Doc("Produces a 2-D translation affine transform matrix [[1, 0, x], [0, 1, y]]. With an input matrix, the "
         "translation is applied to it.")
      .Arg("offset", ArgType::kFloatList, std::nullopt, "The translation vector (x, y).", true)
      .Count({2})
      .Factory("cpu", MakeFactory<TranslationOp>());
  r.Register(std::move(Common(tr, "translation")));

  OpSchema crop("transforms.crop");
  crop.Doc("Produces a 2-D affine transform that maps the box from_start..from_end onto to_start..to_end (e.g. to "
           "adjust coordinates after a crop). With an input matrix, the mapping is applied to it.")
      .Arg("from_start", ArgType::kFloatList, std::vector<double>{0.0}, "Lower bound of the source space (x, y); one value: both.", true)
      .Count({1, 2})
      .Arg("from_end", ArgType::kFloatList, std::vector<double>{1.0}, "Upper bound of the source space (x, y); one value: both.", true)
      .Count({1, 2})
      .Arg("to_start", ArgType::kFloatList, std::vector<double>{0.0}, "Lower bound of the destination space (x, y); one value: both.", true)
      .Count({1, 2})
      .Arg("to_end", ArgType::kFloatList, std::vector<double>{1.0}, "Upper bound of the destination space (x, y); one value: both.", true)
      .Count({1, 2})
      .Arg("absolute", ArgType::kBool, false, "Swap start and end where start > end.")
      .Check(CheckCropArgs)
      .Factory("cpu", MakeFactory<CropTransformOp>());
  r.Register(std::move(Common(crop, "mapping")));
}

}  // namespace sluice
