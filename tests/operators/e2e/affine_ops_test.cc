// transforms.* (rotation, scale, shear, translation, crop, combine), warp_affine and rotate through
// the pipeline: DALI's matrices and composition order, per-sample argument inputs, the ways
// warp_affine takes its matrix, rotate's output size, and the errors at the call site. The kernel
// itself is checked against OpenCV in tests/kernels/warp_kernel_test.cc.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <numbers>
#include <random>

#include "kernels/warp/affine_transform.h"
#include "kernels/warp/warp_affine.h"
#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;
using kernels::Affine2D;

kernels::Affine2D MatrixOf(const Batch& b, int i) {
  EXPECT_EQ(b.shape(i), (TensorShape{2, 3}));
  EXPECT_EQ(b.dtype(), DType::kFloat32);
  return Affine2D::FromRowMajor(static_cast<const float*>(b.data(i)));
}

void ExpectNear(const Affine2D& a, const Affine2D& b, double tol = 1e-5) {
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(a.m[r][c], b.m[r][c], tol) << r << "," << c;
}

// Builds the graph with `build` (returning the output edges), runs one batch.
template <typename Build>
std::vector<Batch> RunGraph(int batch, Build&& build, int threads = 2) {
  Pipeline p(Options(batch, threads));
  p.SetOutputs(build(p));
  p.Build();
  return p.Run();
}

TEST(AffineTransforms, MatricesFollowDali) {
  auto out = RunGraph(2, [](Pipeline& p) {
    auto rot = p.AddOperator(OperatorDef("transforms.rotation").Arg("angle", 30.0).Arg("center", std::vector<double>{5, 7}))[0];
    auto sc = p.AddOperator(OperatorDef("transforms.scale").Arg("scale", std::vector<double>{2, 3}).Arg("center", std::vector<double>{1, 2}))[0];
    auto sh = p.AddOperator(OperatorDef("transforms.shear").Arg("angles", std::vector<double>{45, -30}))[0];
    auto tr = p.AddOperator(OperatorDef("transforms.translation").Arg("offset", std::vector<double>{4, -1}))[0];
    auto cr = p.AddOperator(OperatorDef("transforms.crop")
                                .Arg("from_start", std::vector<double>{10, 20}).Arg("from_end", std::vector<double>{30, 60}))[0];
    auto s1 = p.AddOperator(OperatorDef("transforms.scale").Arg("scale", 0.5))[0];
    return std::vector<std::string>{rot, sc, sh, tr, cr, s1};
  });
  for (int i = 0; i < 2; ++i) {
    const double c = std::cos(std::numbers::pi / 6), s = std::sin(std::numbers::pi / 6);
    Affine2D r;
    r.m[0][0] = c, r.m[0][1] = -s, r.m[1][0] = s, r.m[1][1] = c;
    r.m[0][2] = 5 - (c * 5 - s * 7), r.m[1][2] = 7 - (s * 5 + c * 7);
    ExpectNear(MatrixOf(out[0], i), r);
    Affine2D sc;
    sc.m[0][0] = 2, sc.m[1][1] = 3, sc.m[0][2] = 1 * (1 - 2), sc.m[1][2] = 2 * (1 - 3);
    ExpectNear(MatrixOf(out[1], i), sc);
    ExpectNear(MatrixOf(out[2], i), kernels::Shear(1.0, std::tan(-std::numbers::pi / 6)));
    ExpectNear(MatrixOf(out[3], i), kernels::Translation(4, -1));
    const Affine2D cr = MatrixOf(out[4], i);
    EXPECT_NEAR(cr.X(10, 20), 0, 1e-6);
    EXPECT_NEAR(cr.Y(30, 60), 1, 1e-6);
    ExpectNear(MatrixOf(out[5], i), kernels::Scaling(0.5, 0.5));
  }
}

TEST(AffineTransforms, CompositionOrder) {
  const Affine2D T = kernels::Translation(4, -1), R = kernels::Rotation(30), S = kernels::Scaling(2, 0.5);
  auto out = RunGraph(1, [](Pipeline& p) {
    auto rot = p.AddOperator(OperatorDef("transforms.rotation").Arg("angle", 30.0))[0];
    auto after = p.AddOperator(OperatorDef("transforms.translation").Input(rot).Arg("offset", std::vector<double>{4, -1}))[0];
    auto before = p.AddOperator(
        OperatorDef("transforms.translation").Input(rot).Arg("offset", std::vector<double>{4, -1}).Arg("reverse_order", true))[0];
    auto tr = p.AddOperator(OperatorDef("transforms.translation").Arg("offset", std::vector<double>{4, -1}))[0];
    auto sc = p.AddOperator(OperatorDef("transforms.scale").Arg("scale", std::vector<double>{2, 0.5}))[0];
    auto comb = p.AddOperator(OperatorDef("transforms.combine").Input(rot).Input(tr).Input(sc))[0];
    auto rcomb = p.AddOperator(OperatorDef("transforms.combine").Input(rot).Input(tr).Input(sc).Arg("reverse_order", true))[0];
    return std::vector<std::string>{after, before, comb, rcomb};
  });
  // The new transform is applied after the input's (DALI), or before with reverse_order.
  ExpectNear(MatrixOf(out[0], 0), kernels::Compose(T, R));
  ExpectNear(MatrixOf(out[1], 0), kernels::Compose(R, T));
  // combine([R, T, S]) applies R, then T, then S: S * T * R; reversed: R * T * S.
  ExpectNear(MatrixOf(out[2], 0), kernels::Compose(S, kernels::Compose(T, R)));
  ExpectNear(MatrixOf(out[3], 0), kernels::Compose(R, kernels::Compose(T, S)));
}

TEST(AffineTransforms, PerSampleArguments) {
  auto out = RunGraph(4, [](Pipeline& p) {
    auto angle = p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{-30, 30}))[0];
    auto off = p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{-5, 5}).Arg("shape", std::vector<int64_t>{2}))[0];
    auto rot = p.AddOperator(OperatorDef("transforms.rotation").ArgInput("angle", angle))[0];
    auto tr = p.AddOperator(OperatorDef("transforms.translation").ArgInput("offset", off))[0];
    return std::vector<std::string>{rot, angle, tr, off};
  });
  for (int i = 0; i < 4; ++i) {
    const float a = *static_cast<const float*>(out[1].data(i));
    ExpectNear(MatrixOf(out[0], i), kernels::Rotation(a));
    const auto* o = static_cast<const float*>(out[3].data(i));
    ExpectNear(MatrixOf(out[2], i), kernels::Translation(o[0], o[1]));
  }
  EXPECT_NE(MatrixOf(out[0], 0).m[0][1], MatrixOf(out[0], 1).m[0][1]);
}

// ---- warp_affine and rotate ----

struct Images {
  std::vector<std::vector<uint8_t>> data;
  std::vector<TensorShape> shapes;
};

Images Noise(int n, int h, int w, int c) {
  Images f;
  std::mt19937 rng(5);
  for (int i = 0; i < n; ++i) {
    f.data.emplace_back(size_t(h + i) * w * c);
    for (auto& v : f.data.back()) v = static_cast<uint8_t>(rng() & 0xff);
    f.shapes.push_back(TensorShape{h + i, w, c});
  }
  return f;
}

// external_source -> `op` (its other inputs and argument inputs added by `extra`).
template <typename Extra>
std::vector<Batch> RunImages(const Images& f, OperatorDef op, Extra&& extra, const std::string& layout = "HWC") {
  Pipeline p(Options(static_cast<int>(f.data.size()), 2));
  auto e = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  op.Input(e);
  std::vector<std::string> outs = extra(p, op);
  outs.insert(outs.begin(), p.AddOperator(op)[0]);
  p.SetOutputs(outs);
  p.Build();
  std::vector<Pipeline::ExternalSample> batch;
  for (size_t i = 0; i < f.data.size(); ++i) batch.push_back({f.data[i].data(), f.shapes[i], DType::kUInt8});
  for (int k = 0; k < 2; ++k) p.FeedInput("src", batch, layout);
  return p.Run();
}
std::vector<Batch> RunImages(const Images& f, OperatorDef op) {
  return RunImages(f, std::move(op), [](Pipeline&, OperatorDef&) { return std::vector<std::string>{}; });
}

std::vector<uint8_t> KernelWarp(const Images& f, int i, int64_t oh, int64_t ow, const Affine2D& m, kernels::WarpOptions opt) {
  const TensorShape& s = f.shapes[size_t(i)];
  std::vector<uint8_t> out(size_t(oh * ow * s[2]));
  kernels::WarpAffine(kernels::HwcView<const uint8_t>{f.data[size_t(i)].data(), s[0], s[1], s[2]},
                      kernels::HwcView<uint8_t>{out.data(), oh, ow, s[2]}, m, opt);
  return out;
}

TEST(WarpAffineOp, MatrixArgumentInputAndInverse) {
  const Images f = Noise(2, 20, 24, 3);
  const std::vector<double> mv = {0.9, 0.2, -1.5, -0.1, 1.1, 2.25};
  const Affine2D m = Affine2D::FromRowMajor(std::vector<float>(mv.begin(), mv.end()).data());
  auto out = RunImages(f, OperatorDef("warp_affine").Arg("matrix", mv).Arg("fill_value", 50.0));
  ASSERT_EQ(out[0].layout(), "HWC");
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(out[0].shape(i), f.shapes[size_t(i)]);
    EXPECT_EQ(SampleData<uint8_t>(out[0], i), KernelWarp(f, i, f.shapes[size_t(i)][0], 24, m, {kernels::WarpInterp::kLinear, false, 50}));
  }
  // The same matrix from transforms.* as the second input, as an argument input; inverse_map=False
  // with the inverse; size; NN; no fill_value (clamp).
  const std::vector<double> off = {-1.5, 2.25};
  auto build = [&](Pipeline& p, OperatorDef& op, bool as_input) {
    auto t = p.AddOperator(OperatorDef("transforms.translation").Arg("offset", off))[0];
    if (as_input) op.Input(t);
    else op.ArgInput("matrix", t);
    return std::vector<std::string>{};
  };
  const Affine2D t = kernels::Translation(-1.5, 2.25);
  auto a = RunImages(f, OperatorDef("warp_affine").Arg("size", std::vector<double>{10, 30.4}).Arg("interp_type", int64_t{0}),
                     [&](Pipeline& p, OperatorDef& op) { return build(p, op, true); });
  auto b = RunImages(f, OperatorDef("warp_affine").Arg("size", std::vector<double>{10, 30.4}).Arg("interp_type", std::string("NN")),
                     [&](Pipeline& p, OperatorDef& op) { return build(p, op, false); });
  Affine2D inv;
  ASSERT_TRUE(kernels::Invert(t, &inv));
  std::vector<double> inv_v;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) inv_v.push_back(inv.m[r][c]);
  auto c = RunImages(f, OperatorDef("warp_affine").Arg("size", std::vector<double>{10, 30.4}).Arg("interp_type", std::string("NN"))
                            .Arg("matrix", inv_v).Arg("inverse_map", false));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a[0].shape(i), (TensorShape{10, 30, 3}));
    const auto want = KernelWarp(f, i, 10, 30, t, {kernels::WarpInterp::kNearest, true, 0});
    EXPECT_EQ(SampleData<uint8_t>(a[0], i), want);
    EXPECT_EQ(SampleData<uint8_t>(b[0], i), want);
    EXPECT_EQ(SampleData<uint8_t>(c[0], i), want);
  }
  // dtype float32.
  auto fl = RunImages(f, OperatorDef("warp_affine").Arg("matrix", mv).Arg("dtype", std::string("float")));
  EXPECT_EQ(fl[0].dtype(), DType::kFloat32);
}

TEST(RotateOp, SizesAndDirection) {
  const Images f = Noise(2, 5, 8, 3);
  auto out = RunImages(f, OperatorDef("rotate").Arg("angle", 90.0).Arg("interp_type", std::string("NN")));
  for (int i = 0; i < 2; ++i) {
    const int64_t h = f.shapes[size_t(i)][0];
    ASSERT_EQ(out[0].shape(i), (TensorShape{8, h, 3}));
    const auto got = SampleData<uint8_t>(out[0], i);
    const auto& in = f.data[size_t(i)];
    for (int64_t y = 0; y < 8; ++y)  // counter-clockwise: out(y, x) = in(x, W - 1 - y)
      for (int64_t x = 0; x < h; ++x)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(got[size_t((y * h + x) * 3 + c)], in[size_t((x * 8 + 7 - y) * 3 + c)]);
  }
  const Images g = Noise(1, 375, 500, 3);
  auto bb = RunImages(g, OperatorDef("rotate").Arg("angle", 10.0));
  EXPECT_EQ(bb[0].shape(0), (TensorShape{457, 558, 3}));
  const auto want = KernelWarp(g, 0, 457, 558, kernels::RotateInverseMap(375, 500, 457, 558, 10), {kernels::WarpInterp::kLinear, true, 0});
  EXPECT_EQ(SampleData<uint8_t>(bb[0], 0), want);
  auto keep = RunImages(g, OperatorDef("rotate").Arg("angle", 10.0).Arg("keep_size", true).Arg("fill_value", 0.0));
  EXPECT_EQ(keep[0].shape(0), (TensorShape{375, 500, 3}));
  auto sized = RunImages(g, OperatorDef("rotate").Arg("angle", 10.0).Arg("keep_size", true).Arg("size", std::vector<double>{100, 120}));
  EXPECT_EQ(sized[0].shape(0), (TensorShape{100, 120, 3}));
}

TEST(RotateOp, PerSampleAngle) {
  const Images f = Noise(3, 30, 40, 3);
  auto out = RunImages(f, OperatorDef("rotate"), [](Pipeline& p, OperatorDef& op) {
    auto a = p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{-45, 45}))[0];
    op.ArgInput("angle", a);
    return std::vector<std::string>{a};
  });
  for (int i = 0; i < 3; ++i) {
    const double a = *static_cast<const float*>(out[1].data(i));
    const auto s = f.shapes[size_t(i)];
    const auto size = kernels::RotatedCanvasSize(s[0], s[1], a);
    ASSERT_EQ(out[0].shape(i), (TensorShape{size[0], size[1], 3}));
    EXPECT_EQ(SampleData<uint8_t>(out[0], i),
              KernelWarp(f, i, size[0], size[1], kernels::RotateInverseMap(s[0], s[1], size[0], size[1], a),
                         {kernels::WarpInterp::kLinear, true, 0}));
  }
}

// ---- errors at the call site, naming the operator and the argument ----

TEST(AffineOpsErrors, TableOfBadCalls) {
  const std::vector<std::tuple<OperatorDef, std::vector<std::string>>> cases = {
      {OperatorDef("rotate").Arg("angle", 10.0).Arg("interp_type", std::string("CUBIC")), {"rotate", "interp_type", "INTERP_NN"}},
      {OperatorDef("warp_affine").Arg("interp_type", int64_t{3}).Arg("matrix", std::vector<double>{1, 0, 0, 0, 1, 0}), {"interp_type"}},
      {OperatorDef("warp_affine"), {"warp_affine", "matrix", "required"}},
      {OperatorDef("warp_affine").Arg("matrix", std::vector<double>{1, 0, 0, 1}), {"matrix"}},
      {OperatorDef("warp_affine").Arg("matrix", std::vector<double>{1, 0, 0, 0, 1, 0}).Arg("size", std::vector<double>{0, 5}), {"size"}},
      {OperatorDef("rotate").Arg("angle", 10.0).Arg("fill_value", std::vector<double>{1, 2}), {"fill_value"}},
      {OperatorDef("rotate"), {"rotate", "angle"}},
      {OperatorDef("transforms.shear").Arg("shear", std::vector<double>{1, 0}).Arg("angles", std::vector<double>{1, 0}), {"transforms.shear"}},
      {OperatorDef("transforms.shear"), {"transforms.shear", "shear"}},
      {OperatorDef("transforms.shear").Arg("angles", std::vector<double>{95, 0}), {"angles"}},
      {OperatorDef("transforms.rotation").Arg("angle", 5.0).Arg("center", std::vector<double>{1, 2, 3}), {"center"}},
      {OperatorDef("transforms.rotation").Arg("angle", 5.0).Arg("axis", std::vector<double>{0, 0, 0}), {"axis"}},
      {OperatorDef("transforms.rotation").Arg("angle", 5.0).Arg("axis", std::vector<double>{0, 0, 1}).Arg("center", std::vector<double>{1, 2}), {"center"}},
      {OperatorDef("transforms.translation").Arg("offset", std::vector<double>{1, 2, 3, 4}), {"offset"}},
      {OperatorDef("transforms.scale").Arg("scale", std::vector<double>{1, 2}).Arg("ndim", int64_t{3}), {"ndim"}},
      {OperatorDef("transforms.crop").Arg("from_start", 2.0).Arg("from_end", 2.0), {"from_end"}},
  };
  for (const auto& [def, fragments] : cases) {
    Pipeline p(Options(1));
    OperatorDef d = def;
    if (d.op == "rotate" || d.op == "warp_affine") d.Input(p.AddOperator(OperatorDef("external_source").Name("src"))[0]);
    ExpectError([&] { p.AddOperator(d); }, fragments);
  }
}

TEST(AffineOpsErrors, DataErrors) {
  // CHW layout.
  ExpectError([] { RunImages(Noise(1, 3, 4, 5), OperatorDef("rotate").Arg("angle", 3.0), [](Pipeline&, OperatorDef&) { return std::vector<std::string>{}; }, "CHW"); },
              {"HWC"});
  // A per-sample center of the wrong length.
  ExpectError([] {
    RunGraph(2, [](Pipeline& p) {
      auto c = p.AddOperator(OperatorDef("random.uniform").Arg("shape", std::vector<int64_t>{4}))[0];
      return std::vector<std::string>{p.AddOperator(OperatorDef("transforms.rotation").Arg("angle", 1.0).ArgInput("center", c))[0]};
    });
  }, {"center", "expected 2 or 3 values"});
  // A per-sample 3-D center without an axis.
  ExpectError([] {
    RunGraph(2, [](Pipeline& p) {
      auto c = p.AddOperator(OperatorDef("random.uniform").Arg("shape", std::vector<int64_t>{3}))[0];
      return std::vector<std::string>{p.AddOperator(OperatorDef("transforms.rotation").Arg("angle", 1.0).ArgInput("center", c))[0]};
    });
  }, {"axis", "needs an axis"});
  // 3-D transforms into a 2-D (HWC) warp.
  ExpectError([] {
    RunImages(Noise(1, 3, 4, 3), OperatorDef("warp_affine").Arg("matrix", std::vector<double>(12, 1.0)));
  }, {"matrix", "2x3"});
  // A singular matrix with inverse_map=False.
  ExpectError([] {
    RunImages(Noise(1, 3, 4, 3), OperatorDef("warp_affine").Arg("matrix", std::vector<double>{1, 2, 0, 2, 4, 0}).Arg("inverse_map", false));
  }, {"matrix", "singular"});
}

}  // namespace
}  // namespace sluice
