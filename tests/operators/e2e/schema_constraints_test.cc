// The schema is the only validator: ranges, enumerations, list lengths, layout strings and
// cross-argument rules are checked where the operator is added (AddOperator / ValidateOperator),
// with the operator and the argument named; per-sample argument inputs are checked per batch.
#include <gtest/gtest.h>

#include <sluice/pipeline.h>

#include "operators/e2e/op_test_util.h"
#include "operators/registry.h"

namespace sluice {
namespace {

using testing::ExpectError;

// Adds `def` (one input for operators that take one) to a scratch pipeline; returns the error text.
std::string AddError(OperatorDef def) {
  PipelineOptions o;
  Pipeline p(o);
  const auto src = p.AddOperator(OperatorDef("testing.counter"))[0];
  const OpSchema& s = OperatorRegistry::Get().GetSchema(def.op);
  for (int i = 0; i < s.min_inputs(); ++i) def.Input(src);
  try {
    p.AddOperator(def);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void ExpectRejected(const OperatorDef& def, const std::string& arg, const std::string& fragment) {
  const std::string msg = AddError(def);
  ASSERT_FALSE(msg.empty()) << def.op << ": argument '" << arg << "' was accepted";
  EXPECT_NE(msg.find("argument '" + arg + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  // ValidateOperator (what the Python layer calls) raises the same message.
  OperatorDef named = def;
  named.name = def.op + "#0";
  for (int i = 0; i < OperatorRegistry::Get().GetSchema(def.op).min_inputs(); ++i) named.Input("x");
  try {
    ValidateOperator(named);
    ADD_FAILURE() << "ValidateOperator accepted " << def.op << " " << arg;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), msg);
  }
}

TEST(SchemaConstraints, TheIssuesFourCallsRaiseNamingTheArgument) {
  ExpectRejected(OperatorDef("crop_mirror_normalize").Arg("output_layout", std::string("XYZ")), "output_layout",
                 "expected one of 'CHW', 'HWC', 'CDHW', 'DHWC', 'FCHW', 'FHWC', 'FCDHW', 'FDHWC', got 'XYZ'");
  ExpectRejected(OperatorDef("resize").Arg("resize_x", 5.0).Arg("interp_type", int64_t{999}), "interp_type",
                 "or an integer 0..5, got 999");
  ExpectRejected(OperatorDef("resize").Arg("resize_x", true), "resize_x", "expected float, got True");
  ExpectRejected(OperatorDef("crop_mirror_normalize").Arg("std", std::vector<double>{0.5, -1.0, 2.0}), "std",
                 "expected a value > 0, got -1");
}

TEST(SchemaConstraints, RangesEnumsCountsAndLayouts) {
  ExpectRejected(OperatorDef("random.coin_flip").Arg("probability", 1.5), "probability", "in [0, 1], got 1.5");
  ExpectRejected(OperatorDef("crop_mirror_normalize").Arg("dtype", std::string("int32")), "dtype",
                 "expected one of 'float32', 'float16', 'uint8', 'int8', got 'int32'");
  ExpectRejected(OperatorDef("crop_mirror_normalize").Arg("out_of_bounds_policy", std::string("Pad")),
                 "out_of_bounds_policy", "did you mean 'pad'");
  ExpectRejected(OperatorDef("crop_mirror_normalize").Arg("mean", std::vector<double>{1, 2, 3, 4, 5}), "mean",
                 "expected 1 or 2 or 3 or 4 value(s), got 5");
  ExpectRejected(OperatorDef("decoders.image").Arg("on_error", std::string("skip")), "on_error", "'raise', 'replace'");
  ExpectRejected(OperatorDef("decoders.image").Arg("max_pixels", int64_t{0}), "max_pixels", ">= 1");
  ExpectRejected(OperatorDef("decoders.image_random_crop").Arg("random_area", std::vector<double>{0.5, 0.1}),
                 "random_area", "min <= max");
  ExpectRejected(OperatorDef("transpose").Arg("perm", std::vector<int64_t>{0, 0, 1}), "perm", "permutation");
  ExpectRejected(OperatorDef("transpose").Arg("perm", std::vector<int64_t>{2, 0, 1}).Arg("output_layout", std::string("CHH")),
                 "output_layout", "distinct letters");
  ExpectRejected(OperatorDef("resize").Arg("resize_x", 5.0).Arg("resize_shorter", 5.0), "size", "give one of");
  ExpectRejected(OperatorDef("resize"), "size", "no output size");
  ExpectRejected(OperatorDef("resize").Arg("resize_shorter", 5.0).Arg("mode", std::string("stretch")), "mode",
                 "cannot be combined");
  ExpectRejected(OperatorDef("random.uniform").Arg("range", std::vector<double>{2, 1}), "range", "lo <= hi");
}

TEST(SchemaConstraints, DaliIntegerEnumsNameTheirChoice) {
  // types.INTERP_CUBIC is 2 in DALI; types.GRAY is 2.
  OperatorDef def = ValidateOperator(OperatorDef("resize").Name("r").Input("x").Arg("resize_x", 5.0).Arg("interp_type", int64_t{2}));
  EXPECT_EQ(std::get<std::string>(def.args.at("interp_type")), "CUBIC");
  def = ValidateOperator(OperatorDef("decoders.image").Name("d").Input("x").Arg("output_type", int64_t{2}));
  EXPECT_EQ(std::get<std::string>(def.args.at("output_type")), "GRAY");
  EXPECT_EQ(def.outputs.size(), 1u);
}

TEST(SchemaConstraints, DaliBoolOrStringEnumsTakeBools) {
  // enable_frame_num: False/"none", True/"scalar", "sequence" (DALI 2.4's video readers).
  for (const char* op : {"readers.video", "experimental.readers.video"}) {
    OperatorDef def = ValidateOperator(OperatorDef(op).Name("v").Arg("sequence_length", int64_t{2}).Arg("enable_frame_num", true));
    EXPECT_EQ(std::get<std::string>(def.args.at("enable_frame_num")), "scalar") << op;
    def = ValidateOperator(OperatorDef(op).Name("v").Arg("sequence_length", int64_t{2}).Arg("enable_frame_num", false));
    EXPECT_EQ(std::get<std::string>(def.args.at("enable_frame_num")), "none") << op;
  }
  // Any other string enum still refuses a bool.
  EXPECT_THROW(ValidateOperator(OperatorDef("experimental.decoders.video").Name("d").Input("x").Arg("pad_mode", true)),
               Error);
}

TEST(SchemaConstraints, EveryDefaultSatisfiesItsOwnConstraint) {
  auto& reg = OperatorRegistry::Get();
  for (const auto& name : reg.Names())
    for (const auto& a : reg.GetSchema(name).args())
      if (a.default_value) EXPECT_NO_THROW(CheckArgValue(a, *a.default_value)) << name << "." << a.name;
}

TEST(SchemaConstraints, PerSampleValuesAreCheckedAgainstTheRange) {
  PipelineOptions o;
  o.batch_size = 2;
  Pipeline p(o);
  const auto bad = p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{1.5, 2.0}))[0];
  const auto flip = p.AddOperator(OperatorDef("random.coin_flip").Name("flip").ArgInput("probability", bad))[0];
  p.SetOutputs({flip});
  p.Build();
  ExpectError([&] { p.Run(); }, {"flip", "argument 'probability'", "per-sample value", "in [0, 1]"});
}

}  // namespace
}  // namespace sluice
