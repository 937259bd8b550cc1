// coord_flip and coord_transform: DALI's point operators ([N, D] coordinates per sample).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/detection/boxes.h"
#include "operators/detection/box_input.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class CoordFlipOp : public Operator {
 public:
  explicit CoordFlipOp(const OpSpec& spec) : Operator(spec), layout_(Arg<std::string>("layout")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    CheckBoxInput(*this, ws, 0, 0, "coordinates");
    const TensorList& in = ws.Input(0);
    OutputDesc d;
    d.dtype = DType::kFloat32;
    d.layout = in.layout();
    for (int i = 0; i < in.num_samples(); ++i) {
      const int64_t dims = in.shape(i)[1];
      if (dims < 1 || dims > 3)
        throw Error("sample " + std::to_string(i) + " has " + std::to_string(dims) + " coordinates per point (1 to 3 expected)");
      if (!layout_.empty() && static_cast<int64_t>(layout_.size()) != dims)
        ThrowArgError("layout", "'" + layout_ + "' does not match the " + std::to_string(dims) + " coordinates of sample " +
                                    std::to_string(i));
      d.shapes.push_back(in.shape(i));
    }
    for (int k = 0; k < 3; ++k) {
      flip_[k] = PerSampleArg<int64_t>(ws, std::string("flip_") + "xyz"[k]);
      center_[k] = PerSampleArg<float>(ws, std::string("center_") + "xyz"[k]);
    }
    return {d};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const int dims = static_cast<int>(in.shape(i)[1]);
    const std::string layout = layout_.empty() ? std::string("xyz").substr(0, static_cast<size_t>(dims)) : layout_;
    bool flip[3] = {false, false, false};
    float center[3] = {0.5f, 0.5f, 0.5f};
    for (int d = 0; d < dims; ++d) {
      const char c = layout[static_cast<size_t>(d)];
      const int axis = c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1;
      if (axis < 0) continue;  // a dimension that is not x, y or z is never flipped
      flip[d] = flip_[axis][static_cast<size_t>(i)] != 0;
      center[d] = center_[axis][static_cast<size_t>(i)];
    }
    kernels::FlipCoords(in.sample<float>(i), ws.Output(0).mutable_sample<float>(i), in.shape(i)[0], dims, flip, center);
  }

 private:
  const std::string layout_;
  std::vector<int64_t> flip_[3];
  std::vector<float> center_[3];
};

class CoordTransformOp : public Operator {
 public:
  explicit CoordTransformOp(const OpSpec& spec) : Operator(spec), out_type_(Arg<DType>("dtype")) {
    if (HasArg("MT") && (HasArg("M") || HasArg("T"))) ThrowArgError("MT", "cannot be combined with M or T");
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    CheckBoxInput(*this, ws, 0, 0, "coordinates");
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    const auto M = PerSampleListArg<double>(ws, "M"), T = PerSampleListArg<double>(ws, "T"), MT = PerSampleListArg<double>(ws, "MT");
    m_.assign(static_cast<size_t>(n), {});
    t_.assign(static_cast<size_t>(n), {});
    out_dim_.assign(static_cast<size_t>(n), 0);
    // DALI: the output is float or the input's own type (rounded, saturated).
    if (out_type_ != DType::kFloat32 && out_type_ != in.dtype())
      ThrowArgError("dtype", std::string(ToString(out_type_)) + " is neither float32 nor the input's type (" +
                                 std::string(ToString(in.dtype())) + ")");
    OutputDesc d;
    d.dtype = out_type_;
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const int64_t in_dim = in.shape(i)[1];
      std::vector<double>& m = m_[k];
      std::vector<double>& t = t_[k];
      int64_t out_dim = in_dim;
      if (HasArg("MT")) {
        const auto& mt = MT[k];
        if (mt.size() == 1) {
          m.assign(static_cast<size_t>(in_dim * in_dim), 0.0);
          for (int64_t r = 0; r < in_dim; ++r) m[static_cast<size_t>(r * in_dim + r)] = mt[0];
          t.assign(static_cast<size_t>(in_dim), 0.0);
        } else {
          if (mt.empty() || mt.size() % static_cast<size_t>(in_dim + 1) != 0)
            ThrowPerSample("MT", i, "has " + std::to_string(mt.size()) + " values; expected out_dim x (in_dim + 1) with in_dim " +
                                        std::to_string(in_dim));
          out_dim = static_cast<int64_t>(mt.size()) / (in_dim + 1);
          for (int64_t r = 0; r < out_dim; ++r) {
            for (int64_t c = 0; c < in_dim; ++c) m.push_back(mt[static_cast<size_t>(r * (in_dim + 1) + c)]);
            t.push_back(mt[static_cast<size_t>(r * (in_dim + 1) + in_dim)]);
          }
        }
      } else {
        const auto& mv = M[k];
        if (!HasArg("M") || mv.size() == 1) {
          const double s = HasArg("M") ? mv[0] : 1.0;
          m.assign(static_cast<size_t>(in_dim * in_dim), 0.0);
          for (int64_t r = 0; r < in_dim; ++r) m[static_cast<size_t>(r * in_dim + r)] = s;
        } else {
          if (mv.empty() || mv.size() % static_cast<size_t>(in_dim) != 0)
            ThrowPerSample("M", i, "has " + std::to_string(mv.size()) + " values; expected out_dim x in_dim with in_dim " +
                                       std::to_string(in_dim));
          out_dim = static_cast<int64_t>(mv.size()) / in_dim;
          m = mv;
        }
        const auto& tv = T[k];
        if (!HasArg("T")) {
          t.assign(static_cast<size_t>(out_dim), 0.0);
        } else if (tv.size() == 1) {
          t.assign(static_cast<size_t>(out_dim), tv[0]);
        } else if (static_cast<int64_t>(tv.size()) == out_dim) {
          t = tv;
        } else {
          ThrowPerSample("T", i, "has " + std::to_string(tv.size()) + " values; expected 1 or " + std::to_string(out_dim));
        }
      }
      out_dim_[k] = out_dim;
      d.shapes.push_back(TensorShape{in.shape(i)[0], out_dim});
    }
    return {d};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const auto k = static_cast<size_t>(i);
    const std::vector<float> m(m_[k].begin(), m_[k].end()), t(t_[k].begin(), t_[k].end());  // DALI's float matrix
    const int64_t points = in.shape(i)[0];
    const int in_dim = static_cast<int>(in.shape(i)[1]), out_dim = static_cast<int>(out_dim_[k]);
    TensorList& out = ws.Output(0);
    auto run = [&](auto in_tag) {
      using In = decltype(in_tag);
      if (out_type_ == DType::kFloat32)
        kernels::TransformCoords(in.sample<In>(i), out.mutable_sample<float>(i), points, in_dim, out_dim, m.data(), t.data());
      else
        kernels::TransformCoords(in.sample<In>(i), out.mutable_sample<In>(i), points, in_dim, out_dim, m.data(), t.data());
    };
    switch (in.dtype()) {
      case DType::kFloat32: run(float{}); break;
      case DType::kInt16: run(int16_t{}); break;
      case DType::kUInt8: run(uint8_t{}); break;
      default: run(int32_t{}); break;  // the schema admits only these four
    }
  }

 private:
  const DType out_type_;
  std::vector<std::vector<double>> m_, t_;
  std::vector<int64_t> out_dim_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCoordOps) {
  OpSchema flip("coord_flip");
  flip.Doc("Flips points ([N, D] coordinates, D = 1..3) about a centre per axis: c' = 2 * center - c; with the "
           "default centre 0.5 that is flip's mirror of relative coordinates.")
      .Input("coordinates", "float [N, D] points.", {DType::kFloat32})
      .Output("flipped", "The flipped points.")
      .Arg("layout", ArgType::kString, std::string(),
           "The axis of each coordinate, e.g. \"xy\" or \"yx\" (default: \"x\", \"xy\" or \"xyz\" by D).")
      .Arg("flip_x", ArgType::kInt, int64_t{1}, "Flip the x coordinates (per sample: 0 or 1).", true).Range(0, 1)
      .Arg("flip_y", ArgType::kInt, int64_t{0}, "Flip the y coordinates (per sample: 0 or 1).", true).Range(0, 1)
      .Arg("flip_z", ArgType::kInt, int64_t{0}, "Flip the z coordinates (per sample: 0 or 1).", true).Range(0, 1)
      .Arg("center_x", ArgType::kFloat, 0.5, "The x of the flip's centre (per sample).", true)
      .Arg("center_y", ArgType::kFloat, 0.5, "The y of the flip's centre (per sample).", true)
      .Arg("center_z", ArgType::kFloat, 0.5, "The z of the flip's centre (per sample).", true)
      .Factory("cpu", MakeFactory<CoordFlipOp>());
  r.Register(std::move(flip));
  OpSchema tr("coord_transform");
  tr.Doc("Applies an affine transform to points: out = M * in + T (in float, as DALI), with M out_dim x in_dim "
         "(a scalar M: M times the identity) and T out_dim (a scalar T: broadcast), or MT = [M | T] "
         "out_dim x (in_dim + 1) in one argument, e.g. from transforms.*.")
      .Input("coordinates", "[N, in_dim] points: float32, int16, uint8 or int32 (as DALI).",
             {DType::kFloat32, DType::kInt16, DType::kUInt8, DType::kInt32})
      .Output("transformed", "[N, out_dim] points of type dtype.")
      .Arg("M", ArgType::kFloatList, std::vector<double>{}, "The matrix, row-major (default: the identity).", true)
      .Arg("T", ArgType::kFloatList, std::vector<double>{}, "The translation (default: 0).", true)
      .Arg("MT", ArgType::kFloatList, std::vector<double>{}, "[M | T] row-major, out_dim x (in_dim + 1).", true)
      .Arg("dtype", ArgType::kDType, std::string("float32"),
           "Output type: float32, or the input's type (then rounded to nearest, ties away from zero, and "
           "saturated, as DALI).")
      .Enum({"float32", "int16", "uint8", "int32"})
      .Factory("cpu", MakeFactory<CoordTransformOp>());
  r.Register(std::move(tr));
}

}  // namespace sluice
