// Input layouts declared in the schema (InputLayouts, operators/schema.h) and checked once per batch
// by the framework (NodeRunner::CheckInputs): every operator that declares them rejects a wrong
// layout, and samples whose number of dimensions does not fit the layout, with the one message;
// sequence and volume forms are accepted exactly where declared; an input without a layout is read
// as before (the first base layout of its samples' number of dimensions).
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cstring>
#include <map>
#include <numeric>

#include "operators/e2e/op_test_util.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {

namespace {

// Copies its input; the output has the layout the input is read as.
class CopyInput : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {OutputDesc{in.shapes(), in.dtype(), InputLayout(ws, 0), false}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    std::memcpy(ws.Output(0).raw_mutable_sample(i), ws.Input(0).raw_sample(i), ws.Input(0).sample_bytes(i));
  }
};

}  // namespace

// Test-only operators (this test binary only) for the forms no built-in operator declares yet: an
// input that must have a layout, and CHW images with their volume and sequence forms.
SLUICE_REGISTER_OPERATORS(RegisterLayoutTestOperators) {
  r.Register(OpSchema("testing.layout_required")
                 .Doc("Copies HWC images; an input without a layout is an error.")
                 .Input("images", "HWC images.", {}, InputLayouts{"HWC"}.RequireLayout())
                 .Output("output", "The input.")
                 .Factory("cpu", MakeFactory<CopyInput>()));
  r.Register(OpSchema("testing.layout_volumes")
                 .Doc("Copies CHW images, CDHW volumes and sequences of either.")
                 .Input("volumes", "CHW images or CDHW volumes.", {}, InputLayouts{"CHW"}.AllowSequence().AllowVolume())
                 .Output("output", "The input.")
                 .Factory("cpu", MakeFactory<CopyInput>()));
}

namespace {

using namespace sluice::testing;

// A valid call of every operator whose schema declares input layouts, as the chain of operators
// the pipeline runs (the fused operator is what resize -> crop_mirror_normalize becomes). Each
// operator's inputs are all fed from the one source; the layout of input 0 is checked before any
// other input is looked at.
std::map<std::string, std::vector<OperatorDef>> Calls() {
  auto op = [](const std::string& name) { return OperatorDef(name).Name("op"); };
  return {
      {"brightness", {op("brightness")}},
      {"brightness_contrast", {op("brightness_contrast")}},
      {"contrast", {op("contrast")}},
      {"color_twist", {op("color_twist")}},
      {"hsv", {op("hsv")}},
      {"hue", {op("hue")}},
      {"saturation", {op("saturation")}},
      {"color_space_conversion",
       {op("color_space_conversion").Arg("image_type", std::string("RGB")).Arg("output_type", std::string("GRAY"))}},
      {"equalize", {op("equalize")}},
      {"clahe", {op("clahe").Arg("tiles_x", int64_t{2}).Arg("tiles_y", int64_t{2}).Arg("clip_limit", 2.0)}},
      {"debayer", {op("debayer").Arg("blue_position", std::vector<int64_t>{0, 0})}},
      {"dump_image", {op("dump_image")}},
      {"element_extract", {op("element_extract").Arg("element_map", std::vector<int64_t>{0})}},
      {"filter", {op("filter")}},
      {"gaussian_blur", {op("gaussian_blur").Arg("sigma", 1.0)}},
      {"laplacian", {op("laplacian")}},
      {"experimental.median_blur", {op("experimental.median_blur")}},
      {"experimental.dilate", {op("experimental.dilate")}},
      {"experimental.erode", {op("experimental.erode")}},
      {"experimental.remap", {op("experimental.remap")}},
      {"sphere", {op("sphere")}},
      {"water", {op("water")}},
      {"experimental.warp_perspective",
       {op("experimental.warp_perspective").Arg("matrix", std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1})}},
      {"grid_mask", {op("grid_mask")}},
      {"jitter", {op("jitter")}},
      {"jpeg_compression_distortion", {op("jpeg_compression_distortion")}},
      {"paste", {op("paste").Arg("ratio", 2.0).Arg("fill_value", std::vector<int64_t>{0})}},
      {"random_resized_crop", {op("random_resized_crop").Arg("size", std::vector<int64_t>{4, 4})}},
      {"resize", {op("resize").Arg("resize_x", 4.0).Arg("resize_y", 4.0)}},
      {"resize_crop_mirror", {op("resize_crop_mirror").Arg("resize_x", 4.0).Arg("resize_y", 4.0).Arg("crop", 2.0)}},
      {"fast_resize_crop_mirror",
       {op("fast_resize_crop_mirror").Arg("resize_x", 4.0).Arg("resize_y", 4.0).Arg("crop", 2.0)}},
      {"_fused.resize_crop_mirror_normalize",
       {OperatorDef("resize").Name("rs").Arg("resize_x", 4.0).Arg("resize_y", 4.0),
        OperatorDef("crop_mirror_normalize").Name("cmn")}},
      {"rotate", {op("rotate").Arg("angle", 10.0)}},
      {"sequence_rearrange", {op("sequence_rearrange").Arg("new_order", std::vector<int64_t>{0})}},
      {"warp_affine", {op("warp_affine").Arg("matrix", std::vector<double>{1, 0, 0, 0, 1, 0})}},
      {"testing.layout_required", {op("testing.layout_required")}},
      {"testing.layout_volumes", {op("testing.layout_volumes")}},
  };
}

// The name the failing node has: the operator's, or the fused chain's ("rs+cmn").
std::string NodeName(const std::vector<OperatorDef>& chain) {
  std::string name;
  for (const auto& d : chain) name += (name.empty() ? "" : "+") + d.name;
  return name;
}

// Samples of `shape` and `dtype` (bytes 0, 1, 2, ...), fed with `layout` through external_source
// into `chain`; returns the chain's output.
Batch RunChain(const std::vector<OperatorDef>& chain, const std::vector<TensorShape>& shapes, const std::string& layout,
               DType dtype = DType::kUInt8) {
  Pipeline p(Options(static_cast<int>(shapes.size())));
  std::string edge = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  for (OperatorDef def : chain) {
    const int inputs = OperatorRegistry::Get().GetSchema(def.op).min_inputs();
    for (int k = 0; k < inputs; ++k) def.Input(edge);
    edge = p.AddOperator(def)[0];
  }
  p.SetOutputs({edge});
  p.Build();
  std::vector<std::vector<uint8_t>> data;
  std::vector<Pipeline::ExternalSample> batch;
  for (const TensorShape& s : shapes) {
    data.emplace_back(static_cast<size_t>(s.num_elements()) * SizeOf(dtype));
    std::iota(data.back().begin(), data.back().end(), uint8_t{0});
  }
  for (size_t i = 0; i < shapes.size(); ++i) batch.push_back({data[i].data(), shapes[i], dtype});
  p.FeedInput("src", batch, layout);
  return p.Run()[0];
}

Batch RunOne(const OperatorDef& def, const std::vector<TensorShape>& shapes, const std::string& layout) {
  return RunChain({def}, shapes, layout);
}

// The error running `chain` throws; fails the test if it runs.
Error RunError(const std::vector<OperatorDef>& chain, const std::vector<TensorShape>& shapes, const std::string& layout,
               DType dtype = DType::kUInt8) {
  try {
    RunChain(chain, shapes, layout, dtype);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error for layout '" << layout << "'";
  return Error("");
}

std::string ErrorMessage(const OperatorDef& def, const std::vector<TensorShape>& shapes, const std::string& layout) {
  return RunError({def}, shapes, layout).message();
}

// A layout of three letters that `layouts` does not accept.
std::string WrongLayout(const InputLayouts& layouts) {
  for (const std::string candidate : {"CHW", "HWC", "FHW", "XYZ"})
    if (!layouts.Accepts(candidate)) return candidate;
  return "";
}

TEST(SchemaLayouts, EveryOperatorThatDeclaresLayoutsHasACallHere) {
  const auto calls = Calls();
  int declared = 0;
  for (const auto& name : OperatorRegistry::Get().Names()) {
    const auto& inputs = OperatorRegistry::Get().GetSchema(name).inputs();
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!inputs[k].layouts.declared()) continue;
      ++declared;
      EXPECT_EQ(k, 0u) << name << ": the calls below feed a wrong layout to input 0 only";
      EXPECT_TRUE(calls.count(name)) << name << " declares input layouts: add a call to Calls()";
    }
  }
  EXPECT_EQ(declared, static_cast<int>(calls.size()));
}

TEST(SchemaLayouts, AWrongLayoutIsRejectedWithTheOneMessage) {
  for (const auto& [name, chain] : Calls()) {
    const InputSchema& in = OperatorRegistry::Get().GetSchema(name).inputs()[0];
    const std::string wrong = WrongLayout(in.layouts);
    ASSERT_FALSE(wrong.empty()) << name;
    const DType dtype = in.dtypes.empty() ? DType::kUInt8 : in.dtypes[0];
    const Error e = RunError(chain, {TensorShape{4, 4, 3}, TensorShape{4, 4, 3}}, wrong, dtype);
    EXPECT_EQ(e.message(), "input 0 ('" + in.name + "') must have layout " + in.layouts.Text() + ", got '" + wrong + "'")
        << name;
    EXPECT_EQ(e.context().op, NodeName(chain)) << name;
    EXPECT_EQ(e.context().sample, -1) << name;  // about the batch, not one sample
  }
}

TEST(SchemaLayouts, SamplesThatDoNotFitTheLayoutAreRejectedWithTheOneMessage) {
  for (const auto& [name, chain] : Calls()) {
    const InputSchema& in = OperatorRegistry::Get().GetSchema(name).inputs()[0];
    const auto accepted = in.layouts.Accepted();
    const std::string layout = accepted.empty() ? "FHW" : accepted[0];  // AnySequence lists none
    std::vector<int64_t> dims(layout.size() + 1, 2);
    const TensorShape shape(dims);
    const DType dtype = in.dtypes.empty() ? DType::kUInt8 : in.dtypes[0];
    const Error e = RunError(chain, {shape, shape}, layout, dtype);
    EXPECT_EQ(e.message(), "input 0 ('" + in.name + "') has a sample of shape " + shape.ToString() +
                               ", which does not match layout '" + layout + "'")
        << name;
    EXPECT_EQ(e.context().op, NodeName(chain)) << name;
    EXPECT_EQ(e.context().sample, 0) << name;
    EXPECT_NE(std::string(e.what()).find("(sample 0 of batch 0"), std::string::npos) << e.what();
  }
}

TEST(SchemaLayouts, MessagesListTheAcceptedLayouts) {
  EXPECT_EQ(ErrorMessage(OperatorDef("resize").Arg("resize_x", 4.0), {TensorShape{3, 4, 4}}, "WHC"),
            "input 0 ('images') must have layout HWC or CHW (or FHWC, FCHW, DHWC, CDHW, FDHWC, FCDHW), got 'WHC'");
  EXPECT_EQ(ErrorMessage(OperatorDef("resize").Arg("resize_x", 4.0), {TensorShape{2, 3, 4, 4}}, "CFHW"),
            "input 0 ('images') must have layout HWC or CHW (or FHWC, FCHW, DHWC, CDHW, FDHWC, FCDHW), got 'CFHW'");
  EXPECT_EQ(ErrorMessage(OperatorDef("equalize"), {TensorShape{2, 2, 2}}, "XYZ"),
            "input 0 ('images') must have layout HWC, CHW or HW (or FHWC, FCHW, FHW), got 'XYZ'");
  EXPECT_EQ(ErrorMessage(OperatorDef("color_space_conversion").Arg("image_type", std::string("RGB")).Arg("output_type", std::string("BGR")),
                         {TensorShape{3, 4, 4}}, "CHW"),
            "input 0 ('images') must have layout HWC (or FHWC, DHWC, FDHWC), got 'CHW'");
  EXPECT_EQ(ErrorMessage(OperatorDef("element_extract").Arg("element_map", std::vector<int64_t>{0}), {TensorShape{3, 2}}, "HW"),
            "input 0 ('input') must have layout F... (a sequence), got 'HW'");
  EXPECT_EQ(ErrorMessage(OperatorDef("testing.layout_volumes"), {TensorShape{2, 3, 4, 4}}, "DCHW"),
            "input 0 ('volumes') must have layout CHW (or FCHW, CDHW, FCDHW), got 'DCHW'");
}

TEST(SchemaLayouts, SequencesAreAcceptedWhereDeclared) {
  // equalize takes FHWC: each frame equalized as the HWC image it is.
  const TensorShape frame{4, 5, 3};
  const Batch seq = RunOne(OperatorDef("equalize"), {TensorShape{2, 4, 5, 3}}, "FHWC");
  const Batch one = RunOne(OperatorDef("equalize"), {frame, frame}, "HWC");  // the frames, as RunChain fills them
  EXPECT_EQ(seq.layout(), "FHWC");
  const auto s = SampleData<uint8_t>(seq, 0);
  const auto f = SampleData<uint8_t>(one, 0);
  std::vector<uint8_t> first(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(f.size()));
  EXPECT_EQ(first, f);
  // color_space_conversion takes sequences and volumes of channel-last images, converted as pixels.
  const OperatorDef gray = OperatorDef("color_space_conversion").Arg("image_type", std::string("RGB")).Arg("output_type", std::string("GRAY"));
  const auto flat = SampleData<uint8_t>(RunOne(gray, {TensorShape{2 * 3 * 4, 5, 3}}, "HWC"), 0);
  for (const auto& [layout, shape] : std::vector<std::pair<std::string, TensorShape>>{
           {"FHWC", TensorShape{6, 4, 5, 3}}, {"DHWC", TensorShape{6, 4, 5, 3}}, {"FDHWC", TensorShape{2, 3, 4, 5, 3}}}) {
    const Batch out = RunOne(gray, {shape}, layout);
    EXPECT_EQ(out.layout(), layout);
    EXPECT_EQ(SampleData<uint8_t>(out, 0), flat) << layout;
  }
  // resize takes DHWC volumes (resampled in depth too) and sequences of them.
  const OperatorDef rs = OperatorDef("resize").Arg("size", std::vector<double>{2, 3, 4});
  EXPECT_EQ(RunOne(rs, {TensorShape{4, 5, 6, 1}}, "DHWC").shape(0), (TensorShape{2, 3, 4, 1}));
  EXPECT_EQ(RunOne(rs, {TensorShape{2, 4, 5, 6, 1}}, "FDHWC").shape(0), (TensorShape{2, 2, 3, 4, 1}));
  // ... and their channel-first forms (resized channel by channel), keeping the layout.
  const Batch cdhw = RunOne(rs, {TensorShape{3, 4, 5, 6}}, "CDHW");
  EXPECT_EQ(cdhw.layout(), "CDHW");
  EXPECT_EQ(cdhw.shape(0), (TensorShape{3, 2, 3, 4}));
  EXPECT_EQ(RunOne(rs, {TensorShape{2, 3, 4, 5, 6}}, "FCDHW").shape(0), (TensorShape{2, 3, 2, 3, 4}));
  const OperatorDef rs2 = OperatorDef("resize").Arg("size", std::vector<double>{3, 4});
  const Batch chw = RunOne(rs2, {TensorShape{5, 6, 7}}, "CHW");
  EXPECT_EQ(chw.layout(), "CHW");
  EXPECT_EQ(chw.shape(0), (TensorShape{5, 3, 4}));
  EXPECT_EQ(RunOne(rs2, {TensorShape{2, 5, 6, 7}}, "FCHW").shape(0), (TensorShape{2, 5, 3, 4}));
  // The fused resize -> crop_mirror_normalize takes them too (crop_mirror_normalize reads CHW/CDHW).
  const std::vector<OperatorDef> fused = Calls().at("_fused.resize_crop_mirror_normalize");
  const Batch fused_chw = RunChain(fused, {TensorShape{3, 6, 7}}, "CHW");
  EXPECT_EQ(fused_chw.layout(), "CHW");
  EXPECT_EQ(fused_chw.shape(0), (TensorShape{3, 4, 4}));
  const Batch fused_cdhw = RunChain(fused, {TensorShape{3, 6, 4, 4}}, "CDHW");
  EXPECT_EQ(fused_cdhw.layout(), "CDHW");
  EXPECT_EQ(fused_cdhw.shape(0), (TensorShape{3, 6, 4, 4}));
  // Volumes and sequences of them, where the base layout has its channels first.
  for (const std::string layout : {"CHW", "FCHW", "CDHW", "FCDHW"}) {
    std::vector<int64_t> dims(layout.size(), 2);
    EXPECT_EQ(RunOne(OperatorDef("testing.layout_volumes"), {TensorShape(dims)}, layout).layout(), layout);
  }
}

TEST(SchemaLayouts, SequencesAreRejectedWhereNotDeclared) {
  EXPECT_EQ(ErrorMessage(OperatorDef("jitter"), {TensorShape{2, 4, 4, 3}}, "FHWC"),
            "input 0 ('images') must have layout HWC, got 'FHWC'");
  EXPECT_EQ(ErrorMessage(OperatorDef("jpeg_compression_distortion"), {TensorShape{2, 4, 4, 3}}, "DHWC"),
            "input 0 ('input') must have layout HWC (or FHWC), got 'DHWC'");
  EXPECT_EQ(ErrorMessage(OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{4}), {TensorShape{2, 3, 4, 4}}, "CDHW"),
            "input 0 ('images') must have layout HWC or CHW (or FHWC, FCHW), got 'CDHW'");
  // Volumes only where declared: equalize takes sequences, not volumes.
  EXPECT_EQ(ErrorMessage(OperatorDef("equalize"), {TensorShape{2, 4, 4, 3}}, "DHWC"),
            "input 0 ('images') must have layout HWC, CHW or HW (or FHWC, FCHW, FHW), got 'DHWC'");
}

TEST(SchemaLayouts, AnInputWithoutALayoutIsReadAsBefore) {
  // Read as the first base layout of the samples' number of dimensions.
  EXPECT_EQ(RunOne(OperatorDef("brightness_contrast"), {TensorShape{4, 4, 3}}, "").layout(), "HWC");
  EXPECT_EQ(RunOne(OperatorDef("resize").Arg("resize_x", 2.0).Arg("resize_y", 2.0), {TensorShape{4, 4, 3}}, "").shape(0),
            (TensorShape{2, 2, 3}));
  const Batch rrc = RunOne(OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{2}), {TensorShape{4, 4, 3}}, "");
  EXPECT_EQ(rrc.layout(), "HWC");
  EXPECT_EQ(rrc.shape(0), (TensorShape{2, 2, 3}));
  EXPECT_EQ(RunOne(OperatorDef("gaussian_blur").Arg("sigma", 1.0), {TensorShape{4, 4, 3}}, "").layout(), "HWC");
  EXPECT_EQ(RunOne(OperatorDef("gaussian_blur").Arg("sigma", 1.0), {TensorShape{4, 4}}, "").layout(), "HW");
  EXPECT_EQ(RunOne(OperatorDef("grid_mask"), {TensorShape{4, 4}}, "").layout(), "HW");
  // equalize reads 2-D samples as HW and 3-D ones as HWC (every channel on its own), keeping no layout.
  const Batch hw = RunOne(OperatorDef("equalize"), {TensorShape{4, 6}}, "");
  EXPECT_EQ(hw.layout(), "");
  EXPECT_EQ(SampleData<uint8_t>(hw, 0), SampleData<uint8_t>(RunOne(OperatorDef("equalize"), {TensorShape{4, 6}}, "HW"), 0));
  EXPECT_EQ(SampleData<uint8_t>(RunOne(OperatorDef("equalize"), {TensorShape{4, 6, 3}}, ""), 0),
            SampleData<uint8_t>(RunOne(OperatorDef("equalize"), {TensorShape{4, 6, 3}}, "HWC"), 0));
  // element_extract takes an input without a layout of any number of dimensions.
  EXPECT_EQ(RunOne(OperatorDef("element_extract").Arg("element_map", std::vector<int64_t>{1}), {TensorShape{3, 2}}, "").shape(0),
            (TensorShape{2}));

  // No base layout has the samples' number of dimensions; the sequence forms are never guessed.
  EXPECT_EQ(ErrorMessage(OperatorDef("resize").Arg("resize_x", 4.0), {TensorShape{4, 4}}, ""),
            "input 0 ('images') has a sample of shape " + TensorShape({4, 4}).ToString() +
                ", which does not match layout HWC (the input has no layout)");
  EXPECT_EQ(ErrorMessage(OperatorDef("equalize"), {TensorShape{2, 4, 4, 3}}, ""),
            "input 0 ('images') has a sample of shape " + TensorShape({2, 4, 4, 3}).ToString() +
                ", which does not match layout HWC or HW (the input has no layout)");
  // An input that must have one.
  EXPECT_EQ(ErrorMessage(OperatorDef("testing.layout_required"), {TensorShape{4, 4, 3}}, ""),
            "input 0 ('images') must have layout HWC, got none");
  EXPECT_EQ(RunOne(OperatorDef("testing.layout_required"), {TensorShape{4, 4, 3}}, "HWC").layout(), "HWC");
}

TEST(SchemaLayouts, TheDeclarationListsItsForms) {
  const InputLayouts images = InputLayouts{"HWC", "CHW", "HW"}.AllowSequence().AllowVolume();
  const std::vector<std::string> all = {"HWC", "CHW", "HW", "FHWC", "FCHW", "FHW",
                                        "DHWC", "CDHW", "DHW", "FDHWC", "FCDHW", "FDHW"};
  EXPECT_EQ(images.Accepted(), all);
  EXPECT_EQ(images.Resolve("", 3), "HWC");
  EXPECT_EQ(images.Resolve("", 2), "HW");
  EXPECT_EQ(images.Resolve("", 4), std::nullopt);
  EXPECT_EQ(images.Resolve("FCHW", 4), "FCHW");
  EXPECT_EQ(images.DocText(),
            "HWC, CHW or HW (or FHWC, FCHW, FHW, DHWC, CDHW, DHW, FDHWC, FCDHW, FDHW); none: read as HWC or HW by the "
            "number of dimensions");
  EXPECT_EQ(InputLayouts{"HWC"}.DocText(), "HWC; none: read as HWC");
  EXPECT_EQ(InputLayouts{"HWC"}.RequireLayout().DocText(), "HWC; none: an error");
  EXPECT_EQ(InputLayouts{"HWC"}.RequireLayout().Resolve("", 3), std::nullopt);
  EXPECT_EQ(InputLayouts::AnySequence().DocText(), "F... (a sequence); none: any number of dimensions");
  EXPECT_TRUE(InputLayouts::AnySequence().Accepts("FXY"));
  EXPECT_FALSE(InputLayouts::AnySequence().Accepts("XF"));
  EXPECT_FALSE(InputLayouts().declared());
  // Declarations that name no layout, or a form that cannot be built, fail at registration.
  EXPECT_THROW(InputLayouts{"hwc"}, Error);
  EXPECT_THROW(InputLayouts{"HWH"}, Error);
  EXPECT_THROW(InputLayouts{"FHWC"}.AllowSequence(), Error);
  EXPECT_THROW(InputLayouts{"XY"}.AllowVolume(), Error);
}

TEST(SchemaLayouts, TheDocsShowTheLayoutsPerInput) {
  const std::string doc = OperatorRegistry::Get().GetSchema("equalize").FullDoc();
  EXPECT_NE(doc.find("  images: uint8 images. Layout: HWC, CHW or HW (or FHWC, FCHW, FHW); none: read as HWC or HW by "
                     "the number of dimensions.\n"),
            std::string::npos)
      << doc;
  const OperatorInfo info = GetOperatorInfo("filter");
  const std::vector<std::string> filter_layouts = {
      "HWC, CHW or HW (or FHWC, FCHW, FHW); none: read as HWC or HW by the number of dimensions", "", ""};
  EXPECT_EQ(info.input_layouts, filter_layouts);
}

}  // namespace
}  // namespace sluice
