// The ImageNet training and validation input pipelines from C++, on a folder of class
// subfolders of JPEGs; prints images/s and the per-operator time.
//   image-pipeline-demo DIR [train|val|decode] [threads] [batch] [epochs]
#include <sluice/pipeline.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using sluice::OperatorDef;

// Resident memory of this process in MB.
static double RssMb() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [train|val|decode] [threads] [batch] [epochs]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const std::string which = argc > 2 ? argv[2] : "train";
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int batch = argc > 4 ? std::atoi(argv[4]) : 64;
  const int epochs = argc > 5 ? std::atoi(argv[5]) : 1;
  try {
    sluice::PipelineOptions o;
    o.batch_size = batch;
    o.num_threads = threads;
    o.seed = 1;
    sluice::Pipeline p(o);
    auto r = p.AddOperator(OperatorDef("readers.file").Name("Reader").Arg("file_root", dir).Arg("random_shuffle", which == "train"));
    const std::vector<double> mean{0.485 * 255, 0.456 * 255, 0.406 * 255}, stdv{0.229 * 255, 0.224 * 255, 0.225 * 255};
    std::string images;
    if (which == "train") {
      auto d = p.AddOperator(OperatorDef("decoders.image_random_crop").Input(r[0]))[0];
      auto s = p.AddOperator(OperatorDef("resize").Input(d).Arg("resize_x", 224.0).Arg("resize_y", 224.0))[0];
      auto m = p.AddOperator(OperatorDef("random.coin_flip"))[0];
      images = p.AddOperator(OperatorDef("crop_mirror_normalize").Input(s).ArgInput("mirror", m).Arg("mean", mean).Arg("std", stdv))[0];
    } else if (which == "val") {
      auto d = p.AddOperator(OperatorDef("decoders.image").Input(r[0]))[0];
      auto s = p.AddOperator(OperatorDef("resize").Input(d).Arg("resize_shorter", 256.0))[0];
      images = p.AddOperator(OperatorDef("crop_mirror_normalize").Input(s).Arg("crop", std::vector<double>{224, 224}).Arg("mean", mean).Arg("std", stdv))[0];
    } else {
      images = p.AddOperator(OperatorDef("decoders.image").Input(r[0]))[0];
    }
    p.SetOutputs({images, r[1]});
    p.Build();
    const int64_t epoch = p.EpochSize("Reader");
    const int64_t per_epoch = (epoch + batch - 1) / batch;
    const int64_t iters = per_epoch * epochs;
    using Clock = std::chrono::steady_clock;
    p.Run();  // first batch: warm-up
    const auto t0 = Clock::now();
    std::string rss;
    for (int64_t i = 1; i < iters; ++i) {
      p.Run();
      if ((i + 1) % per_epoch == 0) rss += " " + std::to_string(static_cast<int>(RssMb()));
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("%s: %d threads, batch %d: %.1f images/s\n", which.c_str(), threads, batch, (iters - 1) * batch / s);
    std::printf("  RSS after each epoch (MB):%s\n", rss.c_str());
    for (const auto& op : p.GetExecutorStatistics().operators)
      std::printf("  %-32s %8.2f ms/batch\n", op.name.c_str(), op.mean_batch_ms());
    return 0;
  } catch (const sluice::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
