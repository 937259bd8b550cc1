// Embedding Sluice in a C++ application through the stable API (include/sluice/pipeline.h).
//
// Builds a small pipeline -- a source, a per-sample random argument, an operator consuming both --
// runs a few batches with each of the two run APIs, reads the outputs, prints statistics, and
// saves a checkpoint that a second pipeline resumes from.
// With a folder of JPEGs as argv[1] it also runs the image pipeline (reader -> random-crop decode
// -> resize -> crop-mirror-normalize) when those operators are registered.
#include <sluice/pipeline.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

int main(int argc, char** argv) {
  try {
    sluice::PipelineOptions opts;
    opts.batch_size = 8;
    opts.num_threads = 2;
    opts.seed = 42;
    opts.enable_memory_stats = true;

    sluice::Pipeline pipe(opts);
    auto values = pipe.AddOperator(sluice::OperatorDef("testing.counter").Name("source"))[0];
    auto offset = pipe.AddOperator(sluice::OperatorDef("random.uniform")
                                       .Arg("range", std::vector<double>{0.0, 100.0})
                                       .Arg("dtype", std::string("int64")))[0];
    auto shifted = pipe.AddOperator(sluice::OperatorDef("testing.add_constant").Input(values).ArgInput("value", offset))[0];
    pipe.SetOutputs({values, offset, shifted});
    pipe.Build();

    // run(): outputs stay valid while the Batch objects exist.
    for (int it = 0; it < 3; ++it) {
      std::vector<sluice::Batch> out = pipe.Run();
      for (int i = 0; i < out[0].num_samples(); ++i) {
        auto v = *static_cast<const int64_t*>(out[0].data(i));
        auto o = *static_cast<const int64_t*>(out[1].data(i));
        auto s = *static_cast<const int64_t*>(out[2].data(i));
        if (s != v + o) {
          std::fprintf(stderr, "mismatch at batch %d sample %d: %lld + %lld != %lld\n", it, i, (long long)v,
                       (long long)o, (long long)s);
          return 1;
        }
      }
      std::printf("batch %d: sample 0 = %lld (+%lld) from %s\n", it, (long long)*static_cast<const int64_t*>(out[2].data(0)),
                  (long long)*static_cast<const int64_t*>(out[1].data(0)), out[0].source(0).ToString().c_str());
    }

    // The scheduled API on a second pipeline: explicit buffer lifetime.
    sluice::Pipeline sched(opts);
    auto c = sched.AddOperator(sluice::OperatorDef("testing.counter"))[0];
    sched.SetOutputs({c});
    sched.Build();
    sched.ScheduleRun();
    sched.ScheduleRun();
    for (int it = 0; it < 4; ++it) {
      auto out = sched.ShareOutputs();
      std::printf("scheduled batch %d starts at %lld\n", it, (long long)*static_cast<const int64_t*>(out[0].data(0)));
      sched.ReleaseOutputs();
      sched.ScheduleRun();
    }

    sluice::ExecutorStatistics st = pipe.GetExecutorStatistics();
    for (const auto& op : st.operators) {
      std::printf("%-24s %6lld batches  %8.3f ms/batch  output 0: %zu bytes used, %zu reserved\n", op.name.c_str(),
                  (long long)op.batches, op.mean_batch_ms(), op.real_memory_size.empty() ? 0 : op.real_memory_size[0],
                  op.reserved_memory_size.empty() ? 0 : op.reserved_memory_size[0]);
    }

    // Checkpoints: a pipeline built from one continues where the saved pipeline stood.
    auto make_resumable = [&](std::optional<std::string> checkpoint) {
      sluice::PipelineOptions o = opts;
      o.enable_checkpointing = true;
      o.checkpoint = std::move(checkpoint);
      auto p = std::make_unique<sluice::Pipeline>(o);
      auto r = p->AddOperator(sluice::OperatorDef("readers.file").Name("Reader").Arg(
          "files", std::vector<std::string>{argv[0], argv[0], argv[0]}))[1];
      auto u = p->AddOperator(sluice::OperatorDef("random.uniform"))[0];
      p->SetOutputs({r, u});
      p->Build();
      return p;
    };
    auto saved = make_resumable(std::nullopt);
    saved->Run();
    const std::string checkpoint = saved->Checkpoint();
    const float expected = *static_cast<const float*>(saved->Run()[1].data(0));
    const float resumed = *static_cast<const float*>(make_resumable(checkpoint)->Run()[1].data(0));
    if (resumed != expected) {
      std::fprintf(stderr, "the resumed pipeline differs: %f != %f\n", resumed, expected);
      return 1;
    }
    std::printf("resumed from a %zu-byte checkpoint: next uniform value %f, as saved\n", checkpoint.size(), resumed);

    // Errors carry the operator, argument and sample source.
    try {
      sluice::Pipeline bad(opts);
      bad.AddOperator(sluice::OperatorDef("random.coin_flip").Arg("probabilty", 0.5));
    } catch (const sluice::Error& e) {
      std::printf("expected error: %s\n", e.what());
    }
    std::printf("cpp_api_example: OK\n");
    return 0;
  } catch (const sluice::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
