// End-to-end images/s of the ImageNet training and validation pipelines, CPU-only against the GPU
// backends (decode on the CPU then copy to the GPU, or decode in the mixed stage), with the
// executor's per-operator statistics.
//
//   bench_gpu_pipeline [file_root] [batch_size] [num_threads] [iterations]
// file_root holds one subfolder per class (e.g. sample_data/train). Without a CUDA device only the
// CPU pipeline runs.
#include <sluice/pipeline.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda/device.h"

using namespace sluice;

namespace {

enum class Kind { kCpu, kCpuDecodeThenCopy, kMixedDecode };
const char* Name(Kind k) {
  switch (k) {
    case Kind::kCpu: return "cpu only";
    case Kind::kCpuDecodeThenCopy: return "decode(cpu) -> copy(mixed) -> resize(gpu) -> cmn(gpu)";
    case Kind::kMixedDecode: return "decode(mixed) -> resize(gpu) -> cmn(gpu)";
  }
  return "";
}

struct Result {
  double images_per_s = 0;
  ExecutorStatistics stats;
};

Result RunOne(Kind kind, bool train, const std::string& root, int batch, int threads, int iters) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = 1;
  o.device_id = kind == Kind::kCpu ? -1 : 0;
  Pipeline p(o);
  auto r = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("file_root", root).Arg("random_shuffle", train));
  const std::string dec_dev = kind == Kind::kMixedDecode ? "mixed" : "cpu";
  const std::string dev = kind == Kind::kCpu ? "cpu" : "gpu";
  // The scaled-decode hint the graph pass gives a CPU decoder feeding resize, given to every
  // variant so that they all decode the same pixels (the pass does not look through copy or at
  // mixed decoders).
  OperatorDef dec(train ? "decoders.image_random_crop" : "decoders.image", dec_dev);
  dec.Input(r[0]).Arg("decode_size_hint", train ? std::vector<int64_t>{224, 224} : std::vector<int64_t>{256, 256});
  std::string img = p.AddOperator(dec)[0];
  if (kind == Kind::kCpuDecodeThenCopy) img = p.AddOperator(OperatorDef("copy", "mixed").Input(img))[0];
  OperatorDef resize("resize", dev);
  resize.Input(img);
  if (train) resize.Arg("size", std::vector<double>{224, 224});
  else resize.Arg("resize_shorter", 256.0);
  img = p.AddOperator(resize)[0];
  OperatorDef cmn("crop_mirror_normalize", dev);
  cmn.Input(img)
      .Arg("crop", std::vector<double>{224, 224})
      .Arg("mean", std::vector<double>{0.485 * 255, 0.456 * 255, 0.406 * 255})
      .Arg("std", std::vector<double>{0.229 * 255, 0.224 * 255, 0.225 * 255})
      .Arg("dtype", std::string("float16"));
  if (train) cmn.ArgInput("mirror", p.AddOperator(OperatorDef("random.coin_flip"))[0]);
  auto out = p.AddOperator(cmn)[0];
  p.SetOutputs({out, r[1]});
  p.Build();
  // Each batch is waited for, as a consumer reading it would (outputs are handed out before their
  // GPU work finishes).
  for (int i = 0; i < 10; ++i) p.Run()[0].Synchronize();  // warm-up: buffers grow, queues fill
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) p.Run()[0].Synchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {double(iters) * batch / s, p.GetExecutorStatistics()};
}

void Print(Kind kind, bool train, const Result& r) {
  std::printf("%-6s %-55s %9.1f images/s\n", train ? "train" : "val", Name(kind), r.images_per_s);
  for (const auto& op : r.stats.operators)
    std::printf("         %-34s %-6s %8.2f ms/batch (host time)\n", op.name.c_str(), op.device.c_str(), op.mean_batch_ms());
  std::printf("         queue occupancy mean %.2f max %d of %d, consumer waited %.1f ms in total\n",
              r.stats.mean_queue_occupancy, r.stats.max_queue_occupancy, r.stats.queue_capacity, r.stats.consumer_wait_ms);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "sample_data/train";
  const int batch = argc > 2 ? std::atoi(argv[2]) : 64;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 4;
  const int iters = argc > 4 ? std::atoi(argv[4]) : 20;
  const bool gpu = cuda::DeviceCount() > 0;
  std::printf("bench_gpu_pipeline: %s, batch %d, %d threads, %d batches per run, GPU %s\n", root.c_str(), batch, threads,
              iters, gpu ? "yes" : "no (CPU only)");
  try {
    for (bool train : {true, false}) {
      for (Kind k : {Kind::kCpu, Kind::kCpuDecodeThenCopy, Kind::kMixedDecode}) {
        if (k != Kind::kCpu && !gpu) continue;
        Print(k, train, RunOne(k, train, root, batch, threads, iters));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_pipeline: %s\n", e.what());
    return 1;
  }
  return 0;
}
