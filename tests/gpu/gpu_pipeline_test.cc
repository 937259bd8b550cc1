// Whole GPU pipelines: mixed decoders against the CPU decoders, decode(mixed) -> resize(gpu) ->
// crop_mirror_normalize(gpu) against the same on the CPU, determinism, device memory flat over
// epochs. Skipped without a CUDA device.
#include <cmath>

#include "gpu_test_util.h"

namespace sluice::gputest {
namespace {

std::vector<std::string> JpegFiles() {
  std::vector<std::string> f;
  for (const char* n : {"photo_500x375.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "gray.jpg",
                        "cmyk.jpg", "orient_1.jpg", "orient_3.jpg", "orient_6.jpg", "orient_8.jpg"})
    f.push_back(DataPath(n));
  return f;
}

// readers.file -> decoder (cpu and mixed, same seed) -> optional resize/cmn chains.
struct Chain {
  bool gpu;
  std::string decoder = "decoders.image";
  bool resize = false, cmn = false;
};

std::vector<std::string> AddChain(Pipeline& p, const std::string& files_edge, const Chain& c) {
  const std::string dev_decode = c.gpu ? "mixed" : "cpu", dev = c.gpu ? "gpu" : "cpu";
  OperatorDef dec(c.decoder, dev_decode);
  // scaled_decode off: the graph pass applies it to CPU decoders only, and this compares resize
  // and crop_mirror_normalize on identical decoded pixels.
  // nvjpeg off: these compare the host path bit for bit (nvjpeg_test.cc compares nvJPEG's pixels).
  dec.Input(files_edge).Arg("seed", int64_t{1234}).Arg("scaled_decode", false).Arg("nvjpeg", false);
  std::string e = p.AddOperator(dec)[0];
  if (c.resize) e = p.AddOperator(OperatorDef("resize", dev).Input(e).Arg("resize_shorter", 64.0))[0];
  if (c.cmn)
    e = p.AddOperator(OperatorDef("crop_mirror_normalize", dev)
                          .Input(e)
                          .Arg("crop", std::vector<double>{56, 56})
                          .Arg("mean", std::vector<double>{123.675, 116.28, 103.53})
                          .Arg("std", std::vector<double>{58.395, 57.12, 57.375})
                          .Arg("seed", int64_t{99}))[0];
  return {e};
}

// Runs `iters` batches of a pipeline that has a CPU chain and a GPU chain side by side.
std::vector<std::vector<Batch>> RunSideBySide(const Chain& cpu, const Chain& gpu, int batch, int iters) {
  Pipeline p(GpuOptions(batch, 3));
  auto r = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("files", JpegFiles()));
  auto a = AddChain(p, r[0], cpu)[0];
  auto b = AddChain(p, r[0], gpu)[0];
  p.SetOutputs({a, b});
  p.Build();
  std::vector<std::vector<Batch>> all;
  for (int i = 0; i < iters; ++i) all.push_back(p.Run());
  return all;
}

void ExpectEqualBatches(const Batch& a, const Batch& b, double float_rel) {
  ASSERT_EQ(a.num_samples(), b.num_samples());
  ASSERT_EQ(a.dtype(), b.dtype());
  for (int i = 0; i < a.num_samples(); ++i) {
    ASSERT_EQ(a.shape(i), b.shape(i)) << "sample " << i;
    if (a.dtype() == DType::kFloat32) {
      const auto x = HostValues<float>(a, i), y = HostValues<float>(b, i);
      double worst = 0;
      for (size_t k = 0; k < x.size(); ++k)
        worst = std::max(worst, std::abs(double(x[k]) - y[k]) / std::max(1.0, std::abs(double(x[k]))));
      EXPECT_LE(worst, float_rel) << "sample " << i << " (" << a.source(i).ToString() << ")";
    } else {
      EXPECT_EQ(HostBytes(a, i), HostBytes(b, i)) << "sample " << i << " (" << a.source(i).ToString() << ")";
    }
  }
}

TEST(GpuPipeline, MixedDecoderMatchesCpuDecoder) {
  SLUICE_REQUIRE_GPU();
  for (const char* d : {"decoders.image", "decoders.image_random_crop"}) {
    Chain cpu{false, d}, gpu{true, d};
    auto out = RunSideBySide(cpu, gpu, 4, 3);
    for (const auto& batch : out) {
      EXPECT_EQ(batch[0].device(), "cpu");
      EXPECT_EQ(batch[1].device(), "gpu");
      ExpectEqualBatches(batch[0], batch[1], 0);
      for (int i = 0; i < batch[1].num_samples(); ++i) EXPECT_EQ(batch[0].source(i).ToString(), batch[1].source(i).ToString());
    }
  }
}

TEST(GpuPipeline, DecodeResizeNormalizeMatchesCpu) {
  SLUICE_REQUIRE_GPU();
  Chain cpu{false, "decoders.image_random_crop", true, true}, gpu{true, "decoders.image_random_crop", true, true};
  auto out = RunSideBySide(cpu, gpu, 5, 4);
  for (const auto& batch : out) {
    EXPECT_EQ(batch[1].device(), "gpu");
    EXPECT_EQ(batch[1].layout(), "CHW");
    ExpectEqualBatches(batch[0], batch[1], 1e-5);
  }
}

std::vector<std::vector<uint8_t>> GpuRun(int threads, int iters, int cpu_depth = 2, int gpu_depth = 2) {
  PipelineOptions o = GpuOptions(6, threads);
  o.cpu_queue_depth = cpu_depth;
  o.gpu_queue_depth = gpu_depth;
  Pipeline p(o);
  auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", JpegFiles()).Arg("random_shuffle", true));
  auto e = AddChain(p, r[0], Chain{true, "decoders.image_random_crop", true, true})[0];
  auto m = p.AddOperator(OperatorDef("random.coin_flip").Arg("seed", int64_t{5}))[0];
  auto f = p.AddOperator(OperatorDef("flip", "gpu").Input(e).ArgInput("horizontal", m))[0];
  p.SetOutputs({f});
  p.Build();
  std::vector<std::vector<uint8_t>> all;
  for (int i = 0; i < iters; ++i) {
    auto out = p.Run();
    for (int s = 0; s < out[0].num_samples(); ++s) all.push_back(HostBytes(out[0], s));
  }
  return all;
}

TEST(GpuPipeline, DeterministicForAnyThreadCount) {
  SLUICE_REQUIRE_GPU();
  const auto ref = GpuRun(1, 4);
  EXPECT_EQ(GpuRun(4, 4), ref);
  EXPECT_EQ(GpuRun(1, 4), ref);
}

// The cpu stage and the device stage have their own rings (prefetch_queue_depth's cpu_size and
// gpu_size); any pair of depths gives the same batches.
TEST(GpuPipeline, SeparateQueueDepthsGiveTheSameBatches) {
  SLUICE_REQUIRE_GPU();
  const auto ref = GpuRun(2, 5);
  EXPECT_EQ(GpuRun(2, 5, 1, 1), ref);
  EXPECT_EQ(GpuRun(2, 5, 1, 3), ref);
  EXPECT_EQ(GpuRun(2, 5, 4, 1), ref);
}

#ifdef SLUICE_WITH_CUDA
// A consumer on its own stream: WaitOn orders the stream after the batch (no host wait), an
// asynchronous copy on that stream reads the finished batch, and ReleaseOn makes the pipeline's
// later writes into the buffers wait for the copy.
TEST(GpuPipeline, ConsumerStreamReadsBatchesWithoutHostSynchronization) {
  SLUICE_REQUIRE_GPU();
  Pipeline p(GpuOptions(4, 2));
  auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", JpegFiles()));
  auto cpu = AddChain(p, r[0], Chain{false, "decoders.image_random_crop", true, true})[0];
  auto gpu = AddChain(p, r[0], Chain{true, "decoders.image_random_crop", true, true})[0];
  p.SetOutputs({cpu, gpu});
  p.Build();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (int k = 0; k < 4; ++k) p.ScheduleRun();
  for (int it = 0; it < 6; ++it) {
    auto out = p.ShareOutputs();
    const Batch& g = out[1];
    EXPECT_EQ(g.device_id(), 0);
    g.WaitOn(s);
    std::vector<std::vector<float>> copies;
    for (int i = 0; i < g.num_samples(); ++i) {
      copies.emplace_back(g.nbytes(i) / sizeof(float));
      ASSERT_EQ(cudaMemcpyAsync(copies.back().data(), g.data(i), g.nbytes(i), cudaMemcpyDeviceToHost, s), cudaSuccess);
    }
    g.ReleaseOn(s);
    p.ReleaseOutputs();
    p.ScheduleRun();
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    for (int i = 0; i < g.num_samples(); ++i) {
      const auto* ref = static_cast<const float*>(out[0].data(i));
      double worst = 0;
      for (size_t k = 0; k < copies[static_cast<size_t>(i)].size(); ++k)
        worst = std::max(worst, std::abs(double(ref[k]) - copies[static_cast<size_t>(i)][k]) / std::max(1.0, std::abs(double(ref[k]))));
      EXPECT_LE(worst, 1e-5) << "iteration " << it << " sample " << i;
    }
  }
  cudaStreamDestroy(s);
}
#endif  // SLUICE_WITH_CUDA

#ifdef SLUICE_WITH_CUDA
TEST(GpuPipeline, DeviceMemoryIsFlatAcrossEpochs) {
  SLUICE_REQUIRE_GPU();
  PipelineOptions o = GpuOptions(4, 2);
  o.enable_memory_stats = true;
  Pipeline p(o);
  auto r = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("files", JpegFiles()).Arg("random_shuffle", true));
  auto e = AddChain(p, r[0], Chain{true, "decoders.image_random_crop", true, true})[0];
  p.SetOutputs({e});
  p.Build();
  const int64_t epoch = p.EpochSize("Reader");
  const int iters_per_epoch = static_cast<int>((epoch + 3) / 4);
  auto run_epoch = [&] {
    for (int i = 0; i < iters_per_epoch; ++i) p.Run();
  };
  // Warm-up: grow-only buffers reach (nearly) the largest sizes the random crops produce.
  for (int ep = 0; ep < 5; ++ep) run_epoch();
  size_t free0 = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
  const auto c0 = cuda::GetMemoryCounters();
  for (int ep = 0; ep < 10; ++ep) run_epoch();
  size_t free1 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
  const auto c1 = cuda::GetMemoryCounters();
  std::cout << "[ info ] device bytes (allocator) " << c0.device_bytes << " -> " << c1.device_bytes << ", pinned "
            << c0.pinned_bytes << " -> " << c1.pinned_bytes << ", cudaMemGetInfo free " << free0 << " -> " << free1
            << "\n";
  std::cout << "[ info ] device allocations during the 10 epochs: " << c1.device_allocations - c0.device_allocations
            << ", pinned: " << c1.pinned_allocations - c0.pinned_allocations << "\n";
  // Random crops change the sizes from batch to batch and a grow-only buffer still grows when a
  // larger one comes; that is bounded (a few MB here), a leak per batch is not.
  EXPECT_LE(c1.device_bytes, c0.device_bytes + (4u << 20));
  EXPECT_LE(c1.pinned_bytes, c0.pinned_bytes + (4u << 20));
  EXPECT_GE(free1 + (8u << 20), free0);
  const auto stats = p.GetExecutorStatistics();
  bool saw_gpu = false;
  for (const auto& op : stats.operators) {
    if (op.device == "cpu") continue;
    saw_gpu = true;
    ASSERT_FALSE(op.reserved_memory_size.empty()) << op.name;
    EXPECT_GT(op.reserved_memory_size[0], 0u) << op.name;
    EXPECT_FALSE(op.memory_is_fallback) << op.name;
  }
  EXPECT_TRUE(saw_gpu);
}
#endif  // SLUICE_WITH_CUDA

TEST(GpuPipeline, HeldBatchesStayValidWhileTheNextAreProduced) {
  SLUICE_REQUIRE_GPU();
  Pipeline p(GpuOptions(3, 2));
  auto r = p.AddOperator(OperatorDef("readers.file").Arg("files", JpegFiles()));
  auto e = AddChain(p, r[0], Chain{true, "decoders.image", true, false})[0];
  p.SetOutputs({e});
  p.Build();
  auto first = p.Run();
  std::vector<std::vector<uint8_t>> before;
  for (int i = 0; i < first[0].num_samples(); ++i) before.push_back(HostBytes(first[0], i));
  for (int k = 0; k < 5; ++k) p.Run();  // the first batch is kept past its release
  for (int i = 0; i < first[0].num_samples(); ++i) EXPECT_EQ(HostBytes(first[0], i), before[static_cast<size_t>(i)]);
}

}  // namespace
}  // namespace sluice::gputest
