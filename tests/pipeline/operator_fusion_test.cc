// Operator fusion (pipeline/operator_fusion.h and _fused.resize_crop_mirror_normalize): where the
// pass applies and where it steps aside, and pipelines on real photographs that give the same
// bytes, the same random numbers and the same errors with and without it.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <map>

#include "operators/op_spec_encoding.h"
#include "pipeline/graph.h"  // ValidateSpec
#include "pipeline/operator_fusion.h"
#include "pipeline_test_util.h"

namespace sluice {
namespace {

using testing::Spec;
using testing::TestImage;

// coin -> (mirror); files -> decoders.image -> resize -> crop_mirror_normalize -> returned.
struct Chain {
  std::vector<OpSpec> specs;
  std::vector<std::string> outputs;
};
Chain TrainChain() {
  Chain c;
  c.specs.push_back(Spec("random.coin_flip", "coin", {}));
  c.specs.push_back(Spec("decoders.image", "dec", {"files"}));
  c.specs.push_back(Spec("resize", "rs", {c.specs[1].outputs[0]}, {{"size", std::vector<double>{64, 64}}}));
  c.specs.push_back(Spec("crop_mirror_normalize", "cmn", {c.specs[2].outputs[0]}, {{"crop", std::vector<double>{48, 48}}},
                         {{"mirror", c.specs[0].outputs[0]}}));
  c.outputs = {c.specs[3].outputs[0]};
  return c;
}

TEST(OperatorFusionPass, FusesResizeIntoCropMirrorNormalize) {
  Chain c = TrainChain();
  const std::string cmn_out = c.specs[3].outputs[0];
  const std::string dec_out = c.specs[1].outputs[0];
  ASSERT_EQ(ApplyOperatorFusion(c.specs, c.outputs), 1);
  ASSERT_EQ(c.specs.size(), 3u);
  const OpSpec& f = c.specs[2];
  EXPECT_EQ(f.op, "_fused.resize_crop_mirror_normalize");
  EXPECT_EQ(f.name, "rs+cmn");
  EXPECT_EQ(f.inputs, std::vector<std::string>{dec_out});
  EXPECT_EQ(f.outputs, std::vector<std::string>{cmn_out});
  EXPECT_EQ(f.arg_inputs.at("mirror"), c.specs[0].outputs[0]);
  EXPECT_EQ(f.position, 2);  // the resize's place: later operators keep their derived seeds
  const auto& specs = std::get<std::vector<std::string>>(f.args.at("fused_specs"));
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(DecodeSpec(specs[0]).op, "resize");
  EXPECT_EQ(DecodeSpec(specs[1]).op, "crop_mirror_normalize");
  EXPECT_EQ(std::get<std::vector<std::string>>(f.args.at("fused_arg_inputs")), (std::vector<std::string>{"", "mirror"}));
  // Positions are kept for the others too.
  EXPECT_EQ(c.specs[0].position, 0);
  EXPECT_EQ(c.specs[1].position, 1);
}

TEST(OperatorFusionPass, StepsAsideWhenTheResizedImageIsUsedElsewhere) {
  {  // the resized batch is also returned
    Chain c = TrainChain();
    c.outputs.push_back(c.specs[2].outputs[0]);
    EXPECT_EQ(ApplyOperatorFusion(c.specs, c.outputs), 0);
  }
  {  // another operator reads it too
    Chain c = TrainChain();
    c.specs.push_back(Spec("flip", "fl", {c.specs[2].outputs[0]}));
    c.outputs.push_back(c.specs.back().outputs[0]);
    EXPECT_EQ(ApplyOperatorFusion(c.specs, c.outputs), 0);
  }
  {  // the two take per-sample arguments of the same name: they could not share one workspace
    Chain c;
    c.specs.push_back(Spec("random.uniform", "u", {}, {{"range", std::vector<double>{0.0, 1.0}}}));
    c.specs.push_back(Spec("resize", "rs", {"images"}, {{"size", std::vector<double>{64, 64}}}, {}));
    c.specs.push_back(Spec("crop_mirror_normalize", "cmn", {c.specs[1].outputs[0]}, {{"crop", std::vector<double>{48, 48}}},
                           {{"crop_pos_x", c.specs[0].outputs[0]}}));
    c.specs[1].arg_inputs["crop_pos_x"] = c.specs[0].outputs[0];  // not a resize argument: only the names matter
    c.outputs = {c.specs[2].outputs[0]};
    EXPECT_EQ(ApplyOperatorFusion(c.specs, c.outputs), 0);
  }
  {  // on the GPU the chain is left alone
    Chain c = TrainChain();
    c.specs[2].device = "gpu";
    EXPECT_EQ(ApplyOperatorFusion(c.specs, c.outputs), 0);
  }
}

// files -> decoders.image -> resize -> crop_mirror_normalize (mirror from coin_flip, a random
// crop position), plus a random number made after the chain; with and without fusion.
struct Result {
  std::vector<std::vector<uint8_t>> images;
  std::vector<std::vector<uint8_t>> after;  // random.uniform added after the chain
  std::vector<std::string> op_names;
};

Result RunChain(bool fuse, const std::vector<std::string>& files, const std::map<std::string, Value>& resize_args,
           const std::map<std::string, Value>& cmn_args, bool validation) {
  PipelineOptions o;
  o.batch_size = static_cast<int>(files.size());
  o.num_threads = 2;
  o.seed = 5;
  o.fuse_operators = fuse;
  Pipeline p(o);
  auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", files));
  auto d = p.AddOperator(OperatorDef(validation ? "decoders.image" : "decoders.image_random_crop").Input(r[0]).Name("dec"))[0];
  OperatorDef rs("resize");
  rs.Input(d).Name("rs");
  rs.args = resize_args;
  auto s = p.AddOperator(rs)[0];
  OperatorDef cmn("crop_mirror_normalize");
  cmn.Input(s).Name("cmn");
  cmn.args = cmn_args;
  if (!validation) {
    cmn.ArgInput("mirror", p.AddOperator(OperatorDef("random.coin_flip"))[0]);
    cmn.ArgInput("crop_pos_x", p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{0.0, 1.0}))[0]);
  }
  auto out = p.AddOperator(cmn)[0];
  auto after = p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{0.0, 1.0}))[0];
  p.SetOutputs({out, after});
  p.Build();
  Result res;
  for (int it = 0; it < 2; ++it) {
    auto b = p.Run();
    for (int i = 0; i < b[0].num_samples(); ++i) {
      const auto* x = static_cast<const uint8_t*>(b[0].data(i));
      res.images.emplace_back(x, x + b[0].nbytes(i));
      const auto* y = static_cast<const uint8_t*>(b[1].data(i));
      res.after.emplace_back(y, y + b[1].nbytes(i));
    }
  }
  for (const auto& st : p.GetExecutorStatistics().operators) res.op_names.push_back(st.name);
  return res;
}

bool Has(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

TEST(OperatorFusionPipeline, SameBytesAndRandomNumbersWithAndWithoutFusion) {
  std::vector<std::string> files;
  for (const char* f : {"photo_500x375.jpg", "progressive.jpg", "gray.jpg", "palette.png", "s422.jpg", "orient_6.jpg"})
    files.push_back(TestImage(f));
  int checked = 0;
  for (const bool validation : {false, true}) {
    for (const char* layout : {"CHW", "HWC"}) {
      for (const char* dtype : {"float32", "float16", "uint8", "int8"}) {
        for (const char* resize_dtype : {"uint8", "float32"}) {
          std::map<std::string, Value> rs = {{"dtype", std::string(resize_dtype)}};
          if (validation) rs["resize_shorter"] = 96.0;
          else rs["size"] = std::vector<double>{80, 72};
          const std::map<std::string, Value> cmn = {{"crop", std::vector<double>{64, 60}},
                                                    {"dtype", std::string(dtype)},
                                                    {"output_layout", std::string(layout)},
                                                    {"mean", std::vector<double>{123.7, 116.3, 103.5}},
                                                    {"std", std::vector<double>{58.4, 57.1, 57.4}},
                                                    {"pad_output", std::string(layout) == "HWC"}};
          const std::string what = std::string(validation ? "val " : "train ") + layout + " " + dtype + " from " + resize_dtype;
          const Result fused = RunChain(true, files, rs, cmn, validation);
          const Result plain = RunChain(false, files, rs, cmn, validation);
          EXPECT_TRUE(Has(fused.op_names, "rs+cmn")) << what;
          EXPECT_FALSE(Has(fused.op_names, "rs")) << what;
          EXPECT_TRUE(Has(plain.op_names, "rs") && Has(plain.op_names, "cmn")) << what;
          ASSERT_EQ(fused.images.size(), plain.images.size());
          for (size_t i = 0; i < fused.images.size(); ++i) EXPECT_EQ(fused.images[i], plain.images[i]) << what << " #" << i;
          EXPECT_EQ(fused.after, plain.after) << what << ": an operator's seed moved";
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * 2 * 4 * 2);
}

TEST(OperatorFusionPipeline, ErrorsStillNameTheOperatorTheUserWrote) {
  const std::vector<std::string> files = {TestImage("photo_500x375.jpg")};
  for (const bool fuse : {true, false}) {
    try {
      // A crop larger than the resized image with out_of_bounds_policy="error" (the default).
      RunChain(fuse, files, {{"size", std::vector<double>{32, 32}}}, {{"crop", std::vector<double>{64, 64}}}, true);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cmn"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace sluice
