// experimental.remap through the pipeline (shared harness): the maps as inputs 1 and 2, the output
// the maps' size, pixel_origin and interp reach the kernel, sequences with maps repeated per frame,
// determinism across num_threads, errors naming the argument or the input. The kernel is checked in
// tests/kernels/warp_perspective_test.cc (RemapKernel) and against cv2.remap in
// python/tests/test_remap.py.
#include <gtest/gtest.h>

#include <random>

#include "kernels/warp/remap.h"
#include "operators/e2e/op_harness.h"

namespace sluice {
namespace {

using namespace sluice::testing;

// external_source x3 -> remap, one run.
std::vector<Batch> RunRemap(const HostBatch& img, const HostBatch& mx, const HostBatch& my, OperatorDef def,
                            int threads = 2) {
  PipelineOptions o;
  o.batch_size = img.size();
  o.num_threads = threads;
  Pipeline p(o);
  def.Input(p.AddOperator(OperatorDef("external_source").Name("src"))[0]);
  def.Input(p.AddOperator(OperatorDef("external_source").Name("mx"))[0]);
  def.Input(p.AddOperator(OperatorDef("external_source").Name("my"))[0]);
  p.SetOutputs(p.AddOperator(def));
  p.Build();
  p.FeedInput("src", harness_detail::Samples(img), img.layout);
  p.FeedInput("mx", harness_detail::Samples(mx), mx.layout);
  p.FeedInput("my", harness_detail::Samples(my), my.layout);
  p.ScheduleRun();
  return p.ShareOutputs();
}

struct Case {
  HostBatch img, mx, my;
};

Case MakeCase(int n, int h, int w, int c, int oh, int ow, std::string layout = "HWC") {
  std::mt19937 rng(3);
  std::vector<std::vector<uint8_t>> imgs;
  std::vector<std::vector<float>> xs, ys;
  std::vector<TensorShape> is, ms;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> v(size_t(h * w * c));
    for (auto& x : v) x = uint8_t(rng() & 0xff);
    imgs.push_back(std::move(v));
    std::vector<float> mx(size_t(oh * ow)), my(mx.size());
    for (auto& x : mx) x = float(int(rng() % 1000)) / 999.f * float(w + 2) - 1.5f;
    for (auto& y : my) y = float(int(rng() % 1000)) / 999.f * float(h + 2) - 1.5f;
    xs.push_back(std::move(mx));
    ys.push_back(std::move(my));
    is.push_back(TensorShape{h, w, c});
    ms.push_back(TensorShape{oh, ow});
  }
  return {HostBatch::Of(imgs, is, layout), HostBatch::Of(xs, ms, "HW"), HostBatch::Of(ys, ms, "HW")};
}

std::vector<uint8_t> Direct(const Case& k, int i, int h, int w, int c, int oh, int ow,
                            kernels::PerspectiveInterp interp, float shift) {
  std::vector<uint8_t> o(size_t(oh * ow * c));
  kernels::Remap(k.img.bytes[size_t(i)].data(), kernels::ImageGeom::HWC(h, w, c), o.data(),
                 kernels::ImageGeom::HWC(oh, ow, c), DType::kUInt8,
                 reinterpret_cast<const float*>(k.mx.bytes[size_t(i)].data()),
                 reinterpret_cast<const float*>(k.my.bytes[size_t(i)].data()), ow, interp, shift);
  return o;
}

std::vector<uint8_t> Sample(const Batch& b, int i) {
  const auto* p = static_cast<const uint8_t*>(b.data(i));
  return std::vector<uint8_t>(p, p + b.nbytes(i));
}

TEST(RemapOp, DefaultsAndArguments) {
  const Case k = MakeCase(2, 20, 24, 3, 13, 17);
  auto out = RunRemap(k.img, k.mx, k.my, OperatorDef("experimental.remap"));
  ASSERT_EQ(out[0].shape(0), (TensorShape{13, 17, 3}));
  EXPECT_EQ(Sample(out[0], 1), Direct(k, 1, 20, 24, 3, 13, 17, kernels::PerspectiveInterp::kLinear, 0.5f));
  out = RunRemap(k.img, k.mx, k.my,
                 OperatorDef("experimental.remap").Arg("interp", std::string("NN")).Arg("pixel_origin", std::string("center")));
  EXPECT_EQ(Sample(out[0], 0), Direct(k, 0, 20, 24, 3, 13, 17, kernels::PerspectiveInterp::kNearest, 0.f));
}

TEST(RemapOp, SequencesRepeatTheMapsPerFrame) {
  Case k = MakeCase(1, 2 * 10, 12, 3, 7, 9);
  k.img.shapes = {TensorShape{2, 10, 12, 3}};
  k.img.layout = "FHWC";
  const auto s = Sample(RunRemap(k.img, k.mx, k.my, OperatorDef("experimental.remap"))[0], 0);
  ASSERT_EQ(s.size(), size_t(2 * 7 * 9 * 3));
  for (int f = 0; f < 2; ++f) {
    Case one = k;
    one.img.bytes[0] = std::vector<uint8_t>(k.img.bytes[0].begin() + f * 360, k.img.bytes[0].begin() + (f + 1) * 360);
    EXPECT_EQ(std::vector<uint8_t>(s.begin() + f * 189, s.begin() + (f + 1) * 189),
              Direct(one, 0, 10, 12, 3, 7, 9, kernels::PerspectiveInterp::kLinear, 0.5f))
        << "frame " << f;
  }
}

TEST(RemapOp, SameForAnyThreadCount) {
  const Case k = MakeCase(5, 30, 40, 3, 25, 33);
  const std::string one = Fingerprint(RunRemap(k.img, k.mx, k.my, OperatorDef("experimental.remap"), 1));
  EXPECT_EQ(one, Fingerprint(RunRemap(k.img, k.mx, k.my, OperatorDef("experimental.remap"), 3)));
}

TEST(RemapOp, BadArgumentsAndMaps) {
  const std::string msg = ErrorMessage([] {
    Pipeline p(PipelineOptions{});
    OperatorDef d("experimental.remap");
    for (int k = 0; k < 3; ++k) d.Input(p.AddOperator(OperatorDef("external_source"))[0]);
    p.AddOperator(d.Arg("interp", std::string("LANCZOS3")));
  });
  EXPECT_NE(msg.find("interp"), std::string::npos) << msg;
  Case k = MakeCase(1, 8, 8, 3, 5, 5);
  k.my.shapes = {TensorShape{5, 5, 1}};
  const std::string shape_msg = ErrorMessage([&] { RunRemap(k.img, k.mx, k.my, OperatorDef("experimental.remap")); });
  EXPECT_NE(shape_msg.find("same shape"), std::string::npos) << shape_msg;
}

}  // namespace
}  // namespace sluice
