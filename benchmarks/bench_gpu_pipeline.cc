// End-to-end images/s of the ImageNet training and validation pipelines, CPU-only against the GPU
// backends: (a) decode on the CPU then copy to the GPU, (b) host decode in the mixed stage,
// (c) nvJPEG's hybrid backends only, (d) nvJPEG's JPEG engines + hybrid at hw_decoder_load 0.65
// and 1.0; augmentation on the GPU. For each: images/s, CPU cores busy (process CPU time / wall
// time), device memory in use (cudaMemGetInfo), and the executor's per-operator statistics.
//
//   bench_gpu_pipeline [file_root] [batch_size] [num_threads[,num_threads...]] [iterations]
// file_root holds one subfolder per class (e.g. sample_data/train). Several thread counts
// ("2,4,8,16") repeat the train runs for each, to show where the CPU stops being the ceiling.
// Without a CUDA device only the CPU pipeline runs. The nvJPEG variants decode at full resolution
// (nvJPEG has no reduced-scale decode); the others get the scaled-decode hint a CPU decoder gets.
#include <sluice/pipeline.h>
#include <sys/resource.h>

#ifdef SLUICE_WITH_CUDA
#include <cuda_runtime.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda/device.h"

using namespace sluice;

namespace {

enum class Kind { kCpu, kCpuDecodeThenCopy, kMixedHost, kNvjpegHybrid, kNvjpegHw065, kNvjpegHw100 };
const char* Name(Kind k) {
  switch (k) {
    case Kind::kCpu: return "cpu only";
    case Kind::kCpuDecodeThenCopy: return "(a) decode(cpu) -> copy(mixed) -> resize/cmn(gpu)";
    case Kind::kMixedHost: return "(b) decode(mixed, host) -> resize/cmn(gpu)";
    case Kind::kNvjpegHybrid: return "(c) decode(mixed, nvJPEG hybrid) -> resize/cmn(gpu)";
    case Kind::kNvjpegHw065: return "(d) decode(mixed, nvJPEG hw 0.65) -> resize/cmn(gpu)";
    case Kind::kNvjpegHw100: return "(d) decode(mixed, nvJPEG hw 1.0) -> resize/cmn(gpu)";
  }
  return "";
}
bool Nvjpeg(Kind k) { return k == Kind::kNvjpegHybrid || k == Kind::kNvjpegHw065 || k == Kind::kNvjpegHw100; }

struct Result {
  double images_per_s = 0;
  double cores_busy = 0;     // process CPU seconds per wall second over the timed batches
  double device_mib = -1;    // device memory in use after the run (whole device), MiB
  ExecutorStatistics stats;
};

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

Result RunOne(Kind kind, bool train, const std::string& root, int batch, int threads, int iters) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = 1;
  o.device_id = kind == Kind::kCpu ? -1 : 0;
  Pipeline p(o);
  auto r = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("file_root", root).Arg("random_shuffle", train));
  const std::string dec_dev = kind == Kind::kCpu || kind == Kind::kCpuDecodeThenCopy ? "cpu" : "mixed";
  const std::string dev = kind == Kind::kCpu ? "cpu" : "gpu";
  // The scaled-decode hint the graph pass gives a CPU decoder feeding resize, given to every
  // variant so that they all decode the same pixels (the pass does not look through copy or at
  // mixed decoders).
  OperatorDef dec(train ? "decoders.image_random_crop" : "decoders.image", dec_dev);
  dec.Input(r[0]).Arg("decode_size_hint", train ? std::vector<int64_t>{224, 224} : std::vector<int64_t>{256, 256});
  if (kind == Kind::kMixedHost) dec.Arg("nvjpeg", false);
  if (Nvjpeg(kind))
    dec.Arg("hw_decoder_load", kind == Kind::kNvjpegHybrid ? 0.0 : kind == Kind::kNvjpegHw065 ? 0.65 : 1.0);
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
  const double c0 = CpuSeconds();
  for (int i = 0; i < iters; ++i) p.Run()[0].Synchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Result res{double(iters) * batch / s, (CpuSeconds() - c0) / s, -1, p.GetExecutorStatistics()};
#ifdef SLUICE_WITH_CUDA
  size_t free_b = 0, total_b = 0;
  if (kind != Kind::kCpu && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
    res.device_mib = double(total_b - free_b) / (1 << 20);
#endif
  return res;
}

void Print(Kind kind, bool train, int threads, const Result& r) {
  std::printf("%-6s %2d thr %-52s %9.1f images/s  %5.2f cores busy", train ? "train" : "val", threads, Name(kind),
              r.images_per_s, r.cores_busy);
  if (r.device_mib >= 0) std::printf("  %7.0f MiB on the device", r.device_mib);
  std::printf("\n");
  for (const auto& op : r.stats.operators)
    std::printf("         %-34s %-6s %8.2f ms/batch (host time)\n", op.name.c_str(), op.device.c_str(), op.mean_batch_ms());
  std::printf("         queue occupancy mean %.2f max %d of %d, consumer waited %.1f ms in total\n",
              r.stats.mean_queue_occupancy, r.stats.max_queue_occupancy, r.stats.queue_capacity, r.stats.consumer_wait_ms);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "sample_data/train";
  const int batch = argc > 2 ? std::atoi(argv[2]) : 64;
  std::vector<int> thread_counts;
  for (const char* t = argc > 3 ? argv[3] : "4"; *t;) {
    char* end = nullptr;
    thread_counts.push_back(static_cast<int>(std::strtol(t, &end, 10)));
    t = *end == ',' ? end + 1 : end;
  }
  const int iters = argc > 4 ? std::atoi(argv[4]) : 20;
  const bool gpu = cuda::DeviceCount() > 0;
  std::printf("bench_gpu_pipeline: %s, batch %d, %d batches per run, GPU %s\n", root.c_str(), batch, iters,
              gpu ? "yes" : "no (CPU only)");
  try {
    for (bool train : {true, false}) {
      // Validation once, at the first thread count; training at each.
      for (size_t ti = 0; ti < (train ? thread_counts.size() : 1); ++ti) {
        for (Kind k : {Kind::kCpu, Kind::kCpuDecodeThenCopy, Kind::kMixedHost, Kind::kNvjpegHybrid, Kind::kNvjpegHw065,
                       Kind::kNvjpegHw100}) {
          if (k != Kind::kCpu && !gpu) continue;
          Print(k, train, thread_counts[ti], RunOne(k, train, root, batch, thread_counts[ti], iters));
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_pipeline: %s\n", e.what());
    return 1;
  }
  return 0;
}
