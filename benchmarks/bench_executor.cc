// Per-batch overhead of the executor with trivial operators (the scheduling cost that every real
// pipeline pays on top of its kernels).
#include <benchmark/benchmark.h>
#include <sluice/pipeline.h>

namespace {

void BM_ExecutorOverhead(benchmark::State& state) {
  sluice::PipelineOptions o;
  o.batch_size = static_cast<int>(state.range(0));
  o.num_threads = static_cast<int>(state.range(1));
  o.seed = 1;
  sluice::Pipeline p(o);
  auto c = p.AddOperator(sluice::OperatorDef("testing.counter"))[0];
  auto a = p.AddOperator(sluice::OperatorDef("testing.add_constant").Input(c).Arg("value", 1.0))[0];
  auto out = p.AddOperator(sluice::OperatorDef("copy").Input(a))[0];
  p.SetOutputs({out});
  p.Build();
  p.Run();
  for (auto _ : state) {
    auto b = p.Run();
    benchmark::DoNotOptimize(b[0].data(0));
  }
  state.counters["us_per_batch"] = benchmark::Counter(static_cast<double>(state.iterations()) * 1e-6,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(state.iterations() * o.batch_size);
}
BENCHMARK(BM_ExecutorOverhead)->Args({256, 2})->Args({256, 1})->Args({32, 2})->UseRealTime()->MinTime(1.0);

// The same with exec_async=false: the cost without the producer thread hand-off.
void BM_ExecutorOverheadSync(benchmark::State& state) {
  sluice::PipelineOptions o;
  o.batch_size = static_cast<int>(state.range(0));
  o.num_threads = 2;
  o.exec_async = false;
  o.seed = 1;
  sluice::Pipeline p(o);
  auto c = p.AddOperator(sluice::OperatorDef("testing.counter"))[0];
  auto a = p.AddOperator(sluice::OperatorDef("testing.add_constant").Input(c).Arg("value", 1.0))[0];
  auto out = p.AddOperator(sluice::OperatorDef("copy").Input(a))[0];
  p.SetOutputs({out});
  p.Build();
  for (auto _ : state) {
    auto b = p.Run();
    benchmark::DoNotOptimize(b[0].data(0));
  }
  state.SetItemsProcessed(state.iterations() * o.batch_size);
}
BENCHMARK(BM_ExecutorOverheadSync)->Arg(256)->UseRealTime()->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
