// The backend-neutral per-sample plans (operators/image/*_plan.h) that the CPU and the GPU
// operators both compute in Setup: windows after out_of_bounds_policy, converted fill pixels,
// normalization coefficients, resize sizes and ROIs, and the data-dependent errors.
#include <gtest/gtest.h>

#include <map>

#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"
#include "operators/crop/crop_plan.h"
#include "operators/resize/resize_plan.h"
#include "operators/registry.h"
#include "operators/tensor/cast_plan.h"
#include "operators/tensor/transpose_plan.h"

namespace sluice {
namespace {

// An operator of type `op` with `args` (only its argument accessors are used).
struct Probe : Operator {
  Probe(const std::string& op, std::map<std::string, Value> args) : Operator(Spec(op, std::move(args))) {}
  std::vector<OutputDesc> Setup(Workspace&) override { return {}; }
  static OpSpec Spec(const std::string& op, std::map<std::string, Value> args) {
    OpSpec s;
    s.op = op;
    s.name = op + "#probe";
    s.args = std::move(args);
    return s;
  }
};

// A workspace whose input 0 holds zeroed samples of `shapes`.
struct Batch {
  Batch(const std::vector<TensorShape>& shapes, DType dtype, const std::string& layout = "HWC") {
    in.Resize(shapes, dtype, memory, false);
    in.set_layout(layout);
    ws.inputs_ = {&in};
    ws.memory_ = &memory;
    ws.batch_size_ = static_cast<int>(shapes.size());
  }
  MemoryConfig memory;
  TensorList in;
  Workspace ws;
};

template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Plans, OutOfBoundsPolicy) {
  const kernels::CropWindow w{-2, 3, 6, 4};
  EXPECT_FALSE(kernels::InsideImage(w, 10, 10));
  EXPECT_TRUE(kernels::InsideImage({0, 0, 10, 10}, 10, 10));
  EXPECT_EQ(kernels::ApplyOutOfBoundsPolicy(w, 10, 10, kernels::OutOfBoundsPolicy::kPad), w);
  EXPECT_EQ(kernels::ApplyOutOfBoundsPolicy(w, 10, 10, kernels::OutOfBoundsPolicy::kTrim), (kernels::CropWindow{0, 3, 4, 4}));
  EXPECT_EQ(kernels::ClampToImage({20, 20, 5, 5}, 10, 10).w, 0);
  EXPECT_THROW(kernels::ApplyOutOfBoundsPolicy(w, 10, 10, kernels::OutOfBoundsPolicy::kError), Error);
  EXPECT_EQ(kernels::ApplyOutOfBoundsPolicy({1, 1, 2, 2}, 10, 10, kernels::OutOfBoundsPolicy::kError),
            (kernels::CropWindow{1, 1, 2, 2}));
}

TEST(Plans, CropMirrorNormalize) {
  Probe op("crop_mirror_normalize", {{"crop", std::vector<double>{4, 6}},
                                     {"mean", std::vector<double>{1, 2, 3}},
                                     {"std", std::vector<double>{2}},
                                     {"scale", 3.0},
                                     {"mirror", int64_t{1}},
                                     {"pad_output", true}});
  const CmnArgs args(op);
  Batch b({{10, 12, 3}, {4, 6, 3}}, DType::kUInt8);
  CmnPlan plan;
  PlanCropMirrorNormalize(op, args, b.ws, plan);
  ASSERT_EQ(plan.samples.size(), 2u);
  const CmnSamplePlan& p = plan.samples[0];
  EXPECT_EQ(p.params.crop_x, 3);
  EXPECT_EQ(p.params.crop_y, 3);
  EXPECT_EQ(p.params.crop_w, 6);
  EXPECT_EQ(p.params.crop_h, 4);
  EXPECT_TRUE(p.params.mirror);
  EXPECT_EQ(p.out_channels, 4);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(p.coeffs.a[c], 1.5f);
    EXPECT_EQ(p.coeffs.b[c], 0.f - float(c + 1) * 1.5f);
  }
  EXPECT_EQ(plan.output.layout, "CHW");
  EXPECT_EQ(plan.output.shapes[0], (TensorShape{4, 4, 6}));
  EXPECT_TRUE(plan.output.contiguous);
  EXPECT_EQ(plan.samples[1].params.crop_x, 0);

  // Data-dependent checks: channel counts against mean/std/fill_values, and the window.
  Batch gray({{10, 12, 1}}, DType::kUInt8);
  EXPECT_NE(ErrorOf([&] { PlanCropMirrorNormalize(op, args, gray.ws, plan); }).find("need 1 or 1 values"), std::string::npos);
  Batch small({{3, 3, 3}}, DType::kUInt8);
  const std::string e = ErrorOf([&] { PlanCropMirrorNormalize(op, args, small.ws, plan); });
  EXPECT_NE(e.find("outside the 3x3 image"), std::string::npos) << e;
  EXPECT_NE(e.find("out_of_bounds_policy"), std::string::npos) << e;
  Batch wrong({{10, 12, 3}}, DType::kInt16);
  EXPECT_NE(ErrorOf([&] { PlanCropMirrorNormalize(op, args, wrong.ws, plan); }).find("uint8 or float32"), std::string::npos);
}

TEST(Plans, CropFillPixelAndPolicies) {
  Probe pad("crop", {{"crop", std::vector<double>{4, 4}},
                     {"crop_pos_x", 0.0},
                     {"out_of_bounds_policy", std::string("pad")},
                     {"fill_values", std::vector<double>{7, 300, -5}}});
  const CropOpArgs args(pad);
  Batch b({{2, 8, 3}, {8, 8, 3}}, DType::kUInt8);
  CropPlan plan;
  PlanCrop(pad, args, b.ws, plan);
  EXPECT_EQ(plan.samples[0].window, (kernels::CropWindow{0, -1, 4, 4}));
  EXPECT_EQ(plan.samples[0].fill, (std::vector<uint8_t>{7, 255, 0}));  // converted with cast's rules
  EXPECT_TRUE(plan.samples[1].fill.empty());                          // inside: no fill needed
  EXPECT_EQ(plan.output.shapes[0], (TensorShape{4, 4, 3}));

  Probe trim("crop", {{"crop", std::vector<double>{4, 4}}, {"out_of_bounds_policy", std::string("trim_to_shape")}});
  PlanCrop(trim, CropOpArgs(trim), b.ws, plan);
  EXPECT_EQ(plan.output.shapes[0], (TensorShape{2, 4, 3}));
  EXPECT_FALSE(plan.output.contiguous);

  // crop and crop_mirror_normalize reject a window outside the image with the same message.
  Probe err("crop", {{"crop", std::vector<double>{4, 4}}});
  Probe cmn("crop_mirror_normalize", {{"crop", std::vector<double>{4, 4}}});
  CmnPlan cplan;
  EXPECT_EQ(ErrorOf([&] { PlanCrop(err, CropOpArgs(err), b.ws, plan); }),
            ErrorOf([&] { PlanCropMirrorNormalize(cmn, CmnArgs(cmn), b.ws, cplan); }));
}

TEST(Plans, ResizeSizesAndRoi) {
  Probe op("resize", {{"resize_x", -8.0}, {"resize_y", 6.0}});
  const ResizeArgs args(op);
  Batch b({{12, 16, 3}}, DType::kUInt8);
  ResizePlan plan;
  PlanResize(op, args, b.ws, plan);
  const ResizeSamplePlan& p = plan.samples[0];
  EXPECT_EQ(p.out_h, 6);
  EXPECT_EQ(p.out_w, 8);
  ASSERT_TRUE(p.params.roi.has_value());
  EXPECT_EQ(p.params.roi->x0, 16.f);  // a negative resize_x mirrors
  EXPECT_EQ(p.params.roi->x1, 0.f);
  EXPECT_EQ(plan.output.dtype, DType::kUInt8);
  EXPECT_EQ(plan.output.shapes[0], (TensorShape{6, 8, 3}));

  Batch five({{12, 16, 5}}, DType::kUInt8);
  EXPECT_NE(ErrorOf([&] { PlanResize(op, args, five.ws, plan); }).find("channels must be 1..4"), std::string::npos);
}

TEST(Plans, TransposeAndCast) {
  Probe op("transpose", {{"perm", std::vector<int64_t>{2, 0, 1}}});
  Batch b({{4, 5, 3}}, DType::kFloat32);
  const OutputDesc d = PlanTranspose(op, TransposeArgs(op), b.ws);
  EXPECT_EQ(d.shapes[0], (TensorShape{3, 4, 5}));
  EXPECT_EQ(d.layout, "CHW");
  Batch two({{4, 5}}, DType::kFloat32, "HW");
  EXPECT_NE(ErrorOf([&] { PlanTranspose(op, TransposeArgs(op), two.ws); }).find("perm"), std::string::npos);
  EXPECT_EQ(PlanCast(DType::kInt16, b.ws).dtype, DType::kInt16);
}

}  // namespace
}  // namespace sluice
