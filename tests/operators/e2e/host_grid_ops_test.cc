// HostGrid.*: each GPU operator's plan, descriptors and kernel body run on the host grid runner
// (kernels/grid/host_grid.h) against its CPU operator, for every dtype and layout the GPU operator
// takes: cast, transpose, crop, flip, crop_mirror_normalize, resize, preemphasis_filter. Bit-exact
// except resize with a float accumulator (<= 1 level for uint8 output, 1e-3 for float: the CPU
// kernel's SIMD targets decide whether its multiply-adds are fused). Colour: host_grid_color_test.cc.
#include "host_grid_util.h"
#include "kernels/audio/preemphasis_body.h"
#include "kernels/crop/crop_flip_body.h"
#include "kernels/crop_mirror_normalize/crop_mirror_normalize_body.h"
#include "kernels/resize/resize_body.h"
#include "kernels/tensor/cast_body.h"
#include "kernels/tensor/transpose_body.h"
#include "operators/audio/preemphasis_filter_gpu_descs.h"
#include "operators/crop/crop_gpu_descs.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_gpu_descs.h"
#include "operators/resize/resize_gpu_descs.h"
#include "operators/tensor/cast_gpu_descs.h"
#include "operators/tensor/cast_plan.h"
#include "operators/tensor/transpose_gpu_descs.h"
#include "operators/tensor/transpose_plan.h"

namespace sluice::testing {
namespace {

using Args = std::map<std::string, Value>;
namespace kc = kernels::cuda;

const std::vector<TensorShape> kImages = {{7, 9, 3}, {1, 1, 3}, {16, 5, 3}};

// A batch of `t` on `shapes`: values spread over the type (floats scaled to +-70000 so that
// integer targets saturate, bool as 0/1 bytes).
HostBatch AnyTypeBatch(DType t, const std::vector<TensorShape>& shapes, const std::string& layout) {
  HostBatch b;
  VisitDType(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      b = RampBatch<uint8_t>(shapes, layout);
      for (auto& s : b.bytes)
        for (auto& v : s) v &= 1;
      b.dtype = DType::kBool;
    } else if constexpr (std::is_floating_point_v<T>) {
      b = RampBatch<T>(shapes, layout);
      for (auto& s : b.bytes) {
        T* p = reinterpret_cast<T*>(s.data());
        for (size_t k = 0; k < s.size() / sizeof(T); ++k) p[k] = k % 7 == 0 ? T(k % 5) + T(0.5) : p[k] * T(70000);
      }
    } else {
      b = RampBatch<T>(shapes, layout);
    }
  });
  return b;
}

const std::vector<DType> kAllTypes = {DType::kUInt8,  DType::kInt8,   DType::kUInt16,  DType::kInt16,
                                      DType::kInt32,  DType::kInt64,  DType::kUInt32,  DType::kUInt64,
                                      DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kBool};

TEST(HostGrid, Cast) {
  for (DType from : kAllTypes)
    for (DType to : kAllTypes) {
      const HostBatch in = AnyTypeBatch(from, kImages, "HWC");
      const Args args{{"dtype", std::string(ToString(to))}};
      HostGridCase g("cast", args, in);
      g.Allocate(PlanCast(to, g.ws));
      std::vector<kc::CastDesc> descs;
      gpu::MakeCastDescs(g.in, g.out, descs);
      kc::RunCast(g.exec, descs.data(), g.in.num_samples(), 16 * 5 * 3, from, to);
      ExpectSameAsCpu(RunCpu("cast", args, in), g.out,
                      "cast " + std::string(ToString(from)) + " -> " + std::string(ToString(to)));
    }
}

TEST(HostGrid, Transpose) {
  struct Case {
    std::vector<TensorShape> shapes;
    std::string layout;
    std::vector<int64_t> perm;
  };
  const std::vector<Case> cases = {{kImages, "HWC", {2, 0, 1}},
                                   {{{5, 3}, {1, 7}}, "HW", {1, 0}},
                                   {{{2, 3, 4, 5}, {3, 1, 2, 2}}, "FHWC", {0, 3, 1, 2}}};
  for (DType t : {DType::kUInt8, DType::kInt16, DType::kFloat32, DType::kFloat64})
    for (const Case& c : cases) {
      const HostBatch in = AnyTypeBatch(t, c.shapes, c.layout);
      const Args args{{"perm", c.perm}};
      HostGridCase g("transpose", args, in);
      const TransposeArgs targs(g.probe);
      g.Allocate(PlanTranspose(g.probe, targs, g.ws));
      std::vector<kc::TransposeDesc> descs;
      gpu::MakeTransposeDescs(targs.perm, g.in, g.out, descs);
      kc::RunTranspose(g.exec, descs.data(), g.in.num_samples(), 120, SizeOf(t));
      ExpectSameAsCpu(RunCpu("transpose", args, in), g.out, "transpose " + std::string(ToString(t)) + " " + c.layout);
    }
}

TEST(HostGrid, Crop) {
  // Inside, partly outside (padded with fill_values) and fully outside windows.
  const std::vector<Args> windows = {
      {{"crop", std::vector<double>{4, 5}}, {"crop_pos_x", 0.3}, {"crop_pos_y", 0.6}},
      {{"crop", std::vector<double>{9, 12}}, {"crop_pos_x", 0.9}, {"crop_pos_y", 0.1},
       {"out_of_bounds_policy", std::string("pad")}, {"fill_values", std::vector<double>{3, 70, 255}}},
      {{"crop", std::vector<double>{20, 3}}, {"out_of_bounds_policy", std::string("pad")}}};
  for (DType t : {DType::kUInt8, DType::kInt16, DType::kFloat16, DType::kFloat32, DType::kFloat64})
    for (const Args& base : windows) {
      const Args& args = base;
      const HostBatch in = AnyTypeBatch(t, {{7, 9, 3}, {6, 5, 3}, {16, 5, 3}}, "HWC");
      HostGridCase g("crop", args, in);
      const CropOpArgs cargs(g.probe);
      CropPlan plan;
      PlanCrop(g.probe, cargs, g.ws, plan);
      g.Allocate(plan.output);
      std::vector<kc::CropFlipDesc> descs;
      const int64_t max_el = gpu::MakeCropDescs(plan, g.in, g.out, descs);
      kc::RunCropFlip(g.exec, descs.data(), g.in.num_samples(), max_el, SizeOf(t));
      ExpectSameAsCpu(RunCpu("crop", args, in), g.out, "crop " + std::string(ToString(t)));
    }
}

TEST(HostGrid, Flip) {
  struct Case {
    std::vector<TensorShape> shapes;
    std::string layout;
  };
  const std::vector<Case> cases = {{kImages, "HWC"},
                                   {{{3, 7, 9}, {1, 2, 2}}, "CHW"},
                                   {{{3, 4, 5, 3}, {2, 1, 6, 3}}, "DHWC"}};
  for (DType t : {DType::kUInt8, DType::kInt16, DType::kFloat32, DType::kFloat64})
    for (const Case& c : cases)
      for (int h = 0; h < 2; ++h)
        for (int v = 0; v < 2; ++v) {
          const Args args{{"horizontal", int64_t{h}}, {"vertical", int64_t{v}}};
          const HostBatch in = AnyTypeBatch(t, c.shapes, c.layout);
          HostGridCase g("flip", args, in);
          FlipPlan plan;
          PlanFlip(g.probe, g.ws, plan);
          g.Allocate(plan.output);
          std::vector<kc::CropFlipDesc> descs;
          gpu::MakeFlipDescs(plan, g.in, g.out, descs);
          kc::RunCropFlip(g.exec, descs.data(), g.in.num_samples(), 200, SizeOf(t));
          ExpectSameAsCpu(RunCpu("flip", args, in), g.out,
                          "flip " + std::string(ToString(t)) + " " + c.layout + " h" + std::to_string(h) + " v" +
                              std::to_string(v));
        }
}

TEST(HostGrid, CropMirrorNormalize) {
  const std::vector<TensorShape> shapes = {{9, 11, 3}, {6, 5, 3}};
  const std::vector<TensorShape> gray = {{9, 11, 1}, {4, 4, 1}};
  for (DType in_t : {DType::kUInt8, DType::kFloat32})
    for (DType out_t : {DType::kFloat32, DType::kFloat16, DType::kUInt8, DType::kInt8})
      for (const std::string layout : {"HWC", "CHW"})
        for (int variant = 0; variant < 3; ++variant) {
          Args args{{"dtype", std::string(ToString(out_t))}, {"output_layout", layout}};
          if (variant == 0) {
            args["mean"] = std::vector<double>{100, 120, 90};
            args["std"] = std::vector<double>{50, 60, 70};
            args["mirror"] = int64_t{1};
            args["crop"] = std::vector<double>{5, 4};
          } else if (variant == 1) {  // out of bounds, padded channel, scale and shift
            args["crop"] = std::vector<double>{8, 14};
            args["crop_pos_x"] = 0.8;
            args["out_of_bounds_policy"] = std::string("pad");
            args["fill_values"] = std::vector<double>{7};
            args["pad_output"] = true;
            args["scale"] = 2.0;
            args["shift"] = 3.0;
          }
          const HostBatch in = variant == 2 ? AnyTypeBatch(in_t, gray, "HWC") : AnyTypeBatch(in_t, shapes, "HWC");
          HostGridCase g("crop_mirror_normalize", args, in);
          const CmnArgs cargs(g.probe);
          CmnPlan plan;
          PlanCropMirrorNormalize(g.probe, cargs, g.ws, plan);
          g.Allocate(plan.output);
          std::vector<kc::CmnSampleDesc> descs;
          const int64_t max_px = gpu::MakeCmnDescs(plan, g.in, g.out, descs);
          kc::RunCropMirrorNormalize(g.exec, descs.data(), g.in.num_samples(), max_px, in_t, cargs.out_type,
                                     cargs.layout[0] == 'C');
          ExpectSameAsCpu(RunCpu("crop_mirror_normalize", args, in), g.out,
                          "crop_mirror_normalize " + std::string(ToString(in_t)) + " -> " +
                              std::string(ToString(out_t)) + " " + layout + " variant " + std::to_string(variant));
        }
}

TEST(HostGrid, Resize) {
  const std::vector<TensorShape> shapes = {{23, 31, 3}, {8, 5, 3}, {12, 12, 1}};
  for (DType in_t : {DType::kUInt8, DType::kFloat32})
    for (DType out_t : {DType::kUInt8, DType::kFloat32})
      for (const std::string interp : {"LINEAR", "CUBIC", "LANCZOS3", "NN"})
        for (int variant = 0; variant < 2; ++variant) {
          Args args{{"interp_type", interp}, {"dtype", std::string(ToString(out_t))}};
          if (variant == 0) args["size"] = std::vector<double>{17, 9};  // down in y, up/down in x
          else args["resize_shorter"] = 29.0;                           // up
          HostBatch in = AnyTypeBatch(in_t, shapes, "HWC");
          if (in_t == DType::kFloat32)  // image-like floats: [0, 255]
            for (auto& s : in.bytes) {
              auto* p = reinterpret_cast<float*>(s.data());
              for (size_t k = 0; k < s.size() / 4; ++k) p[k] = float((k * 37) % 256) + 0.25f;
            }
          HostGridCase g("resize", args, in);
          const ResizeArgs rargs(g.probe);
          ResizePlan plan;
          PlanResize(g.probe, rargs, g.ws, plan);
          g.Allocate(plan.output);
          gpu::ResizeGpuDescs builder;
          auto serial = [](const std::function<void(int)>& fn) {
            for (int i = 0; i < 3; ++i) fn(i);
          };
          builder.Prepare(plan, in_t, g.in.num_samples(), serial);
          std::vector<uint64_t> upload((builder.upload_bytes() + 7) / 8), mid((builder.mid_bytes() + 7) / 8 + 1);
          auto* up = reinterpret_cast<uint8_t*>(upload.data());
          builder.Fill(plan, g.in, g.out, up, up, reinterpret_cast<uint8_t*>(mid.data()), serial);
          kc::RunResize(g.exec, reinterpret_cast<const kc::ResizeSampleDesc*>(up + builder.descs_at()),
                        g.in.num_samples(), builder.max_mid(), builder.max_out(), in_t, plan.output.dtype);
          EXPECT_EQ(g.exec.launches, 2);
          g.exec.launches = 0;
          const bool exact = in_t == DType::kUInt8 && out_t == DType::kUInt8;
          ExpectSameAsCpu(RunCpu("resize", args, in), g.out,
                          "resize " + std::string(ToString(in_t)) + " -> " + std::string(ToString(out_t)) + " " +
                              interp + " variant " + std::to_string(variant),
                          exact ? 0 : out_t == DType::kUInt8 ? 1 : 1e-3);
        }
}

TEST(HostGrid, PreemphasisFilter) {
  const std::vector<TensorShape> shapes = {{257}, {1}, {40}};
  for (DType in_t : {DType::kInt16, DType::kInt32, DType::kFloat32, DType::kFloat64})
    for (DType out_t : {DType::kFloat32, DType::kFloat64, DType::kInt16})
      for (const std::string border : {"zero", "clamp", "reflect"})
        for (double coeff : {0.97, 0.0}) {
          const Args args{{"dtype", std::string(ToString(out_t))}, {"border", border}, {"preemph_coeff", coeff}};
          HostBatch in = AnyTypeBatch(in_t, shapes, "t");
          in.layout = "";
          HostGridCase g("preemphasis_filter", args, in);
          const PreemphasisArgs pargs(g.probe);
          PreemphasisPlan plan;
          PlanPreemphasis(g.probe, pargs, g.ws, plan);
          g.Allocate(plan.output);
          std::vector<kc::PreemphasisDesc> descs;
          gpu::MakePreemphasisDescs(pargs, plan, g.in, g.out, descs);
          kc::RunPreemphasis(g.exec, descs.data(), g.in.num_samples(), 257, in_t, out_t);
          ExpectSameAsCpu(RunCpu("preemphasis_filter", args, in), g.out,
                          "preemphasis_filter " + std::string(ToString(in_t)) + " -> " + std::string(ToString(out_t)) +
                              " " + border);
        }
}

}  // namespace
}  // namespace sluice::testing
