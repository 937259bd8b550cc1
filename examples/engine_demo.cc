// The engine demo: a pipeline of the engine's own operators (counter -> add per-sample random
// value -> copy) run for a few seconds, printing batches/s, samples/s and per-operator timings.
#include <sluice/pipeline.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int batch = argc > 1 ? std::atoi(argv[1]) : 256;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 2.0;
  try {
    sluice::PipelineOptions o;
    o.batch_size = batch;
    o.num_threads = threads;
    o.seed = 1;
    sluice::Pipeline p(o);
    auto c = p.AddOperator(sluice::OperatorDef("testing.counter").Arg("shape", std::vector<int64_t>{64}))[0];
    auto u = p.AddOperator(sluice::OperatorDef("random.uniform"))[0];
    auto a = p.AddOperator(sluice::OperatorDef("testing.add_constant").Input(c).ArgInput("value", u))[0];
    auto out = p.AddOperator(sluice::OperatorDef("copy").Input(a))[0];
    p.SetOutputs({out});
    p.Build();
    using Clock = std::chrono::steady_clock;
    p.Run();  // warm-up
    const auto t0 = Clock::now();
    int64_t n = 0;
    while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
      p.Run();
      ++n;
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("engine demo: batch %d, %d threads: %.0f batches/s, %.0f samples/s, %.1f us/batch\n", batch, threads,
                n / s, n * batch / s, 1e6 * s / n);
    for (const auto& op : p.GetExecutorStatistics().operators)
      std::printf("  %-22s %8.1f us/batch\n", op.name.c_str(), 1000 * op.mean_batch_ms());
    return 0;
  } catch (const sluice::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
