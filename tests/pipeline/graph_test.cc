#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include "operators/operator.h"
#include "operators/registry.h"
#include "pipeline/graph.h"

namespace sluice {
namespace {

// Expects `fn` to throw sluice::Error whose message contains every fragment.
template <typename Fn>
void ExpectError(Fn&& fn, std::vector<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << fragments[0] << "'";
  } catch (const Error& e) {
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

PipelineOptions Opts() {
  PipelineOptions o;
  o.batch_size = 4;
  o.num_threads = 1;
  o.seed = 1;
  return o;
}

TEST(Graph, UnknownOperatorSuggestsTheClosestName) {
  Pipeline p(Opts());
  ExpectError([&] { p.AddOperator(OperatorDef("random.coinflip")); }, {"unknown operator 'random.coinflip'", "did you mean 'random.coin_flip'"});
}

TEST(Graph, UnknownArgumentSuggestsTheClosestName) {
  Pipeline p(Opts());
  ExpectError([&] { p.AddOperator(OperatorDef("random.coin_flip").Arg("probabilty", 0.3)); },
              {"unknown argument 'probabilty'", "did you mean 'probability'", "random.coin_flip"});
}

TEST(Graph, WrongArgumentTypeNamesTheArgument) {
  Pipeline p(Opts());
  ExpectError([&] { p.AddOperator(OperatorDef("random.coin_flip").Arg("probability", std::string("high"))); },
              {"argument 'probability'", "expected float", "'high'"});
  ExpectError([&] { p.AddOperator(OperatorDef("testing.counter").Arg("shape", 1.5)); }, {"argument 'shape'"});
  ExpectError([&] { p.AddOperator(OperatorDef("random.uniform").Arg("dtype", std::string("complex"))); },
              {"argument 'dtype'", "unknown dtype 'complex'"});
}

TEST(Graph, PerSampleInputOnlyWhereTheSchemaAllowsIt) {
  Pipeline p(Opts());
  auto flip = p.AddOperator(OperatorDef("random.coin_flip"))[0];
  ExpectError([&] { p.AddOperator(OperatorDef("testing.sleep").Input(flip).ArgInput("ms", flip)); },
              {"argument 'ms'", "cannot be given per sample"});
}

TEST(Graph, WrongNumberOfInputs) {
  Pipeline p(Opts());
  ExpectError([&] { p.AddOperator(OperatorDef("copy")); }, {"takes 1 input(s), got 0"});
}

TEST(Graph, MissingInputEdge) {
  Pipeline p(Opts());
  p.AddOperator(OperatorDef("copy").Input("nothing").Output("out"));
  p.SetOutputs({"out"});
  ExpectError([&] { p.Build(); }, {"input 'nothing' is not produced by any operator", "copy#0"});
}

TEST(Graph, OutputThatNothingProduces) {
  Pipeline p(Opts());
  p.AddOperator(OperatorDef("testing.counter").Output("c"));
  p.SetOutputs({"c", "labels"});
  ExpectError([&] { p.Build(); }, {"pipeline output 'labels' is not produced by any operator"});
}

TEST(Graph, Cycles) {
  Pipeline p(Opts());
  p.AddOperator(OperatorDef("copy").Name("a").Input("b_out").Output("a_out"));
  p.AddOperator(OperatorDef("copy").Name("b").Input("a_out").Output("b_out"));
  p.SetOutputs({"b_out"});
  ExpectError([&] { p.Build(); }, {"cycle", "'a'", "'b'"});
}

TEST(Graph, DuplicateNamesAndEdges) {
  Pipeline p(Opts());
  p.AddOperator(OperatorDef("testing.counter").Name("x").Output("e"));
  p.AddOperator(OperatorDef("testing.counter").Name("x").Output("f"));
  p.SetOutputs({"e"});
  ExpectError([&] { p.Build(); }, {"two operators are named 'x'"});
  Pipeline q(Opts());
  q.AddOperator(OperatorDef("testing.counter").Output("e"));
  q.AddOperator(OperatorDef("testing.counter").Output("e"));
  q.SetOutputs({"e"});
  ExpectError([&] { q.Build(); }, {"edge 'e' is produced by both"});
}

// A test-only operator with a GPU backend, to check device rules without CUDA.
class Passthrough : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override { return {}; }
  void Run(Workspace&) override {}
};

TEST(Graph, CpuOperatorCannotTakeGpuData) {
  static bool registered = [] {
    OperatorRegistry::Get().Register(OpSchema("testing.gpu_identity")
                                         .Doc("test")
                                         .Input("in", "x")
                                         .Output("out", "x")
                                         .Backends({"cpu", "gpu"})
                                         .Factory("cpu", [](const OpSpec& s) { return std::make_unique<Passthrough>(s); })
                                         .Factory("gpu", [](const OpSpec& s) { return std::make_unique<Passthrough>(s); }));
    return true;
  }();
  (void)registered;
  std::vector<OpSpec> specs;
  auto add = [&](OperatorDef d) {
    OpSpec s;
    s.op = d.op;
    s.name = d.name;
    s.device = d.device;
    s.inputs = d.inputs;
    s.outputs = d.outputs;
    specs.push_back(ValidateSpec(s));
  };
  add(OperatorDef("testing.counter").Name("src").Output("c"));
  add(OperatorDef("testing.gpu_identity", "gpu").Name("g").Input("c").Output("g_out"));
  add(OperatorDef("copy").Name("back_on_cpu").Input("g_out").Output("out"));
  ExpectError([&] { Graph(specs, {"out"}); }, {"back_on_cpu", "a CPU operator cannot take GPU data", "'g_out'"});
  // Stages order the nodes: cpu first, then gpu.
  Graph ok(specs, {"g_out"});
  ASSERT_EQ(ok.nodes().size(), 2u);
  EXPECT_EQ(ok.nodes()[0].stage, Stage::kCpu);
  EXPECT_EQ(ok.nodes()[1].stage, Stage::kGpu);
}

TEST(Graph, DeviceWithoutBackendIsAClearError) {
  Pipeline p(Opts());
  ExpectError([&] { p.AddOperator(OperatorDef("copy", "tpu").Input("x")); }, {"unknown device 'tpu'"});
  // ValidateSpec's strict mode (the graph passes' own checks) throws at once.
  OpSpec spec;
  spec.op = "rotate";
  spec.name = "rotate#0";
  spec.device = "gpu";
  spec.inputs = {"x"};
  spec.args["angle"] = 10.0;
  ExpectError([&] { ValidateSpec(spec); }, {"has no 'gpu' backend"});
  EXPECT_TRUE(LacksBackend(ValidateSpec(spec, MissingBackend::kDeferToBuild)));
}

// Operators without a GPU backend but with a CPU one: the calls pass (every other check as the CPU
// operator), and Build names each of them at once, with its CPU alternative.
TEST(Graph, MissingGpuBackendsAreAllNamedAtBuild) {
  Pipeline p(Opts());
  const auto src = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  const auto a = p.AddOperator(OperatorDef("rotate", "gpu").Input(src).Arg("angle", 10.0))[0];
  const auto b = p.AddOperator(OperatorDef("warp_affine", "gpu").Name("warp").Input(a).Arg(
      "matrix", std::vector<double>{1, 0, 0, 0, 1, 0}))[0];
  // The other checks still run at the call.
  ExpectError([&] { p.AddOperator(OperatorDef("rotate", "gpu").Input(src).Arg("angel", 10.0)); },
              {"unknown argument 'angel'", "did you mean 'angle'"});
  p.SetOutputs({b});
  ExpectError([&] { p.Build(); }, {"2 operators have no backend for the device asked", "'rotate#0' (rotate, device='gpu')",
                                   "CPU alternative: rotate with device='cpu'", "'warp' (warp_affine, device='gpu')",
                                   "CPU alternative: warp_affine with device='cpu'"});
}

TEST(Graph, UnusedBranchesArePrunedUnlessPreserved) {
  std::vector<OpSpec> specs;
  auto add = [&](OperatorDef d) {
    OpSpec s;
    s.op = d.op;
    s.name = d.name;
    s.inputs = d.inputs;
    s.outputs = d.outputs;
    s.args = d.args;
    specs.push_back(ValidateSpec(s));
  };
  add(OperatorDef("testing.counter").Name("src").Output("c"));
  add(OperatorDef("copy").Name("used").Input("c").Output("u"));
  add(OperatorDef("copy").Name("unused").Input("c").Output("x"));
  add(OperatorDef("copy").Name("kept").Input("c").Output("k").Arg("preserve", true));
  Graph g(specs, {"u"});
  std::vector<std::string> names;
  for (const auto& n : g.nodes()) names.push_back(n.spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"src", "used", "kept"}));
}

TEST(Graph, NameArgumentSetsTheInstanceName) {
  Pipeline p(Opts());
  auto out = p.AddOperator(OperatorDef("testing.counter").Arg("name", std::string("Reader")));
  EXPECT_EQ(out[0], "Reader[0]");
}

TEST(Schema, IntrospectionCoversEveryOperator) {
  for (const auto& name : ListOperators()) {
    OperatorInfo info = GetOperatorInfo(name);
    EXPECT_FALSE(info.doc.empty()) << name;
    bool has_seed = false;
    for (const auto& a : info.arguments) has_seed |= a.name == "seed";
    EXPECT_TRUE(has_seed) << name;
  }
  OperatorInfo coin = GetOperatorInfo("random.coin_flip");
  EXPECT_TRUE(coin.is_random);
  EXPECT_NE(coin.doc.find("probability"), std::string::npos);
  EXPECT_THROW(GetOperatorInfo("no.such.op"), Error);
}

}  // namespace
}  // namespace sluice
