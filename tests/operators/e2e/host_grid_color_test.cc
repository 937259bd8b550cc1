// HostGrid.* for the colour adjustments: brightness, contrast, brightness_contrast (one affine
// body), hsv, hue, saturation, color_twist (one 3x3 matrix body), color_space_conversion and
// lookup_table, their plans, descriptors and
// kernel bodies on the host grid runner against the CPU operators, for every input and output type
// they take, bit for bit (the GPU bodies do the CPU kernels' float32 operations in their order).
#include "host_grid_util.h"
#include "kernels/color/color_adjust_body.h"
#include "kernels/color/color_space_body.h"
#include "kernels/color/lookup_table_body.h"
#include "operators/color/color_adjust_gpu_descs.h"
#include "operators/color/color_space_gpu_descs.h"
#include "operators/color/color_space_plan.h"
#include "operators/color/lookup_table_gpu_descs.h"
#include "operators/color/lookup_table_plan.h"

namespace sluice::testing {
namespace {

using Args = std::map<std::string, Value>;
namespace kc = kernels::cuda;

const std::vector<TensorShape> kImages = {{7, 9, 3}, {1, 1, 3}, {16, 5, 3}};

// Values over the input type: integers over their range (uint8 all of it), floats in [-0.5, 1.5].
HostBatch ColorBatch(DType t, const std::vector<TensorShape>& shapes, const std::string& layout) {
  switch (t) {
    case DType::kUInt8: return RampBatch<uint8_t>(shapes, layout);
    case DType::kInt16: return RampBatch<int16_t>(shapes, layout);
    case DType::kInt32: {
      HostBatch b = RampBatch<int32_t>(shapes, layout);
      for (auto& s : b.bytes) {  // keep them where float32 still resolves levels
        auto* p = reinterpret_cast<int32_t*>(s.data());
        for (size_t k = 0; k < s.size() / 4; ++k) p[k] %= 100000;
      }
      return b;
    }
    case DType::kFloat16: return RampBatch<float16>(shapes, layout);
    default: return RampBatch<float>(shapes, layout);
  }
}

std::string Name(const std::string& op, DType in, DType out, int variant) {
  return op + " " + std::string(ToString(in)) + " -> " + std::string(ToString(out)) + " variant " +
         std::to_string(variant);
}

TEST(HostGrid, BrightnessContrast) {
  const std::vector<DType> types = {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kFloat32};
  const std::vector<std::pair<std::string, Args>> cases = {
      {"brightness_contrast", {{"brightness", 1.3}, {"contrast", 0.7}}},
      {"brightness_contrast", {{"brightness", 0.9}, {"brightness_shift", 0.05}, {"contrast", 1.6},
                               {"contrast_center", 40.0}}},
      {"brightness", {{"brightness", 1.7}, {"brightness_shift", -0.1}}},
      {"contrast", {{"contrast", 2.5}}}};
  for (DType in_t : types)
    for (DType out_t : types)
      for (size_t v = 0; v < cases.size(); ++v) {
        const std::string& op = cases[v].first;
        Args args = cases[v].second;
        args["dtype"] = std::string(ToString(out_t));
        for (const std::string layout : {"HWC", "DHWC"}) {
          const HostBatch in =
              layout == "HWC" ? ColorBatch(in_t, kImages, layout) : ColorBatch(in_t, {{2, 3, 4, 2}}, layout);
          HostGridCase g(op, args, in);
          ColorAffinePlan plan;
          PlanBrightnessContrast(g.probe, g.ws, plan);
          g.Allocate(plan.output);
          std::vector<kc::ColorAffineDesc> descs;
          const int64_t max_el = gpu::MakeColorAffineDescs(plan, g.in, g.out, descs);
          kc::RunColorAffine(g.exec, descs.data(), g.in.num_samples(), max_el, plan.in_type, plan.out_type);
          ExpectSameAsCpu(RunCpu(op, args, in), g.out, Name(op, in_t, out_t, int(v)) + " " + layout);
        }
      }
}

TEST(HostGrid, ColorTwist) {
  const std::vector<DType> types = {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kFloat16, DType::kFloat32};
  const std::vector<std::pair<std::string, Args>> cases = {
      {"color_twist", {{"hue", 33.0}, {"saturation", 1.4}, {"contrast", 0.8}, {"brightness", 1.1}}},
      {"hsv", {{"hue", -120.0}, {"saturation", 0.5}, {"value", 1.3}}},
      {"hue", {{"hue", 200.0}}},
      {"saturation", {{"saturation", 0.0}}}};
  for (DType in_t : types)
    for (DType out_t : types)
      for (size_t v = 0; v < cases.size(); ++v) {
        const std::string& op = cases[v].first;
        Args args = cases[v].second;
        args["dtype"] = std::string(ToString(out_t));
        const HostBatch in = ColorBatch(in_t, kImages, "HWC");
        HostGridCase g(op, args, in);
        ColorTwistPlan plan;
        PlanColorTwist(g.probe, g.ws, plan);
        g.Allocate(plan.output);
        std::vector<kc::ColorMatrixDesc> descs;
        const int64_t max_px = gpu::MakeColorMatrixDescs(plan, g.in, g.out, descs);
        kc::RunColorMatrix3(g.exec, descs.data(), g.in.num_samples(), max_px, plan.in_type, plan.out_type);
        ExpectSameAsCpu(RunCpu(op, args, in), g.out, Name(op, in_t, out_t, int(v)));
      }
}

// A per-sample argument reaches the plan and the descriptors (the probe workspace feeds it as the
// executor would).
TEST(HostGrid, BrightnessPerSample) {
  const HostBatch in = ColorBatch(DType::kUInt8, kImages, "HWC");
  const HostBatch b = HostBatch::Of<float>({{0.5f}, {1.0f}, {1.9f}}, {{}, {}, {}});
  OpCase c{OperatorDef("brightness"), in, {{"brightness", b}}};
  const Batch cpu = RunOpCase(c, 1)[0];
  HostGridCase g("brightness", {}, in);
  TensorList arg;
  arg.Resize(b.shapes, DType::kFloat32, g.memory, false);
  for (int i = 0; i < 3; ++i) std::memcpy(arg.raw_mutable_sample(i), b.bytes[size_t(i)].data(), 4);
  g.ws.arg_inputs_["brightness"] = &arg;
  OpSpec spec = HostGridProbe::Spec("brightness", {});
  spec.arg_inputs["brightness"] = "arg_brightness";
  HostGridProbe probe(spec);
  ColorAffinePlan plan;
  PlanBrightnessContrast(probe, g.ws, plan);
  g.Allocate(plan.output);
  std::vector<kc::ColorAffineDesc> descs;
  const int64_t max_el = gpu::MakeColorAffineDescs(plan, g.in, g.out, descs);
  kc::RunColorAffine(g.exec, descs.data(), 3, max_el, plan.in_type, plan.out_type);
  ExpectSameAsCpu(cpu, g.out, "brightness per sample");
}

TEST(HostGrid, LookupTable) {
  const std::vector<TensorShape> shapes = {{5, 7, 3}, {1, 1, 1}, {3, 10, 10}};
  for (DType in_t : {DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16, DType::kInt32, DType::kInt64})
    for (const std::string out_t : {"uint8", "int8", "uint16", "int16", "int32", "int64", "float32", "float64"}) {
      const Args args{{"keys", std::vector<int64_t>{0, 3, 7, 100, 255, 3}},
                      {"values", std::vector<double>{-1.5, 2.5, 300, 1e6, 0.49, 4}},
                      {"default_value", -7.25},
                      {"dtype", out_t}};
      HostBatch in = ColorBatch(in_t == DType::kUInt8 ? in_t : DType::kInt16, shapes, "");
      if (in_t != DType::kUInt8) {  // small values of the type, negatives included, so keys are hit
        VisitDType(in_t, [&](auto tag) {
          using T = decltype(tag);
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            std::vector<std::vector<T>> s;
            for (size_t i = 0; i < shapes.size(); ++i) {
              std::vector<T> v(static_cast<size_t>(shapes[i].num_elements()));
              for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<T>(int64_t(k * 7 % 270) - (k % 5 == 0 ? 9 : 0));
              s.push_back(v);
            }
            in = HostBatch::Of(s, shapes, "");
          }
        });
      }
      HostGridCase g("lookup_table", args, in);
      const kernels::LookupTable table = MakeLookupTable(g.probe);
      g.Allocate(PlanLookupTable(table, g.ws));
      std::vector<kc::LookupTableDesc> descs;
      const int64_t max_el = gpu::MakeLookupTableDescs(g.in, g.out, descs);
      kc::RunLookupTable(g.exec, descs.data(), g.in.num_samples(), max_el, table.table_data(),
                         static_cast<int64_t>(table.size()), in_t, SizeOf(table.out_type()));
      ExpectSameAsCpu(RunCpu("lookup_table", args, in), g.out,
                      "lookup_table " + std::string(ToString(in_t)) + " -> " + out_t);
    }
}

TEST(HostGrid, ColorSpaceConversion) {
  const std::vector<std::string> spaces = {"RGB", "BGR", "YCbCr", "GRAY"};
  for (DType t : {DType::kUInt8, DType::kFloat32})
    for (const std::string& from : spaces)
      for (const std::string& to : spaces) {
        const int64_t c = from == "GRAY" ? 1 : 3;
        const Args args{{"image_type", from}, {"output_type", to}};
        const std::vector<TensorShape> shapes = {{7, 9, c}, {1, 1, c}, {16, 5, c}};
        const HostBatch in = t == DType::kUInt8 ? RampBatch<uint8_t>(shapes, "HWC") : RampBatch<float>(shapes, "HWC");
        HostGridCase g("color_space_conversion", args, in);
        const ColorSpaces cs(g.probe);
        g.Allocate(PlanColorSpace(g.probe, cs, g.ws));
        std::vector<kc::ColorSpaceDesc> descs;
        const int64_t max_px = gpu::MakeColorSpaceDescs(cs.from, g.in, g.out, descs);
        kc::RunColorSpace(g.exec, descs.data(), g.in.num_samples(), max_px, cs.from, cs.to, t);
        ExpectSameAsCpu(RunCpu("color_space_conversion", args, in), g.out,
                        "color_space_conversion " + std::string(ToString(t)) + " " + from + " -> " + to);
      }
}

// The launchers reject what the CPU operators reject, naming the operator.
TEST(HostGrid, ColorTypesChecked) {
  kernels::grid::HostGridExec exec;
  try {
    kc::RunColorAffine(exec, nullptr, 1, 1, DType::kFloat64, DType::kUInt8);
    ADD_FAILURE() << "float64 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("brightness_contrast (gpu): unsupported type float64"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sluice::testing
