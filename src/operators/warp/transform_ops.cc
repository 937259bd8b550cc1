// transforms.rotation, transforms.scale, transforms.shear, transforms.translation, transforms.crop:
// DALI's affine matrix builders (dali/operators/geometry/affine_transforms), 2-D and 3-D. Each
// sample of the output is a 2x3 float32 matrix (row-major, x along the width), or 3x4 for 3-D
// transforms (x, y, z): the arguments' lengths (rotation: `axis`; scale: `ndim` for one value) or
// the input matrix decide. With an input matrix T the output is M * T (the new transform applied
// after T), or T * M with reverse_order. Every numeric argument may be given per sample (argument
// inputs), e.g. angle=fn.random.uniform(range=(-30, 30)). 2-D transforms are computed as 3-D ones
// that leave z alone (kernels::Embed), which gives the same numbers.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "kernels/warp/affine_transform.h"
#include "kernels/warp/affine_transform_3d.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

using kernels::Affine2D;
using kernels::Affine3D;

// The number of dimensions of a batch of affine matrices (2x3: 2, 3x4: 3), all alike; throws for
// anything else.
int MatrixDims(const TensorList& tl, const std::string& what) {
  if (tl.dtype() != DType::kFloat32)
    throw Error(what + " must be float32 2x3 or 3x4 affine matrices, got " + std::string(ToString(tl.dtype())));
  int nd = 0;
  for (int i = 0; i < tl.num_samples(); ++i) {
    const TensorShape& s = tl.shape(i);
    const int d = s.ndim() == 2 && s[0] == 2 && s[1] == 3 ? 2 : s.ndim() == 2 && s[0] == 3 && s[1] == 4 ? 3 : 0;
    if (d == 0 || (nd != 0 && d != nd))
      throw Error(what + " must be 2x3 or 3x4 affine matrices (all alike), sample " + std::to_string(i) + " has shape " +
                  s.ToString());
    nd = d;
  }
  return nd;
}

Affine3D ReadMatrix(const TensorList& tl, int i, int nd) {
  const float* p = tl.sample<float>(i);
  return nd == 3 ? Affine3D::FromRowMajor(p) : kernels::Embed(Affine2D::FromRowMajor(p));
}

void WriteMatrix(const Affine3D& m, int nd, float* out) {
  if (nd == 3) m.ToRowMajor(out);
  else kernels::Project(m).ToRowMajor(out);
}

// The common part: per-sample matrices from the arguments (Define), composed with the optional
// input matrix.
class TransformOp : public Operator {
 public:
  explicit TransformOp(const OpSpec& spec) : Operator(spec), reverse_order_(Arg<bool>("reverse_order")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.batch_size();
    const int in_nd = ws.num_inputs() > 0 ? MatrixDims(ws.Input(0), "the input") : 0;
    ndim_ = 0;
    Prepare(ws);
    if (in_nd != 0 && ndim_ != 0 && in_nd != ndim_)
      throw Error("the input holds " + std::to_string(in_nd) + "-D transforms, the arguments make " +
                  std::to_string(ndim_) + "-D ones");
    if (ndim_ == 0) ndim_ = in_nd != 0 ? in_nd : 2;
    matrices_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      Affine3D m = Define(i);
      if (ws.num_inputs() > 0) {
        const Affine3D in = ReadMatrix(ws.Input(0), i, ndim_);
        m = reverse_order_ ? kernels::Compose(in, m) : kernels::Compose(m, in);
      }
      matrices_[static_cast<size_t>(i)] = m;
    }
    OutputDesc d;
    d.shapes.assign(static_cast<size_t>(n), ndim_ == 3 ? TensorShape{3, 4} : TensorShape{2, 3});
    d.dtype = DType::kFloat32;
    d.contiguous = true;
    return {d};
  }

  void Run(Workspace& ws) override {  // a few numbers per sample: no thread pool
    TensorList& out = ws.Output(0);
    for (int i = 0; i < out.num_samples(); ++i)
      WriteMatrix(matrices_[static_cast<size_t>(i)], ndim_, out.mutable_sample<float>(i));
  }

 protected:
  // Reads the per-sample arguments; sets ndim_ (SetDims) where they decide it.
  virtual void Prepare(const Workspace& ws) = 0;
  // Sample i's transform (a 2-D one embedded); ndim_ is final.
  virtual Affine3D Define(int sample) const = 0;

  // The arguments make `nd`-D transforms (per sample: the same for the whole batch).
  void SetDims(int nd, const std::string& arg, int sample) {
    if (ndim_ != 0 && ndim_ != nd)
      ThrowPerSample(arg, sample, "makes a " + std::to_string(nd) + "-D transform, the other arguments " +
                                      std::to_string(ndim_) + "-D ones");
    ndim_ = nd;
  }
  // The dimensions of each sample's list in `v` of length 2 or 3 (lengths 1 and 0 decide nothing).
  void DimsFrom(const std::vector<std::vector<double>>& v, const std::string& arg, size_t len2 = 2, size_t len3 = 3) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i].size() == len2) SetDims(2, arg, static_cast<int>(i));
      else if (v[i].size() == len3) SetDims(3, arg, static_cast<int>(i));
    }
  }

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

  // `center` applied to `m`, if given for sample i ((x, y) or (x, y, z)).
  Affine3D Centered(const Affine3D& m, int i) const {
    if (center_.empty() || center_[static_cast<size_t>(i)].empty()) return m;
    const auto& c = center_[static_cast<size_t>(i)];
    return kernels::AboutCenter3D(m, {c[0], c[1], c.size() > 2 ? c[2] : 0.0});
  }
  void ReadCenter(const Workspace& ws) {
    center_.clear();
    if (HasArg("center")) {
      center_ = Lists(ws, "center", {2, 3});
      DimsFrom(center_, "center");
    }
  }

  std::vector<std::vector<double>> center_;
  int ndim_ = 0;  // 2 or 3 once Setup has decided; 0 while undecided

 private:
  bool reverse_order_;
  std::vector<Affine3D> matrices_;
};

class RotationOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override {
    angle_ = PerSampleArg<double>(ws, "angle");
    for (size_t i = 0; i < angle_.size(); ++i)
      if (!std::isfinite(angle_[i])) ThrowPerSample("angle", static_cast<int>(i), "expected a finite angle");
    axis_.clear();
    if (HasArg("axis")) {
      axis_ = Lists(ws, "axis", {3});
      for (size_t i = 0; i < axis_.size(); ++i) SetDims(3, "axis", static_cast<int>(i));
    }
    ReadCenter(ws);
  }
  Affine3D Define(int i) const override {
    const auto k = static_cast<size_t>(i);
    if (ndim_ == 3 && axis_.empty()) ThrowArgError("axis", "a 3-D rotation (3-D center or input) needs an axis");
    if (axis_.empty()) return Centered(kernels::Embed(kernels::Rotation(angle_[k])), i);
    Affine3D r;
    if (!kernels::Rotation3D({axis_[k][0], axis_[k][1], axis_[k][2]}, angle_[k], &r))
      ThrowPerSample("axis", i, "the axis must have a non-zero length");
    return Centered(r, i);
  }

 private:
  std::vector<double> angle_;
  std::vector<std::vector<double>> axis_;
};

class ScaleOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override {
    scale_ = Lists(ws, "scale", {1, 2, 3});
    DimsFrom(scale_, "scale");
    ReadCenter(ws);
    if (HasArg("ndim")) SetDims(Arg<int>("ndim"), "ndim", 0);
  }
  Affine3D Define(int i) const override {
    const auto& s = scale_[static_cast<size_t>(i)];
    // DALI: translation = center * (1 - scale), the same as AboutCenter for a diagonal matrix.
    if (ndim_ == 3) return Centered(kernels::Scaling3D({s[0], s.size() > 1 ? s[1] : s[0], s.size() > 2 ? s[2] : s[0]}), i);
    return Centered(kernels::Embed(kernels::Scaling(s[0], s.size() > 1 ? s[1] : s[0])), i);
  }

 private:
  std::vector<std::vector<double>> scale_;
};

class ShearOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override {
    use_angles_ = HasArg("angles");
    const char* name = use_angles_ ? "angles" : "shear";
    factors_ = Lists(ws, name, {2, 6});
    DimsFrom(factors_, name, 2, 6);
    if (use_angles_)
      for (auto& f : factors_)
        for (double& a : f) a = std::tan(a * std::numbers::pi / 180.0);  // DALI: shear = tan(deg2rad(angle))
    ReadCenter(ws);
  }
  Affine3D Define(int i) const override {
    const auto& f = factors_[static_cast<size_t>(i)];
    if (f.size() == 6) return Centered(kernels::Shear3D({f[0], f[1], f[2], f[3], f[4], f[5]}), i);
    return Centered(kernels::Embed(kernels::Shear(f[0], f[1])), i);
  }

 private:
  bool use_angles_ = false;
  std::vector<std::vector<double>> factors_;
};

class TranslationOp : public TransformOp {
 public:
  using TransformOp::TransformOp;
  void Prepare(const Workspace& ws) override {
    offset_ = Lists(ws, "offset", {2, 3});
    DimsFrom(offset_, "offset");
  }
  Affine3D Define(int i) const override {
    const auto& o = offset_[static_cast<size_t>(i)];
    return kernels::Translation3D({o[0], o[1], o.size() > 2 ? o[2] : 0.0});
  }

 private:
  std::vector<std::vector<double>> offset_;
};

class CropTransformOp : public TransformOp {
 public:
  explicit CropTransformOp(const OpSpec& spec) : TransformOp(spec), absolute_(Arg<bool>("absolute")) {}
  void Prepare(const Workspace& ws) override {
    for (int k = 0; k < 4; ++k) {
      args_[k] = Lists(ws, kNames[k], {1, 2, 3});
      DimsFrom(args_[k], kNames[k]);
    }
  }
  Affine3D Define(int i) const override {
    const auto k = static_cast<size_t>(i);
    // One value: every axis.
    auto a = [&](int arg) {
      const auto& v = args_[arg][k];
      return kernels::Vec3{v[0], v.size() > 1 ? v[1] : v[0], v.size() > 2 ? v[2] : v[0]};
    };
    for (int d = 0; d < ndim_; ++d)
      if (a(0)[static_cast<size_t>(d)] == a(1)[static_cast<size_t>(d)])
        ThrowPerSample("from_end", i, "from_start and from_end must differ in every dimension");
    const Affine3D m = kernels::CropTransform3D(a(0), a(1), a(2), a(3), absolute_);
    if (ndim_ == 3) return m;
    Affine3D flat = m;  // 2-D: z left alone
    flat.m[2][2] = 1;
    flat.m[2][3] = 0;
    return flat;
  }

 private:
  static constexpr const char* kNames[4] = {"from_start", "from_end", "to_start", "to_end"};
  bool absolute_;
  std::vector<std::vector<double>> args_[4];
};

OpSchema& Common(OpSchema& s, const std::string& what) {
  return s.Input("input", "An affine transform to compose with: 2x3 (or 3x4) float32 matrices, one per sample.",
                 {DType::kFloat32})
      .OptionalInputs(1)
      .Output("matrix", "2x3 (3-D: 3x4) float32 affine matrices, one per sample (the input's composed with this " + what +
                            ").")
      .Arg("reverse_order", ArgType::kBool, false,
           "With an input T: False gives M * T (this transform applied after T), True gives T * M.");
}

void CheckCropArgs(const ArgView& a) {
  const char* names[4] = {"from_start", "from_end", "to_start", "to_end"};
  std::vector<double> v[4];
  for (int k = 0; k < 4; ++k) {
    v[k] = a.Numbers(names[k]);
  }
  size_t nd = 0;
  for (auto& x : v) nd = std::max(nd, x.size());
  if (nd > 1)
    for (const auto& x : v)
      if (x.size() > 1 && x.size() != nd)
        throw ArgCheckError{"from_start", "the arguments make transforms of different dimensions (2 and 3 values)"};
  if (!v[0].empty() && !v[1].empty())
    for (size_t d = 0; d < std::max<size_t>(nd, 1); ++d)
      if (v[0][v[0].size() == 1 ? 0 : d] == v[1][v[1].size() == 1 ? 0 : d])
        throw ArgCheckError{"from_end", "from_start and from_end must differ in every dimension"};
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterAffineTransforms) {
  OpSchema rot("transforms.rotation");
  rot.Doc("Produces a rotation affine transform matrix: 2-D [[cos, -sin, 0], [sin, cos, 0]] for `angle` in degrees, "
          "or 3-D (3x4) about `axis` (right-handed), about `center` if given. With an input matrix, the rotation is "
          "applied to it.")
      .Arg("angle", ArgType::kFloat, std::nullopt, "Angle, in degrees.", true)
      .Arg("axis", ArgType::kFloatList, std::vector<double>{},
           "3-D rotations: the axis (x, y, z) to rotate about, any non-zero length; empty: a 2-D rotation.", true)
      .Count({0, 3})
      .Arg("center", ArgType::kFloatList, std::vector<double>{},
           "The centre of the rotation (x, y), or (x, y, z); empty: the origin.", true)
      .Count({0, 2, 3})
      .Check([](const ArgView& a) {
        const std::vector<double> axis = a.Numbers("axis"), center = a.Numbers("center");
        if (!axis.empty() && std::all_of(axis.begin(), axis.end(), [](double v) { return v == 0.0; }))
          throw ArgCheckError{"axis", "must have a non-zero length"};
        if (center.size() == 3 && !a.Given("axis"))
          throw ArgCheckError{"center", "(x, y, z) is for 3-D rotations, which need an axis"};
        if (center.size() == 2 && !axis.empty())
          throw ArgCheckError{"center", "a 3-D rotation (axis given) takes (x, y, z)"};
      })
      .Factory("cpu", MakeFactory<RotationOp>());
  r.Register(std::move(Common(rot, "rotation")));

  OpSchema scale("transforms.scale");
  scale.Doc("Produces a 2-D or 3-D scale affine transform matrix (about `center` if given). With an input matrix, the "
            "scaling is applied to it.")
      .Arg("scale", ArgType::kFloatList, std::nullopt,
           "The scale factor per dimension (x, y) or (x, y, z); one value: every dimension.", true)
      .Count({1, 2, 3})
      .Arg("center", ArgType::kFloatList, std::vector<double>{},
           "The centre of the scaling (x, y) or (x, y, z); empty: the origin.", true)
      .Count({0, 2, 3})
      .Arg("ndim", ArgType::kInt, int64_t{2},
           "Number of dimensions (2 or 3), for a one-value scale without an input matrix or a center; when given it "
           "must agree with them.")
      .Range(2, 3)
      .Check([](const ArgView& a) {
        if (!a.Given("ndim")) return;
        const auto nd = static_cast<size_t>(a.Numbers("ndim").at(0));
        for (const char* arg : {"scale", "center"}) {
          const size_t len = a.Numbers(arg).size();
          if (len > 1 && len != nd)
            throw ArgCheckError{"ndim", std::to_string(nd) + " does not match " + arg + "'s " + std::to_string(len) +
                                            " values"};
        }
      })
      .Factory("cpu", MakeFactory<ScaleOp>());
  r.Register(std::move(Common(scale, "scaling")));

  OpSchema shear("transforms.shear");
  shear.Doc("Produces a shear affine transform matrix: 2-D [[1, shear_x, 0], [shear_y, 1, 0]], or 3-D [[1, sxy, sxz, 0], "
            "[syx, 1, syz, 0], [szx, szy, 1, 0]] (about `center` if given). Exactly one of `shear` and `angles` is "
            "given. With an input matrix, the shear is applied to it.")
      .Arg("shear", ArgType::kFloatList, std::vector<double>{},
           "The shear factors (shear_x, shear_y), or (sxy, sxz, syx, syz, szx, szy) in 3-D.", true)
      .Count({0, 2, 6})
      .Arg("angles", ArgType::kFloatList, std::vector<double>{},
           "The shear angles in degrees, in [-90, 90], as `shear` (2 or 6 values): shear = tan(angle).", true)
      .Count({0, 2, 6})
      .Range(-90, 90)
      .Arg("center", ArgType::kFloatList, std::vector<double>{},
           "The centre of the shear (x, y) or (x, y, z); empty: the origin.", true)
      .Count({0, 2, 3})
      .Exclusive({"shear", "angles"})
      .Check([](const ArgView& a) {
        if (!a.Given("shear") && !a.Given("angles"))
          throw ArgCheckError{"shear", "give one of shear or angles"};
      })
      .Factory("cpu", MakeFactory<ShearOp>());
  r.Register(std::move(Common(shear, "shear")));

  OpSchema tr("transforms.translation");
  tr.Doc("Produces a translation affine transform matrix, [[1, 0, x], [0, 1, y]] or its 3-D (3x4) form. With an "
         "input matrix, the translation is applied to it.")
      .Arg("offset", ArgType::kFloatList, std::nullopt, "The translation vector (x, y) or (x, y, z).", true)
      .Count({2, 3})
      .Factory("cpu", MakeFactory<TranslationOp>());
  r.Register(std::move(Common(tr, "translation")));

  OpSchema crop("transforms.crop");
  crop.Doc("Produces a 2-D or 3-D affine transform that maps the box from_start..from_end onto to_start..to_end (e.g. to "
           "adjust coordinates after a crop). With an input matrix, the mapping is applied to it.")
      .Arg("from_start", ArgType::kFloatList, std::vector<double>{0.0}, "Lower bound of the source space (x, y) or (x, y, z); one value: every axis.", true)
      .Count({1, 2, 3})
      .Arg("from_end", ArgType::kFloatList, std::vector<double>{1.0}, "Upper bound of the source space (x, y) or (x, y, z); one value: every axis.", true)
      .Count({1, 2, 3})
      .Arg("to_start", ArgType::kFloatList, std::vector<double>{0.0}, "Lower bound of the destination space (x, y) or (x, y, z); one value: every axis.", true)
      .Count({1, 2, 3})
      .Arg("to_end", ArgType::kFloatList, std::vector<double>{1.0}, "Upper bound of the destination space (x, y) or (x, y, z); one value: every axis.", true)
      .Count({1, 2, 3})
      .Arg("absolute", ArgType::kBool, false, "Swap start and end where start > end.")
      .Check(CheckCropArgs)
      .Factory("cpu", MakeFactory<CropTransformOp>());
  r.Register(std::move(Common(crop, "mapping")));
}

}  // namespace sluice
